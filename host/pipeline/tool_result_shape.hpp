// What counts as a tool result (an MCP CallToolResult) when a plugin hands the
// host JSON: checked on what tools return and on what result sanitizers write.
#pragma once

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace airlock::host {

// Says what is wrong with `result` as a CallToolResult, or nothing. The reason
// names fields and types only, never values, so it is safe to log.
std::optional<std::string> tool_result_shape_error(const boost::json::object& result);

}  // namespace airlock::host
