// The path of one tool result, from what the tool left behind to the JSON
// the client receives. See result_pipeline.cpp for the stages, in order.
#pragma once

#include "pipeline/request_context.hpp"
#include "pipeline/tool_routes.hpp"
#include "plugins/plugin_types.hpp"

#include <airlock/airlock.h>

#include <string>
#include <string_view>

namespace airlock::host {

// The fixed text of every result withheld by a failing chain. It holds no
// byte of the result, the exception or the sanitizer's output.
inline constexpr std::string_view kWithheldText =
    "tool result withheld: it did not pass the sanitizer chain";

struct ToolCallOutcome {
  airlock_status status = AIRLOCK_STATUS_INTERNAL;  // what on_call returned
  ToolOutput output;                                // what it set through the host
};

// Runs every stage and returns the serialized CallToolResult.
std::string run_result_pipeline(const ToolRoute& route, ToolCallOutcome outcome,
                                const RequestContext& context, std::string_view raw_arguments);

}  // namespace airlock::host
