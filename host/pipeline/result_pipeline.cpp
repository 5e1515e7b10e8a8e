// The result pipeline. Every tool result a client sees passes these stages,
// in this order, each one function below:
//
//   1. check_payload      what the tool left is a tool result, or an error
//                         result the host writes; nothing else goes on
//   2. sanitize           the tool's chain; any failure withholds the result
//   3. mirror             structuredContent -> a text block, when asked
//   4. envelope           the CallToolResult the protocol defines
//   5. serialize
//
// Output-schema validation (after 2, so a sanitizer that breaks the schema
// is caught) and byte budgets (after 4) join this list with the pipeline
// issue. Host-written errors enter at stage 1 and pass the chain like any
// tool output, so a sanitizer sees every result a client will see.
#include "pipeline/result_pipeline.hpp"

#include "pipeline/tool_result_shape.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace airlock::host {
namespace {

boost::json::object error_result(std::string_view text) {
  return boost::json::object{
      {"content", boost::json::array{boost::json::object{{"type", "text"}, {"text", text}}}},
      {"isError", true}};
}

boost::json::object withheld_result() { return error_result(kWithheldText); }

// Stage 1. A tool that returned OK must have set a result of the right
// shape; a tool error becomes an isError result with the tool's message
// (tool output, so it is sanitized next); anything else is the host's own
// fixed text.
std::optional<boost::json::object> check_payload(const Tool& tool, ToolCallOutcome& outcome) {
  auto& out = outcome.output;
  switch (outcome.status) {
    case AIRLOCK_STATUS_OK: break;
    case AIRLOCK_STATUS_TOOL_ERROR:
      return error_result(out.error_message ? std::string_view(*out.error_message) : "the tool failed");
    default:
      spdlog::error("tool '{}': on_call returned status {}", tool.name, outcome.status);
      return error_result("the tool failed with an internal error");
  }
  if (out.error_message) return error_result(*out.error_message);

  boost::json::object result;
  if (out.whole) {
    result = std::move(*out.whole);
    if (!out.content.empty()) {
      spdlog::error("tool '{}': set both a whole result and text blocks; result withheld", tool.name);
      return std::nullopt;
    }
  } else if (!out.content.empty() || out.structured) {
    result.emplace("content", std::move(out.content));
    if (out.structured) result.emplace("structuredContent", std::move(*out.structured));
  } else {
    spdlog::error("tool '{}': returned OK without setting a result; result withheld", tool.name);
    return std::nullopt;
  }
  if (auto shape = tool_result_shape_error(result)) {
    spdlog::error("tool '{}': returned a malformed result ({}); result withheld", tool.name, *shape);
    return std::nullopt;
  }
  return result;
}

// Stage 2. The log names the tool, the sanitizer and how it failed; never
// the data, which is exactly what is being withheld.
bool sanitize(const ToolRoute& route, boost::json::object& result, const RequestContext& context,
              std::string_view raw_arguments) {
  if (!route.chain) return true;
  const ChainCall call{context, route.tool->name, raw_arguments};
  if (auto failure = route.chain->run(result, call)) {
    spdlog::error("tool '{}': sanitizer '{}' (chain '{}') {}; result withheld", route.tool->name,
                  failure->sanitizer, route.chain->name(), failure->reason);
    return false;
  }
  return true;
}

// Stage 3. The spec's backwards-compatible form: structured output also as
// serialized text, done here only, so it is never serialized twice.
void mirror(const ToolRoute& route, boost::json::object& result) {
  if (route.mirror != Mirror::text) return;
  const auto* structured = result.if_contains("structuredContent");
  if (!structured) return;
  auto& content = result["content"].as_array();
  for (const auto& block : content)
    if (const auto* b = block.if_object(); b && b->contains("text")) return;  // the tool wrote its own text
  content.push_back(boost::json::object{{"type", "text"}, {"text", boost::json::serialize(*structured)}});
}

// Stage 4. isError is written only when true; _meta travels as the tool and
// the chain left it (out-of-band data, never a secret channel).
void envelope(boost::json::object& result) {
  if (auto* is_error = result.if_contains("isError"); is_error && !is_error->as_bool()) result.erase("isError");
}

}  // namespace

std::string run_result_pipeline(const ToolRoute& route, ToolCallOutcome outcome,
                                const RequestContext& context, std::string_view raw_arguments) {
  auto result = check_payload(*route.tool, outcome);
  if (!result) return boost::json::serialize(withheld_result());
  if (!sanitize(route, *result, context, raw_arguments)) return boost::json::serialize(withheld_result());
  mirror(route, *result);
  envelope(*result);
  return boost::json::serialize(*result);
}

}  // namespace airlock::host
