// The x-mcp-header annotations of a tool's inputSchema (MCP 2026-07-28,
// SEP-2243): which arguments a client mirrors into Mcp-Param-* request
// headers. Read once when a plugin registers the tool; a bad annotation
// refuses the tool, because clients drop such tools and the headers of the
// ones they keep must be checkable against the body.
#pragma once

#include "util/error.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace airlock::host {

struct HeaderParam {
  std::string name;               // the x-mcp-header value as annotated, e.g. "Region" (header "Mcp-Param-Region")
  std::vector<std::string> path;  // property names from the schema root, e.g. {"region"} or {"filter","region"}
  enum class Type { string, integer, boolean } type;
};

// The annotations in schema order, or an error naming the schema path (a JSON
// pointer such as "/properties/a/items/x-mcp-header") and what is wrong.
// An annotation must be a non-empty RFC 9110 token, unique ignoring case,
// on a property whose "type" is exactly "string", "integer" or "boolean",
// reached from the root through nested "properties" only; one anywhere else
// (items, allOf, $defs, ...) is an error, not something to skip.
Result<std::vector<HeaderParam>> header_params(const boost::json::object& input_schema);

}  // namespace airlock::host
