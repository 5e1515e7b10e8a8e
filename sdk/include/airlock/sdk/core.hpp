// airlock/sdk/core.hpp: the vocabulary every hook shares. Views of the ABI's
// strings, the exceptions a hook may throw and what each becomes, the values
// tools and sanitizers exchange, argument helpers, and the barrier that keeps
// every exception on the plugin's side of the C ABI.
// Part of the C++ layer over airlock.h; plugins include <airlock/airlock.hpp>.
#ifndef AIRLOCK_SDK_CORE_HPP
#define AIRLOCK_SDK_CORE_HPP

#include <airlock/airlock.h>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/parser.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace airlock::sdk {

// Borrowed views both ways; neither copies.
inline airlock_str to_str(std::string_view s) noexcept { return airlock_str{s.data(), s.size()}; }
inline std::string_view to_view(airlock_str s) noexcept {
  return s.ptr == nullptr ? std::string_view() : std::string_view(s.ptr, s.len);
}

// Thrown by a tool that noticed its cancellation; the call returns CANCELLED.
struct Cancelled {};

// Thrown (ABI 1.5, TWO PROTOCOL ERAS in airlock.h) when a question to the
// client is not answered yet in a 2026-07-28 request: the tool, prompt or
// read returns AIRLOCK_STATUS_INPUT_REQUIRED, the host asks the client every
// question of this run, and the hook runs again from the start with the
// answers. The keyed elicit / sample / list_roots throw it themselves; after
// Call::input (which returns nullopt instead, so that several questions go
// out together) the hook throws it once it asked them all. It is no
// std::exception on purpose: a hook's own catch (const std::exception&) must
// let it through.
class InputRequired {
 public:
  InputRequired() = default;
  explicit InputRequired(std::string key) : key_(std::move(key)) {}
  // The question still open, when the SDK threw it; empty otherwise.
  const std::string& key() const noexcept { return key_; }

 private:
  std::string key_;
};

// Thrown by Call::start_task (ABI 1.5, call_start_task in airlock.h) when the
// host made the request a durable task: the tool returns
// AIRLOCK_STATUS_TASK_STARTED, the host answers the client with the task and
// runs the tool again from the start as the task. Like InputRequired it is
// no std::exception, so that a tool's own catch (const std::exception&) lets
// it through (a catch (...) must rethrow it).
struct TaskStarted {};

