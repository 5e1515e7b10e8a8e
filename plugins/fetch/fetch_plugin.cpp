// airlock.fetch: one tool per configured name (fetch_config.hpp) that GETs an
// http(s) URL through the host's egress layer (call_fetch, EGRESS in
// airlock.h) and returns the body as untrusted text, with the final URL,
// status and content type in structuredContent.
//
// The plugin holds no network authority of its own: the host checks every
// destination, each redirect hop included, against the egress set of the
// tool name the model called, and refuses the rest with a message naming
// the destination and the rule. A refusal, a network failure or a timeout
// is a tool error carrying the host's text; an HTTP error status is not,
// since the page the server sent is still the answer.
#include <airlock/airlock.hpp>

#include "fetch_config.hpp"
#include "response_text.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

namespace json = boost::json;
namespace sdk = airlock::sdk;
using airlock::plugins::fetch::is_textual_content_type;
using airlock::plugins::fetch::quote_briefly;
using airlock::plugins::fetch::repair_utf8;
using airlock::plugins::fetch::web_source;

constexpr std::int64_t kMaxBytesCeiling = 8388608;  // 8 MiB, as the inputSchema says

constexpr std::string_view kInputSchema = R"({
  "type": "object",
  "properties": {
    "url": {"type": "string", "description": "The absolute http:// or https:// URL to GET."},
    "max_bytes": {"type": "integer", "minimum": 1, "maximum": 8388608,
                  "description": "Keep at most this many bytes of the body; the rest is cut off and the result says so. Default: the host's limit."}
  },
  "required": ["url"],
  "additionalProperties": false
})";

constexpr std::string_view kOutputSchema = R"({
  "type": "object",
  "properties": {
    "url": {"type": "string", "description": "The URL asked for."},
    "final_url": {"type": "string", "description": "The URL that answered, after redirects."},
    "status": {"type": "integer", "description": "The HTTP status of the final response."},
    "content_type": {"type": "string", "description": "Its Content-Type; empty when it had none."},
    "truncated": {"type": "boolean", "description": "True when the body was cut off at the byte limit."},
    "bytes": {"type": "integer", "minimum": 0, "description": "Body bytes received (after any cut)."}
  },
  "required": ["url", "final_url", "status", "content_type", "truncated", "bytes"]
})";

constexpr std::string_view kDescription =
    "Fetches an http:// or https:// URL (HTTP GET) and returns the response body as untrusted text, with "
    "the final URL, HTTP status and content type in structuredContent. Only destinations the operator "
    "granted this tool can be reached, redirects included (each hop is checked again); any other is "
    "refused with the rule that refused it. Only textual content types are returned.";

struct Arguments {
  std::string url;
  std::uint64_t max_bytes = 0;  // 0: the host's limit
};

Arguments read_arguments(const json::object& args) {
  for (const auto& [key, value] : args)
    if (key != "url" && key != "max_bytes")
      throw std::invalid_argument("unknown argument '" + quote_briefly(repair_utf8(key), 64) +
                                  "' (the arguments are url and max_bytes)");
  Arguments a;
  a.url = std::string(sdk::string_arg(args, "url"));
  if (args.contains("max_bytes")) {
    const std::int64_t max_bytes = sdk::int_arg(args, "max_bytes");
    if (max_bytes < 1 || max_bytes > kMaxBytesCeiling)
      throw std::invalid_argument("argument 'max_bytes' must be between 1 and " + std::to_string(kMaxBytesCeiling));
    a.max_bytes = static_cast<std::uint64_t>(max_bytes);
  }
  return a;
}

[[noreturn]] void tool_error(const std::string& message) {
  throw sdk::StatusError(AIRLOCK_STATUS_TOOL_ERROR, repair_utf8(message));
}

// The host's own explanation when it gave one (for a refusal it names the
// destination and the rule), else `fallback`.
std::string explained(const sdk::FetchResponse& response, std::string fallback) {
  return response.error.empty() ? fallback : response.error;
}

// Stops the call unless the host answered with an HTTP response.
void require_response(const sdk::FetchResponse& response, const std::string& url) {
  switch (response.status) {
    case AIRLOCK_STATUS_OK:
      return;
    case AIRLOCK_STATUS_CANCELLED:
      throw sdk::Cancelled{};
    case AIRLOCK_STATUS_DENIED:
      tool_error(explained(response, "egress denied: " + url));
    case AIRLOCK_STATUS_NETWORK_ERROR:
      tool_error(explained(response, "fetching " + url + " failed: no response"));
    case AIRLOCK_STATUS_TIMEOUT:
      tool_error(explained(response, "fetching " + url + " timed out"));
    case AIRLOCK_STATUS_INVALID_ARGUMENT:
      tool_error(explained(response, url + " is not an absolute http:// or https:// URL the host can fetch"));
    case AIRLOCK_STATUS_UNSUPPORTED:
      tool_error(explained(response, "this host cannot fetch: it predates egress (ABI 1.4)"));
    default:
      // Nobody's input: logged by the SDK, never shown to the model.
      throw sdk::StatusError(AIRLOCK_STATUS_INTERNAL,
                             "call_fetch returned the unexpected status " + std::to_string(response.status));
  }
}

void fetch(const json::object& args, sdk::Call& call) {
  const Arguments a = read_arguments(args);
  sdk::FetchRequest request;
  request.url = a.url;
  request.follow_redirects = true;
  request.max_response_bytes = a.max_bytes;
  const sdk::FetchResponse response = call.fetch(request);
  require_response(response, a.url);

  const std::string final_url = repair_utf8(response.final_url.empty() ? a.url : response.final_url);
  const std::string content_type = repair_utf8(response.content_type);
  if (!is_textual_content_type(content_type))
    tool_error(final_url + " answered with content type \"" + quote_briefly(content_type, 100) +
               "\", which airlock.fetch does not return: it returns text only (text/*, application/json, "
               "application/xml, application/javascript, *+json, *+xml)");

  const std::string source = web_source(final_url);
  call.add_untrusted_text(source, repair_utf8(response.body));
  if (response.truncated)
    call.add_text("airlock.fetch: the body was cut off after " + std::to_string(response.body.size()) +
                  " bytes, the response limit; the text above is only its beginning.");
  call.set_structured(json::object{{"url", a.url},
                                   {"final_url", final_url},
                                   {"status", response.http_status},
                                   {"content_type", content_type},
                                   {"truncated", response.truncated},
                                   {"bytes", response.body.size()}});
  // Both came from the remote side (a Location header, a Content-Type).
  call.mark_untrusted("/final_url", source);
  call.mark_untrusted("/content_type", source);
}

}  // namespace

AIRLOCK_PLUGIN(plugin) {
  plugin.info("airlock.fetch", "1.0.0", "GETs granted http(s) URLs through the host's egress layer");
  airlock::plugins::fetch::FetchConfig config;
  try {
    config = airlock::plugins::fetch::read_fetch_config(plugin.config());
  } catch (const std::invalid_argument& e) {
    throw sdk::StatusError(AIRLOCK_STATUS_INVALID_ARGUMENT, e.what());
  }
  for (const std::string& name : config.names) {
    // Runs on any worker thread, several at once: it keeps no state.
    plugin.tool({.name = name,
                 .title = "Fetch a URL",
                 .description = kDescription,
                 .input_schema = kInputSchema,
                 .output_schema = kOutputSchema,
                 .annotations = R"({"readOnlyHint":true,"idempotentHint":true,"openWorldHint":true})",
                 .flags = AIRLOCK_TOOL_REENTRANT | AIRLOCK_TOOL_CANCELLABLE},
                fetch);
  }
}
