// The path of every answer a plugin's code produces, from what the plugin
// left behind to the JSON-RPC response the client receives: a tool's
// result, a resource read, a prompt get. See result_pipeline.cpp for the
// stages, in order; each takes the payload's kind.
#pragma once

#include "audit/audit_event.hpp"
#include "pipeline/content_routes.hpp"
#include "pipeline/request_context.hpp"
#include "pipeline/tool_routes.hpp"
#include "plugins/plugin_types.hpp"

#include <airlock/airlock.h>

#include <chrono>
#include <string>
#include <string_view>

namespace airlock::host {

// The fixed texts of withheld results. None holds a byte of the result, of
// an exception or of a sanitizer's output.
inline constexpr std::string_view kWithheldText = "tool result withheld: it did not pass the sanitizer chain";
inline constexpr std::string_view kOverBudgetText = "tool result withheld: it does not fit the result byte budget";
inline constexpr std::string_view kResourceWithheldText = "resource withheld: it did not pass the sanitizer chain";
inline constexpr std::string_view kPromptWithheldText = "prompt withheld: it did not pass the sanitizer chain";
inline constexpr std::string_view kResourceOverBudgetText =
    "resource withheld: it does not fit the result byte budget";
inline constexpr std::string_view kPromptOverBudgetText = "prompt withheld: it does not fit the result byte budget";

struct ToolCallOutcome {
  airlock_status status = AIRLOCK_STATUS_INTERNAL;  // what on_call returned
  ToolOutput output;                                // what it set through the host
  std::chrono::nanoseconds took{0};                 // how long on_call ran; 0 unless audited
};

// How a result left the pipeline, in the host's words: what the caller
// counts and the audit trail records. Nothing here holds a byte of the
// result that anything can read: the audit trail's digest of it is pending,
// and only hashing reads what it covers.
struct PipelineVerdict {
  bool error = false;  // what was appended is an error result (isError), or an error response
  // The stage that withheld the result: "payload", "chain", "output_schema",
  // "envelope" or "budget"; empty when the result was delivered.
  std::string_view withheld;
  std::string step;  // the sanitizer that withheld it, when the chain did
  // SHA-256 of the canonical JSON of the result as stage 1 left it (before
  // any sanitizer), to be computed by the trail's writer; set only while an
  // audit trail is installed. Tool results only.
  std::optional<audit::PendingDigest> result_digest;
  // Where the delivered result (the CallToolResult, ReadResourceResult or
  // GetPromptResult) sits in what was appended; empty when none was: a
  // withheld resource or prompt is an error response.
  std::size_t result_at = 0;
  std::size_t result_size = 0;
  std::string_view result_in(std::string_view out) const { return out.substr(result_at, result_size); }
};

// Runs every stage over a tool's outcome and appends to `out` the complete
// JSON-RPC response to request `id`, or, with no id, the CallToolResult
// alone (written in place, never copied again). The budget counts only the
// result. A sanitizer that withholds the result is counted in
// context.metrics, when set.
PipelineVerdict run_result_pipeline(const ToolRoute& route, ToolCallOutcome outcome, const RequestContext& context,
                                    std::string_view raw_arguments, std::string& out,
                                    const boost::json::value* id = nullptr);

// The same, returning the serialized CallToolResult.
std::string run_result_pipeline(const ToolRoute& route, ToolCallOutcome outcome, const RequestContext& context,
                                std::string_view raw_arguments);

// A task's result as it is stored (issue 10): what stage 1 made of the
// tool's output, before any sanitizer, and the egress it reached. Every read
// runs the stages from the chain on over a copy, with the reader's context.
struct StoredToolResult {
  std::optional<boost::json::object> result;  // none: not a tool result; withheld at every read
  boost::json::array egress;                  // the provenance entries, as _meta["airlock/egress"] lists them
};
StoredToolResult store_tool_result(const ToolRoute& route, ToolCallOutcome outcome);
PipelineVerdict run_stored_result_pipeline(const ToolRoute& route, const StoredToolResult& stored,
                                           const RequestContext& context, std::string_view raw_arguments,
                                           std::string& out);

// The result for arguments that fail the tool's inputSchema: host text that
// names the schema location and keyword only, sent through the same pipeline
// (so the chain sees it) without the tool ever running.
PipelineVerdict run_invalid_arguments_pipeline(const ToolRoute& route, std::string_view failure,
                                               const RequestContext& context, std::string_view raw_arguments,
                                               std::string& out, const boost::json::value* id = nullptr);

// A resource read or a prompt get (ABI 1.3 content), as its plugin wrote it.
enum class ContentKind { resource, prompt };
struct ContentPayload {
  ContentKind kind;
  std::string_view subject;  // the URI or the prompt's name, for the operator's log
  const ContentRoute& route;
};

// Runs the stages over `result` (a ReadResourceResult or GetPromptResult)
// and appends the complete JSON-RPC response to request `id`: the result,
// or, withheld, the error with the fixed text above (the verdict names the
// stage). The log names the subject, the sanitizer and why, never the data.
PipelineVerdict run_content_pipeline(const ContentPayload& payload, boost::json::object result,
                                     const RequestContext& context, const boost::json::value& id, std::string& out);

}  // namespace airlock::host