// Thrown to return exactly `status`. From a tool: TOOL_ERROR shows what() to
// the model, any other status is an internal failure and what() is logged.
// From init: what() becomes the init error.
class StatusError : public std::runtime_error {
 public:
  StatusError(airlock_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  airlock_status status() const noexcept { return status_; }

 private:
  airlock_status status_;
};

// A tool's return value that becomes one text content block.
struct Text {
  std::string text;
};

// A tool's return value that becomes one text content block holding text from
// a remote system named `source` ([A-Za-z0-9._:@/-]{1,64}); the host frames it
// as data for the model (UNTRUSTED TEXT in airlock.h). Needs an ABI 1.1 host.
struct UntrustedText {
  std::string source;
  std::string text;
};

// The MCP log levels of Call::log (airlock_client_log_level), least severe first.
enum class LogLevel : airlock_client_log_level {
  debug = AIRLOCK_CLIENT_LOG_DEBUG,
  info = AIRLOCK_CLIENT_LOG_INFO,
  notice = AIRLOCK_CLIENT_LOG_NOTICE,
  warning = AIRLOCK_CLIENT_LOG_WARNING,
  error = AIRLOCK_CLIENT_LOG_ERROR,
  critical = AIRLOCK_CLIENT_LOG_CRITICAL,
  alert = AIRLOCK_CLIENT_LOG_ALERT,
  emergency = AIRLOCK_CLIENT_LOG_EMERGENCY,
};

// The lists of Host::notify_list_changed (ABI 1.5, AIRLOCK_LIST_*).
enum class List : std::uint32_t {
  tools = AIRLOCK_LIST_TOOLS,
  prompts = AIRLOCK_LIST_PROMPTS,
  resources = AIRLOCK_LIST_RESOURCES,
};

// What the client answered a Call::ask_client or an ask_input request.
struct ClientReply {
  // OK, TOOL_ERROR (the client answered with an error), UNSUPPORTED, TIMEOUT,
  // CANCELLED or INVALID_ARGUMENT: call_client_request in airlock.h; from
  // ask_input also INPUT_REQUIRED (not answered yet; call_input_request).
  airlock_status status = AIRLOCK_STATUS_INTERNAL;
  // OK: the result object; TOOL_ERROR: the error object {code, message};
  // otherwise empty. JSON text.
  std::string text{};
  bool ok() const noexcept { return status == AIRLOCK_STATUS_OK; }
};

// What Call::fetch asks the host for (ABI 1.4, EGRESS in airlock.h). The
// acting tool's egress set decides every destination.
struct FetchRequest {
  std::string method = "GET";
  std::string url{};
  std::vector<std::pair<std::string, std::string>> headers{};
  std::string body{};
  bool follow_redirects = false;   // each hop is checked again by the host
  std::uint32_t timeout_ms = 0;    // 0: the host's default
  std::uint64_t max_response_bytes = 0;  // 0: the host's default
};

// What the host answered Call::fetch. `status` is call_fetch's: OK (any
// HTTP status), DENIED, NETWORK_ERROR, TIMEOUT, CANCELLED, INVALID_ARGUMENT
// or UNSUPPORTED (a host older than ABI 1.4); `error` says why when not OK.
struct FetchResponse {
  airlock_status status = AIRLOCK_STATUS_INTERNAL;
  int http_status = 0;
  std::string final_url{};
  std::string content_type{};
  std::string body{};
  bool truncated = false;
  std::string error{};
  bool ok() const noexcept { return status == AIRLOCK_STATUS_OK; }
};

// A tool as airlock_tool_def has it; every JSON field is JSON text. The host
// copies all of it during registration.
struct ToolDef {
  std::string_view name{};
  std::string_view title{};
  std::string_view description{};
  std::string_view input_schema{};
  std::string_view output_schema{};
  std::string_view annotations{};
  // AIRLOCK_TOOL_* or-ed: REENTRANT (several calls at once), CANCELLABLE
  // (polls Call::is_cancelled), and since ABI 1.5 TASK_OPTIONAL (may finish
  // as a durable task through Call::start_task; execution.taskSupport
  // "optional") or TASK_REQUIRED (only as a task: a 2026-07-28 request
  // without the tasks extension gets -32021; "required"). Passed to the host
  // as they are; an older host ignores bits it does not know.
  std::uint32_t flags = 0;
  // ABI 1.5: the client capabilities the tool cannot work without, e.g.
  // {{"sampling", boost::json::object{}}}; empty means none. A 2026-07-28
  // request that lacks one gets -32021 and the tool does not run; sessions
  // are not checked (an older host ignores it).
  boost::json::object required_client_capabilities{};
};

struct SanitizerDef {
  std::string_view name{};
  std::string_view description{};
};

// The request a result sanitizer, read or get runs for; views borrowed for
// the hook's call. A field the host's airlock_request_context does not cover
// is empty, except client_capabilities, which is then "{}".
struct RequestContext {
  std::string_view protocol_version{};
  std::string_view session_id{};
  std::string_view caller{};
  std::string_view request_id{};
  // ABI 1.5: what the client declared, as a JSON object (at initialize for a
  // session, in the request itself for a 2026-07-28 request).
  std::string_view client_capabilities{"{}"};
};

// Parses `text` as a JSON object ("" counts as {}); throws std::invalid_argument
// naming `what`, never the text.
inline boost::json::object parse_object(std::string_view text, std::string_view what) {
  if (text.empty()) return {};
  // One parser per thread, reused: building a parser (and its stacks) per
  // call costs more than parsing a small argument object.
  thread_local boost::json::parser parser;
  boost::system::error_code ec;
  parser.reset();
  parser.write(text.data(), text.size(), ec);
  if (ec) throw std::invalid_argument(std::string(what) + " is not a JSON object");
  boost::json::value value = parser.release();
  if (!value.is_object()) throw std::invalid_argument(std::string(what) + " is not a JSON object");
  return std::move(value.get_object());
}

// Argument accessors whose errors read well as an isError message.
inline std::string_view string_arg(const boost::json::object& args, std::string_view key) {
  const boost::json::value* v = args.if_contains(key);
  if (v == nullptr || !v->is_string())
    throw std::invalid_argument("argument '" + std::string(key) + "' must be a string");
  return v->get_string();
}

inline std::int64_t int_arg(const boost::json::object& args, std::string_view key) {
  if (const boost::json::value* v = args.if_contains(key)) {
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64() && v->get_uint64() <= std::uint64_t{std::numeric_limits<std::int64_t>::max()})
      return static_cast<std::int64_t>(v->get_uint64());
    // JSON Schema's "integer" also admits 5.0.
    if (v->is_double() && v->get_double() >= -9.0e18 && v->get_double() <= 9.0e18 &&
        static_cast<double>(static_cast<std::int64_t>(v->get_double())) == v->get_double())
      return static_cast<std::int64_t>(v->get_double());
  }
  throw std::invalid_argument("argument '" + std::string(key) + "' must be an integer");
}

// What a barrier caught, for its handler.
struct Caught {
  enum class Kind { cancelled, input_required, task_started, status_error, std_exception, unknown } kind;
  // StatusError's status; INPUT_REQUIRED for InputRequired; TASK_STARTED for
  // TaskStarted; CANCELLED for Cancelled; INTERNAL otherwise.
  airlock_status status;
  const char* what;      // may hold plugin data: handlers decide whether to show it
};

// Runs `body` (returning airlock_status) and turns anything it throws into the
// status that `handler(Caught)` returns. The handler must be noexcept, so
// nothing, C++ or not, leaves a barrier.
template <class Body, class Handler>
airlock_status barrier(Body&& body, Handler&& handler) noexcept {
  static_assert(std::is_nothrow_invocable_r_v<airlock_status, Handler&, Caught>,
                "a barrier handler must be noexcept");
  try {
    return std::forward<Body>(body)();
  } catch (const Cancelled&) {
    return handler(Caught{Caught::Kind::cancelled, AIRLOCK_STATUS_CANCELLED, "cancelled"});
  } catch (const InputRequired&) {
    return handler(Caught{Caught::Kind::input_required, AIRLOCK_STATUS_INPUT_REQUIRED,
                          "a question to the client is not answered yet (InputRequired)"});
  } catch (const TaskStarted&) {
    return handler(Caught{Caught::Kind::task_started, AIRLOCK_STATUS_TASK_STARTED,
                          "the call became a durable task and runs again as the task (TaskStarted)"});
  } catch (const StatusError& e) {
    return handler(Caught{Caught::Kind::status_error, e.status(), e.what()});
  } catch (const std::exception& e) {
    return handler(Caught{Caught::Kind::std_exception, AIRLOCK_STATUS_INTERNAL, e.what()});
  } catch (...) {
    return handler(Caught{Caught::Kind::unknown, AIRLOCK_STATUS_INTERNAL, "unknown error"});
  }
}

}  // namespace airlock::sdk

#endif  // AIRLOCK_SDK_CORE_HPP
