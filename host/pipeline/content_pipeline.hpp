// The path of a resource read or a prompt get (ABI 1.3 content) from what the
// plugin wrote to the JSON the client receives: the text sanitizers of its
// chain over every text in it, UTF-8, the byte budget. Fail closed like a
// tool result: any failure withholds the whole answer, and the client gets a
// JSON-RPC error with fixed host text instead.
#pragma once

#include "pipeline/content_routes.hpp"
#include "pipeline/request_context.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace airlock::host {

enum class ContentKind { resource, prompt };

// The fixed texts of a withheld answer: no byte of the content, of a
// sanitizer's output or of an exception.
inline constexpr std::string_view kResourceWithheldText = "resource withheld: it did not pass the sanitizer chain";
inline constexpr std::string_view kPromptWithheldText = "prompt withheld: it did not pass the sanitizer chain";
inline constexpr std::string_view kResourceOverBudgetText =
    "resource withheld: it does not fit the result byte budget";
inline constexpr std::string_view kPromptOverBudgetText = "prompt withheld: it does not fit the result byte budget";

// Sanitizes `result` (a ReadResourceResult or GetPromptResult object) in
// place and appends it, serialized, to `out`. `subject` (the URI or prompt
// name) is for the operator's log. On failure nothing is appended and the
// withheld text is returned; the log names the subject, the sanitizer and
// why, never the data, and context.metrics (when set) counts the sanitizer.
std::optional<std::string_view> run_content_pipeline(ContentKind kind, std::string_view subject,
                                                     const ContentRoute& route, boost::json::object& result,
                                                     const RequestContext& context, std::string& out);

}  // namespace airlock::host
