// airlock.hpp — an optional, header-only C++20 layer over airlock.h: Boost.JSON
// in and out, and a barrier at every function the host calls, so that no C++
// exception ever crosses the C ABI. airlock.h stays the contract; this header
// only makes it shorter to honour from C++. Link Boost::json (airlock_add_plugin
// does it for a plugin with C++ sources).
//
//   #include <airlock/airlock.hpp>
//
//   AIRLOCK_PLUGIN(plugin) {
//     plugin.info("example", "1.0.0", "Example tools");
//     plugin.tool({.name = "example.echo",
//                  .input_schema = R"({"type":"object","properties":{"text":{"type":"string"}}})",
//                  .flags = AIRLOCK_TOOL_REENTRANT},
//                 [](const boost::json::object& args, airlock::sdk::Call&) {
//                   return airlock::sdk::Text{std::string(airlock::sdk::string_arg(args, "text"))};
//                 });
//     plugin.text_sanitizer({.name = "example.keep"},
//                           [](std::string_view) -> std::optional<std::string> { return {}; });
//   }
//
// A tool is a callable `R(const boost::json::object& args, Call& call) const`:
//   R = boost::json::object  the structured payload (result_set_structured);
//   R = Text                 one text content block (result_add_text);
//   R = UntrustedText        one block of remote text (result_add_untrusted_text);
//   R = boost::json::value   an object as above, a string as Text, null as nothing;
//   R = void                 the tool reported through `call` itself.
// Thrown from a tool: std::exception -> an isError result with e.what() and
// AIRLOCK_STATUS_TOOL_ERROR; anything else -> "unknown error", TOOL_ERROR;
// Cancelled -> AIRLOCK_STATUS_CANCELLED; StatusError -> its status;
// InputRequired -> AIRLOCK_STATUS_INPUT_REQUIRED (see TWO PROTOCOL ERAS);
// TaskStarted -> AIRLOCK_STATUS_TASK_STARTED (see DURABLE TASKS).
//
// TALKING TO THE CLIENT (ABI 1.2): while it runs, a tool may report progress,
// log to the client and ask the client (sampling, elicitation, roots):
//   [](const boost::json::object&, airlock::sdk::Call& call) {
//     call.progress(0, 100, "starting");
//     call.log(airlock::sdk::LogLevel::info, "asking the model");
//     const boost::json::object question{{"role", "user"}, {"content", {{"type", "text"}, {"text", "Hi"}}}};
//     const boost::json::object answer =
//         call.sample({{"messages", boost::json::array{question}}, {"maxTokens", 100}});
//     call.progress(100, 100);
//     return airlock::sdk::Text{std::string(answer.at("content").at("text").as_string())};
//   }
//
// RESOURCES, PROMPTS AND COMPLETIONS (ABI 1.3): a plugin may also serve
// resources, URI templates and prompts; what they return passes the chain
// bound to them, like a tool result:
//   plugin.resource({.uri = "docs://readme", .name = "readme", .mime_type = "text/plain"},
//                   [](const airlock::sdk::ReadRequest&, airlock::sdk::Contents& out) {
//                     out.add_text("Read me first.");
//                   });
//   plugin.resource_template({.uri_template = "docs://pages/{page}", .name = "page"},
//                            [](const airlock::sdk::ReadRequest& r, airlock::sdk::Contents& out) {
//                              if (r.variables.at("page") != "1") throw airlock::sdk::NotFound();
//                              out.add_text("Page one.");
//                            },
//                            {{"page", [](std::string_view typed, const boost::json::object&) {
//                                return std::vector<std::string>{"1"};
//                              }}});
//   plugin.prompt({.name = "greet", .arguments = {{.name = "who", .required = true}}},
//                 [](const airlock::sdk::PromptRequest& r, airlock::sdk::Messages& out) {
//                   out.text("user", "Say hello to " + std::string(airlock::sdk::string_arg(r.arguments, "who")));
//                 });
// After init, a plugin's own threads keep plugin.host_handle() to tell
// subscribed clients that a resource changed (Host::resource_updated).
//
// TWO PROTOCOL ERAS (ABI 1.5): one tool serves MCP sessions (2025-11-25 and
// before) and stateless 2026-07-28 requests. A question to the client has a
// key. In a session it blocks until the client answers. In a 2026-07-28
// request an unanswered question throws InputRequired: the host asks the
// client and runs the tool again FROM THE START with the answers, so ask the
// same questions under the same keys in the same order each run, and do
// nothing before the last question that must not happen twice:
//   plugin.tool({.name = "example.greet",
//                .required_client_capabilities = {{"elicitation", boost::json::object{}}}},
//               [](const boost::json::object&, airlock::sdk::Call& call) {
//                 const boost::json::object answer = call.elicit(
//                     "who", {{"message", "Who is there?"},
//                             {"requestedSchema", {{"type", "object"},
//                                                  {"properties", {{"name", {{"type", "string"}}}}}}}});
//                 return airlock::sdk::Text{"Hello, " + std::string(answer.at("content").at("name").as_string())};
//               });
// Call::input asks without throwing (nullopt: not answered yet), so that
// several questions reach the client in one round:
//   const std::optional<boost::json::object> roots = call.input("roots", "roots/list");
//   const std::optional<boost::json::object> name = call.input("name", "elicitation/create", question);
//   if (!roots || !name) throw airlock::sdk::InputRequired();
// A prompt (Messages) and a read (Contents) ask the same way. A plugin whose
// tools, prompts or resources changed what they say or do tells clients with
// plugin.host_handle().notify_list_changed(airlock::sdk::List::tools).
//
// DURABLE TASKS (ABI 1.5): a tool flagged AIRLOCK_TOOL_TASK_OPTIONAL (or
// _REQUIRED) may finish as a task: the client gets a task id at once and
// reads the result later, from any server sharing the task store. The tool
// asks with Call::start_task(), after its questions (the answers gathered so
// far travel into the task) and before its long work. The first time, when
// the host can make a task of the request, start_task throws TaskStarted:
// let it through, the host answers the client and runs the tool again FROM
// THE START as the task, where start_task returns true. false means no task
// here (an older host, a client that did not ask for one): go on, the same
// code answers synchronously.
//   plugin.tool({.name = "example.report",
//                .flags = AIRLOCK_TOOL_TASK_OPTIONAL | AIRLOCK_TOOL_CANCELLABLE},
//               [](const boost::json::object&, airlock::sdk::Call& call) {
//                 call.start_task();                // throws TaskStarted the first time
//                 for (int step = 0; step < 100; ++step) {
//                   call.throw_if_cancelled();    // tasks/cancel reaches the tool here
//                   work(step);
//                 }
//                 return airlock::sdk::Text{"done"};
//               });
//
// THREADS: tools run on host worker threads (several at once when the def has
// AIRLOCK_TOOL_REENTRANT) and sanitizers on any number of threads at once, so
// every callable is invoked as const and must be safe to share.
// LIFETIME: the plugin owns every registered callable; they live in one heap
// object that the host hands back to on_destroy, which frees it.
#ifndef AIRLOCK_AIRLOCK_HPP
#define AIRLOCK_AIRLOCK_HPP

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

namespace detail {

// A host table member, or nullptr when the host's struct_size does not cover
// it (nothing past struct_size is read) or the host left it empty.
template <class Fn>
Fn offered(const airlock_host_api& host, Fn airlock_host_api::*member, std::size_t offset) noexcept {
  if (host.struct_size < offset + sizeof(Fn)) return nullptr;
  return host.*member;
}

// A wait as the host takes it: whole milliseconds, 0 (the host's default)
// for none, at most what a uint32_t holds.
inline std::uint32_t timeout_ms(std::chrono::milliseconds timeout) noexcept {
  const auto ms = timeout.count();
  if (ms <= 0) return 0;
  return ms >= 0xffffffffLL ? 0xffffffffu : static_cast<std::uint32_t>(ms);
}

// What asking the client `method` (under `key`; "" for a key-less question)
// came to: the client's answer, or nullopt while a 2026-07-28 request waits
// for it. Every other outcome throws: Cancelled, or a StatusError saying why
// there is no answer: TOOL_ERROR, so a tool shows the model why, or
// INVALID_ARGUMENT for a bad key or params, or an answer of the wrong shape
// (the host then reports it to the client as -32602).
inline std::optional<boost::json::object> answer_of(std::string_view key, std::string_view method,
                                                   const ClientReply& reply) {
  std::string name(method);
  if (!key.empty()) name += " '" + std::string(key) + "'";
  switch (reply.status) {
    case AIRLOCK_STATUS_OK: return parse_object(reply.text, name + " result");
    case AIRLOCK_STATUS_INPUT_REQUIRED: return std::nullopt;
    case AIRLOCK_STATUS_CANCELLED: throw Cancelled{};
    case AIRLOCK_STATUS_UNSUPPORTED:
      throw StatusError(AIRLOCK_STATUS_TOOL_ERROR, name + ": the client does not support it");
    case AIRLOCK_STATUS_TIMEOUT:
      throw StatusError(AIRLOCK_STATUS_TOOL_ERROR, name + ": the client did not answer in time");
    case AIRLOCK_STATUS_TOOL_ERROR: {
      std::string message = name + ": the client answered with an error";
      boost::system::error_code ec;
      const boost::json::value error = boost::json::parse(reply.text, ec);
      if (!ec && error.is_object())
        if (const auto* text = error.get_object().if_contains("message"); text != nullptr && text->is_string())
          message += ": " + std::string(text->get_string());
      throw StatusError(AIRLOCK_STATUS_TOOL_ERROR, message);
    }
    case AIRLOCK_STATUS_INVALID_ARGUMENT:
      throw StatusError(AIRLOCK_STATUS_INVALID_ARGUMENT,
                        name + ": refused as invalid (a bad key or params, or an answer that does not fit the method)");
    default: throw StatusError(reply.status, name + " failed with status " + std::to_string(reply.status));
  }
}

// The keyed questions of ABI 1.5, the same in a tool (Call), a prompt get
// (Messages) and a resource read (Contents). `Self` provides
//   ClientReply ask_input(key, method, params_json, timeout) const   (public)
//   void require_asking(std::string_view method) const               (throws when its host cannot ask)
template <class Self>
class AsksClient {
 public:
  // Asks the client `method` ("elicitation/create", "sampling/createMessage",
  // "roots/list") with `params`, as the question named `key`
  // ([A-Za-z0-9_.-]{1,64}, unique within the run). In a session it blocks
  // until the answer comes and returns it. In a 2026-07-28 request it returns
  // an answer the client already gave, or nullopt: the question is recorded
  // and goes to the client with every other question of this run once the
  // hook returns, so ask the rest, then throw InputRequired. Throws Cancelled,
  // or StatusError when there is no answer to wait for (no capability, the
  // client's error, no answer in time, a malformed answer).
  std::optional<boost::json::object> input(std::string_view key, std::string_view method,
                                           const boost::json::object& params = {},
                                           std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    self().require_asking(method);
    const std::string json = boost::json::serialize(params);
    return answer_of(key, method, self().ask_input(key, method, json, timeout));
  }
  // elicitation/create as the question `key`: the client's ElicitResult
  // ({action, content?}). Throws InputRequired while it is not answered, and
  // otherwise as input.
  boost::json::object elicit(std::string_view key, const boost::json::object& params,
                             std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    return answered(key, "elicitation/create", params, timeout);
  }
  // sampling/createMessage as the question `key`: the client's
  // CreateMessageResult. Throws as elicit.
  boost::json::object sample(std::string_view key, const boost::json::object& params,
                             std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    return answered(key, "sampling/createMessage", params, timeout);
  }
  // roots/list as the question `key`: the client's ListRootsResult
  // ({roots: [...]}). Throws as elicit.
  boost::json::object list_roots(std::string_view key,
                                 std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    return answered(key, "roots/list", boost::json::object{}, timeout);
  }

 private:
  boost::json::object answered(std::string_view key, std::string_view method, const boost::json::object& params,
                               std::chrono::milliseconds timeout) const {
    std::optional<boost::json::object> answer = input(key, method, params, timeout);
    if (!answer) throw InputRequired(std::string(key));
    return std::move(*answer);
  }
  const Self& self() const noexcept { return static_cast<const Self&>(*this); }
};

}  // namespace detail

// One tool invocation. Valid only inside the tool callable and only on its
// thread, except is_cancelled, the ABI 1.2 members (progress, log with a
// LogLevel, ask_client, sample, elicit, list_roots, client_capabilities,
// request_meta, end_stream) and the ABI 1.5 ones (ask_input, input, the keyed
// elicit, sample and list_roots), which are safe from any thread until the
// tool returns. The setters copy and throw StatusError when the host refuses
// (e.g. a second set_structured).
class Call : public detail::AsksClient<Call> {
 public:
  Call(const airlock_host_api& host, airlock_plugin_ctx* ctx, airlock_call* call) noexcept
      : host_(&host), ctx_(ctx), call_(call) {}

  bool is_cancelled() const noexcept { return host_->is_cancelled(call_) != 0; }
  void throw_if_cancelled() const {
    if (is_cancelled()) throw Cancelled{};
  }
  void add_text(std::string_view text) { check(host_->result_add_text(call_, to_str(text)), "result_add_text"); }
  void set_structured(const boost::json::object& payload) {
    const std::string json = boost::json::serialize(payload);
    check(host_->result_set_structured(call_, to_str(json)), "result_set_structured");
  }
  // The whole CallToolResult; replaces anything set before.
  void set_json(const boost::json::object& result) {
    const std::string json = boost::json::serialize(result);
    check(host_->result_set_json(call_, to_str(json)), "result_set_json");
  }
  void set_error(std::string_view message) { check(host_->result_set_error(call_, to_str(message)), "result_set_error"); }

  // ABI 1.1 (UNTRUSTED TEXT in airlock.h). On an older host, whose table ends
  // before the member, these throw std::runtime_error: a tool error, since
  // the tool cannot label its remote text there.
  // Appends a text content block of remote text from `source`.
  void add_untrusted_text(std::string_view source, std::string_view text) {
    const auto fn = since_1_1(&airlock_host_api::result_add_untrusted_text,
                              offsetof(airlock_host_api, result_add_untrusted_text), "result_add_untrusted_text");
    check(fn(call_, to_str(source), to_str(text)), "result_add_untrusted_text");
  }
  // Marks the string at `json_pointer` (RFC 6901, "/peer/name") of the
  // structured payload as remote text from `source`; before or after
  // set_structured. A pointer that names no string fails the call closed.
  void mark_untrusted(std::string_view json_pointer, std::string_view source) {
    const auto fn = since_1_1(&airlock_host_api::result_mark_untrusted,
                              offsetof(airlock_host_api, result_mark_untrusted), "result_mark_untrusted");
    check(fn(call_, to_str(json_pointer), to_str(source)), "result_mark_untrusted");
  }
  // Goes to the operator's log; never put result data here. (To log to the
  // client, pass a LogLevel.)
  void log(airlock_log_level level, std::string_view message) const noexcept {
    host_->log(ctx_, level, to_str(message));
  }

  // ABI 1.2: TALKING TO THE CLIENT DURING A CALL in airlock.h. On a host
  // whose table predates 1.2, progress, log and end_stream do nothing,
  // client_capabilities and request_meta are {}, ask_client answers
  // UNSUPPORTED and sample and elicit throw a tool error saying so: a tool
  // written for 1.2 degrades instead of reading past the host's table.
  // Each of them that sends throws Cancelled once the call is cancelled.

  // notifications/progress, if the client asked for it. `progress` must
  // increase from one report to the next (StatusError otherwise); total <= 0
  // means unknown.
  void progress(double progress, double total = 0, std::string_view message = {}) const {
    const auto fn = offered(&airlock_host_api::call_progress, offsetof(airlock_host_api, call_progress));
    if (fn != nullptr) check_sent(fn(call_, progress, total, to_str(message)), "call_progress");
  }
  // notifications/message to the client, if `level` reaches the level the
  // client set; `logger` may be empty. Text must be UTF-8.
  void log(LogLevel level, std::string_view message, std::string_view logger = {}) const {
    const auto fn = offered(&airlock_host_api::call_log, offsetof(airlock_host_api, call_log));
    if (fn != nullptr)
      check_sent(fn(call_, static_cast<airlock_client_log_level>(level), to_str(logger), to_str(message)), "call_log");
  }
  // Sends the client `method` ("sampling/createMessage", "elicitation/create",
  // "roots/list") with `params_json` (a JSON object; empty is {}) and blocks
  // until it answers, `timeout` passes (0: the host's default) or the call is
  // cancelled. Never throws for the client's answer: look at the status.
  ClientReply ask_client(std::string_view method, std::string_view params_json = {},
                         std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    const auto fn = offered(&airlock_host_api::call_client_request, offsetof(airlock_host_api, call_client_request));
    if (fn == nullptr) return ClientReply{AIRLOCK_STATUS_UNSUPPORTED, {}};
    airlock_str reply{nullptr, 0};
    const airlock_status status =
        fn(call_, to_str(method), to_str(params_json), detail::timeout_ms(timeout), &reply);
    return ClientReply{status, std::string(to_view(reply))};
  }
  // ABI 1.5: ask_client as the question named `key` (call_input_request).
  // In a session the same as ask_client; in a 2026-07-28 request it never
  // blocks, and INPUT_REQUIRED means the question is recorded and its answer
  // comes with the next run. On an older host it is ask_client (no key).
  // Never throws for the client's answer: look at the status.
  ClientReply ask_input(std::string_view key, std::string_view method, std::string_view params_json = {},
                        std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    const auto fn = offered(&airlock_host_api::call_input_request, offsetof(airlock_host_api, call_input_request));
    if (fn == nullptr) return ask_client(method, params_json, timeout);
    airlock_str reply{nullptr, 0};
    const airlock_status status =
        fn(call_, to_str(key), to_str(method), to_str(params_json), detail::timeout_ms(timeout), &reply);
    return ClientReply{status, std::string(to_view(reply))};
  }
  // input, and the keyed elicit, sample and list_roots (ABI 1.5): see
  // detail::AsksClient. The key-less ones below stay.
  using AsksClient::elicit;
  using AsksClient::list_roots;
  using AsksClient::sample;
  // ABI 1.5: asks to finish this call as a durable task (call_start_task in
  // airlock.h; the tool needs AIRLOCK_TOOL_TASK_OPTIONAL or _REQUIRED). Only
  // on the tool's thread. Ask every question before it: the answers given so
  // far go into the task; a question after it parks the task in
  // input_required until the client answers through tasks/update.
  //   true   the call runs as a task now: go on (progress and client logs go
  //          nowhere in a task);
  //   false  no task for this request (a client that did not ask for one,
  //          an untagged tool, a host without a task store, or a host older
  //          than ABI 1.5): go on synchronously;
  //   throws TaskStarted when the host just made the task: the tool returns
  //          at once and runs again from the start as the task; StatusError
  //          for any other status of the host.
  bool start_task() const {
    const auto fn = offered(&airlock_host_api::call_start_task, offsetof(airlock_host_api, call_start_task));
    if (fn == nullptr) return false;
    switch (const airlock_status status = fn(call_)) {
      case AIRLOCK_STATUS_OK: return true;
      case AIRLOCK_STATUS_UNSUPPORTED: return false;
      case AIRLOCK_STATUS_TASK_STARTED: throw TaskStarted{};
      default: throw StatusError(status, "call_start_task failed with status " + std::to_string(status));
    }
  }

  // ABI 1.4: an HTTP(S) request through the host's egress layer, blocking.
  // Never throws for the outcome (a denial is a status): look at the status.
  FetchResponse fetch(const FetchRequest& request) const {
    const auto fn = offered(&airlock_host_api::call_fetch, offsetof(airlock_host_api, call_fetch));
    if (fn == nullptr)
      return FetchResponse{AIRLOCK_STATUS_UNSUPPORTED, 0, {}, {}, {}, false, "this host predates egress (ABI 1.4)"};
    std::vector<airlock_fetch_header> headers;
    headers.reserve(request.headers.size());
    for (const auto& [name, value] : request.headers) headers.push_back(airlock_fetch_header{to_str(name), to_str(value)});
    airlock_fetch_request in{};
    in.struct_size = sizeof in;
    in.flags = request.follow_redirects ? AIRLOCK_FETCH_FOLLOW_REDIRECTS : 0u;
    in.method = to_str(request.method);
    in.url = to_str(request.url);
    in.headers = headers.empty() ? nullptr : headers.data();
    in.header_count = headers.size();
    in.body = to_str(request.body);
    in.timeout_ms = request.timeout_ms;
    in.max_response_bytes = request.max_response_bytes;
    airlock_fetch_response out{};
    out.struct_size = sizeof out;
    FetchResponse response;
    response.status = fn(call_, &in, &out);
    response.http_status = out.http_status;
    response.final_url = std::string(to_view(out.final_url));
    response.content_type = std::string(to_view(out.content_type));
    response.body = std::string(to_view(out.body));
    response.truncated = out.truncated != 0;
    response.error = std::string(to_view(out.error));
    return response;
  }
  // sampling/createMessage: the client's CreateMessageResult. Throws
  // Cancelled, or StatusError(TOOL_ERROR) saying why there is no result (no
  // sampling capability, the client's error, no answer in time): a tool error.
  // In a 2026-07-28 request the host names the question by its position in
  // the run ("input-1", ...) and this throws InputRequired until it is
  // answered; the keyed overload names it.
  boost::json::object sample(const boost::json::object& params,
                             std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    return ask_for_object("sampling/createMessage", params, timeout);
  }
  // elicitation/create: the client's ElicitResult ({action, content?}).
  // Throws as sample.
  boost::json::object elicit(const boost::json::object& params,
                             std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    return ask_for_object("elicitation/create", params, timeout);
  }
  // roots/list: the client's ListRootsResult ({roots: [...]}). Throws as
  // sample.
  boost::json::object list_roots(std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    return ask_for_object("roots/list", boost::json::object{}, timeout);
  }
  // What the client declared at initialize, e.g. {"sampling":{},"roots":{}}.
  boost::json::object client_capabilities() const {
    const auto fn =
        offered(&airlock_host_api::call_client_capabilities, offsetof(airlock_host_api, call_client_capabilities));
    return fn == nullptr ? boost::json::object{} : parse_object(to_view(fn(call_)), "client capabilities");
  }
  // The request's params._meta, e.g. {"progressToken":7}; {} when absent.
  boost::json::object request_meta() const {
    const auto fn = offered(&airlock_host_api::call_request_meta, offsetof(airlock_host_api, call_request_meta));
    return fn == nullptr ? boost::json::object{} : parse_object(to_view(fn(call_)), "request _meta");
  }
  // Asks the transport to end this request's response stream now; the
  // client reconnects and still gets the result (SEP-1699). Not over stdio.
  void end_stream() const noexcept {
    const auto fn = offered(&airlock_host_api::call_end_stream, offsetof(airlock_host_api, call_end_stream));
    if (fn != nullptr) fn(call_);
  }

  airlock_call* raw() const noexcept { return call_; }

 private:
  static void check(airlock_status status, const char* what) {
    if (status != AIRLOCK_STATUS_OK)
      throw StatusError(status, std::string(what) + " failed with status " + std::to_string(status));
  }
  // As check, except that a cancelled call stops the tool.
  static void check_sent(airlock_status status, const char* what) {
    if (status == AIRLOCK_STATUS_CANCELLED) throw Cancelled{};
    check(status, what);
  }
  // A table member, or nullptr when the host's struct_size does not cover it.
  template <class Fn>
  Fn offered(Fn airlock_host_api::*member, std::size_t offset) const noexcept {
    if (host_->struct_size < offset + sizeof(Fn)) return nullptr;
    return host_->*member;
  }
  boost::json::object ask_for_object(std::string_view method, const boost::json::object& params,
                                     std::chrono::milliseconds timeout) const {
    require_asking(method);
    const std::string json = boost::json::serialize(params);
    std::optional<boost::json::object> answer = detail::answer_of({}, method, ask_client(method, json, timeout));
    if (!answer) throw InputRequired();
    return std::move(*answer);
  }
  friend class detail::AsksClient<Call>;
  // A host whose table predates 1.2 cannot ask the client at all.
  void require_asking(std::string_view method) const {
    if (offered(&airlock_host_api::call_client_request, offsetof(airlock_host_api, call_client_request)) == nullptr &&
        offered(&airlock_host_api::call_input_request, offsetof(airlock_host_api, call_input_request)) == nullptr)
      throw StatusError(AIRLOCK_STATUS_TOOL_ERROR,
                        std::string(method) + ": not offered by this host (its function table predates ABI 1.2)");
  }
  // A member added in 1.1, at `offset` of the table: it exists only when the
  // host's struct_size covers it, and nothing past struct_size is read.
  template <class Fn>
  Fn since_1_1(Fn airlock_host_api::*member, std::size_t offset, const char* what) const {
    if (host_->struct_size < offset + sizeof(Fn) || host_->*member == nullptr)
      throw std::runtime_error(std::string(what) + ": not offered by this host (its function table predates ABI 1.1)");
    return host_->*member;
  }
  const airlock_host_api* host_;
  airlock_plugin_ctx* ctx_;
  airlock_call* call_;
};

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

namespace detail {

using ToolFn = std::function<void(const boost::json::object&, Call&)>;
using TextFn = std::function<std::optional<std::string>(std::string_view)>;
using ResultFn = std::function<std::optional<boost::json::object>(
    const RequestContext&, std::string_view, const boost::json::object&, boost::json::object)>;

struct PluginState;
template <class Fn>
struct Entry {
  const PluginState* state;
  std::string name;
  Fn fn;
};

// The plugin's heap object: plugin_data of airlock_plugin_info.
struct PluginState {
  const airlock_host_api* host = nullptr;
  airlock_plugin_ctx* ctx = nullptr;
  bool info_accepted = false;
  airlock_status first_failure = AIRLOCK_STATUS_OK;
  std::vector<std::unique_ptr<Entry<ToolFn>>> tools{};
  std::vector<std::unique_ptr<Entry<TextFn>>> text_sanitizers{};
  std::vector<std::unique_ptr<Entry<ResultFn>>> result_sanitizers{};
  // ABI 1.3 content entries (resources, templates, prompts), of several types.
  std::vector<std::shared_ptr<void>> content{};
};

inline void destroy(void* plugin_data) noexcept { delete static_cast<PluginState*>(plugin_data); }

// Joins `parts` into one log line; on allocation failure logs the first part.
inline void log_noexcept(const PluginState& s, airlock_log_level level,
                         std::initializer_list<std::string_view> parts) noexcept {
  try {
    std::string message;
    for (std::string_view part : parts) message += part;
    s.host->log(s.ctx, level, to_str(message));
  } catch (...) {
    s.host->log(s.ctx, level, to_str(*parts.begin()));
  }
}

inline airlock_status failure(airlock_status s) noexcept {
  return s == AIRLOCK_STATUS_OK || s == AIRLOCK_STATUS_UNCHANGED ? AIRLOCK_STATUS_INTERNAL : s;
}

inline airlock_status on_call(void* tool_data, airlock_call* raw, airlock_str arguments) noexcept {
  const auto* tool = static_cast<const Entry<ToolFn>*>(tool_data);
  const PluginState& s = *tool->state;
  Call call(*s.host, s.ctx, raw);
  return barrier(
      [&] {
        const boost::json::object args = parse_object(to_view(arguments), "arguments");
        tool->fn(args, call);
        return AIRLOCK_STATUS_OK;
      },
      [&](Caught c) noexcept -> airlock_status {
        if (c.kind == Caught::Kind::cancelled) return AIRLOCK_STATUS_CANCELLED;
        // The host drops whatever the tool set and asks the client instead.
        if (c.kind == Caught::Kind::input_required) return AIRLOCK_STATUS_INPUT_REQUIRED;
        // The host answers the client with the task and runs the tool again.
        if (c.kind == Caught::Kind::task_started) return AIRLOCK_STATUS_TASK_STARTED;
        if (c.kind == Caught::Kind::status_error && c.status != AIRLOCK_STATUS_TOOL_ERROR) {
          log_noexcept(s, AIRLOCK_LOG_WARN, {tool->name, ": ", c.what});
          return failure(c.status);
        }
        s.host->result_set_error(raw, to_str(c.what));
        return AIRLOCK_STATUS_TOOL_ERROR;
      });
}

// Sanitizer failures are logged without the exception text: it may quote the
// very input the sanitizer exists to withhold.
inline airlock_status sanitizer_failed(const PluginState& s, const std::string& name) noexcept {
  log_noexcept(s, AIRLOCK_LOG_ERROR, {name, ": sanitizer threw; its message is withheld as it may quote the input"});
  return AIRLOCK_STATUS_INTERNAL;
}

inline airlock_status on_text(void* data, airlock_str text, airlock_text_writer* out) noexcept {
  const auto* e = static_cast<const Entry<TextFn>*>(data);
  return barrier(
      [&] {
        const std::string_view input = to_view(text);
        const std::optional<std::string> output = e->fn(input);
        if (!output || *output == input) return AIRLOCK_STATUS_UNCHANGED;
        return e->state->host->text_write(out, to_str(*output));
      },
      [&](Caught) noexcept { return sanitizer_failed(*e->state, e->name); });
}

inline RequestContext read_context(const airlock_request_context* c) noexcept {
  RequestContext r;
  if (c == nullptr) return r;
  auto covers = [c](std::size_t offset) { return c->struct_size >= offset + sizeof(airlock_str); };
  if (covers(offsetof(airlock_request_context, protocol_version))) r.protocol_version = to_view(c->protocol_version);
  if (covers(offsetof(airlock_request_context, session_id))) r.session_id = to_view(c->session_id);
  if (covers(offsetof(airlock_request_context, caller))) r.caller = to_view(c->caller);
  if (covers(offsetof(airlock_request_context, request_id))) r.request_id = to_view(c->request_id);
  if (covers(offsetof(airlock_request_context, client_capabilities)) && c->client_capabilities.len != 0)
    r.client_capabilities = to_view(c->client_capabilities);
  return r;
}

inline airlock_status on_result(void* data, const airlock_request_context* context, airlock_str tool_name,
                                airlock_str arguments, airlock_str result, airlock_result_writer* out) noexcept {
  const auto* e = static_cast<const Entry<ResultFn>*>(data);
  return barrier(
      [&] {
        std::optional<boost::json::object> replaced =
            e->fn(read_context(context), to_view(tool_name), parse_object(to_view(arguments), "arguments"),
                  parse_object(to_view(result), "result"));
        if (!replaced) return AIRLOCK_STATUS_UNCHANGED;
        const std::string json = boost::json::serialize(*replaced);
        return e->state->host->result_write(out, to_str(json));
      },
      [&](Caught) noexcept { return sanitizer_failed(*e->state, e->name); });
}

inline void deliver(Call& call, Text&& t) { call.add_text(t.text); }
inline void deliver(Call& call, UntrustedText&& t) { call.add_untrusted_text(t.source, t.text); }
inline void deliver(Call& call, boost::json::object&& o) { call.set_structured(o); }
inline void deliver(Call& call, boost::json::value&& v) {
  if (v.is_object()) {
    call.set_structured(v.get_object());
  } else if (v.is_string()) {
    call.add_text(v.get_string());
  } else if (!v.is_null()) {
    throw std::logic_error("the tool returned JSON that is not an object, a string or null");
  }
}

}  // namespace detail

// --- ABI 1.3: resources, prompts and completions -------------------------

// Thrown by a resource read that finds nothing there: the client gets
// -32002 "Resource not found".
class NotFound : public StatusError {
 public:
  explicit NotFound(const std::string& message = "not found") : StatusError(AIRLOCK_STATUS_NOT_FOUND, message) {}
};

// A resource as airlock_resource_def has it; `annotations` is a JSON object
// text or empty. The host copies all of it during registration.
struct ResourceDef {
  std::string_view uri{};
  std::string_view name{};
  std::string_view title{};
  std::string_view description{};
  std::string_view mime_type{};
  std::string_view annotations{};
};

// A resource template ("docs://pages/{page}": RFC 6570 level 1).
struct ResourceTemplateDef {
  std::string_view uri_template{};
  std::string_view name{};
  std::string_view title{};
  std::string_view description{};
  std::string_view mime_type{};
  std::string_view annotations{};
};

struct PromptArgument {
  std::string name;
  std::string description{};
  bool required = false;
  std::string title{};
};

struct PromptDef {
  std::string_view name{};
  std::string_view title{};
  std::string_view description{};
  std::vector<PromptArgument> arguments{};
};

// What a read asks for: the URI, and for a template its variables' values
// ({"page":"1"}, as they appear in the URI).
struct ReadRequest {
  std::string_view uri;
  boost::json::object variables;
  RequestContext context;
};

// Where a read writes its contents. Valid only inside the read, on its
// thread. Empty `mime_type` / `uri`: the resource's own / the URI read. A
// read may ask the client (ABI 1.5; input and the keyed elicit, sample and
// list_roots of detail::AsksClient), on a host of ABI 1.5 or later.
class Contents : public detail::AsksClient<Contents> {
 public:
  Contents(const airlock_host_api& host, airlock_resource_writer* out) noexcept : host_(&host), out_(out) {}
  // Call::ask_input for a read (resource_input_request); UNSUPPORTED from a
  // host older than 1.5. Never throws for the client's answer.
  ClientReply ask_input(std::string_view key, std::string_view method, std::string_view params_json = {},
                        std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    const auto fn = asker();
    if (fn == nullptr) return ClientReply{AIRLOCK_STATUS_UNSUPPORTED, {}};
    airlock_str reply{nullptr, 0};
    const airlock_status status =
        fn(out_, to_str(key), to_str(method), to_str(params_json), detail::timeout_ms(timeout), &reply);
    return ClientReply{status, std::string(to_view(reply))};
  }
  void add_text(std::string_view text, std::string_view mime_type = {}, std::string_view uri = {}) {
    check(host_->resource_add_text(out_, to_str(uri), to_str(mime_type), to_str(text)), "resource_add_text");
  }
  // The host base64-encodes `bytes`.
  void add_blob(std::string_view bytes, std::string_view mime_type = {}, std::string_view uri = {}) {
    check(host_->resource_add_blob(out_, to_str(uri), to_str(mime_type), bytes.data(), bytes.size()),
          "resource_add_blob");
  }

 private:
  friend class detail::AsksClient<Contents>;
  decltype(airlock_host_api::resource_input_request) asker() const noexcept {
    return detail::offered(*host_, &airlock_host_api::resource_input_request,
                           offsetof(airlock_host_api, resource_input_request));
  }
  void require_asking(std::string_view method) const {
    if (asker() == nullptr)
      throw StatusError(AIRLOCK_STATUS_TOOL_ERROR,
                        std::string(method) + ": a resource read can ask the client only on a host of ABI 1.5 or later");
  }
  // A refused write is the plugin's own bug, not a bad request: INTERNAL.
  static void check(airlock_status status, const char* what) {
    if (status != AIRLOCK_STATUS_OK)
      throw StatusError(AIRLOCK_STATUS_INTERNAL, std::string(what) + " failed with status " + std::to_string(status));
  }
  const airlock_host_api* host_;
  airlock_resource_writer* out_;
};

// What a prompts/get asks for; every required argument is there.
struct PromptRequest {
  std::string_view name;
  boost::json::object arguments;
  RequestContext context;
};

// Where a prompt writes its messages, in order. `role` is "user" or
// "assistant". Valid only inside the get, on its thread. A get may ask the
// client (ABI 1.5; input and the keyed elicit, sample and list_roots of
// detail::AsksClient), on a host of ABI 1.5 or later.
class Messages : public detail::AsksClient<Messages> {
 public:
  Messages(const airlock_host_api& host, airlock_prompt_writer* out) noexcept : host_(&host), out_(out) {}
  // Call::ask_input for a get (prompt_input_request); UNSUPPORTED from a
  // host older than 1.5. Never throws for the client's answer.
  ClientReply ask_input(std::string_view key, std::string_view method, std::string_view params_json = {},
                        std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    const auto fn = asker();
    if (fn == nullptr) return ClientReply{AIRLOCK_STATUS_UNSUPPORTED, {}};
    airlock_str reply{nullptr, 0};
    const airlock_status status =
        fn(out_, to_str(key), to_str(method), to_str(params_json), detail::timeout_ms(timeout), &reply);
    return ClientReply{status, std::string(to_view(reply))};
  }
  void description(std::string_view text) {
    check(host_->prompt_set_description(out_, to_str(text)), "prompt_set_description");
  }
  void text(std::string_view role, std::string_view text) {
    check(host_->prompt_add_text(out_, to_str(role), to_str(text)), "prompt_add_text");
  }
  // The host base64-encodes `bytes`.
  void image(std::string_view role, std::string_view mime_type, std::string_view bytes) {
    check(host_->prompt_add_image(out_, to_str(role), to_str(mime_type), bytes.data(), bytes.size()),
          "prompt_add_image");
  }
  // An embedded text resource.
  void resource(std::string_view role, std::string_view uri, std::string_view mime_type, std::string_view text) {
    check(host_->prompt_add_resource(out_, to_str(role), to_str(uri), to_str(mime_type), to_str(text)),
          "prompt_add_resource");
  }
  // Any PromptMessage: {"role", "content": {...}}, bytes in base64.
  void message(const boost::json::object& message) {
    const std::string json = boost::json::serialize(message);
    check(host_->prompt_add_message(out_, to_str(json)), "prompt_add_message");
  }

 private:
  friend class detail::AsksClient<Messages>;
  decltype(airlock_host_api::prompt_input_request) asker() const noexcept {
    return detail::offered(*host_, &airlock_host_api::prompt_input_request,
                           offsetof(airlock_host_api, prompt_input_request));
  }
  void require_asking(std::string_view method) const {
    if (asker() == nullptr)
      throw StatusError(AIRLOCK_STATUS_TOOL_ERROR,
                        std::string(method) + ": a prompt can ask the client only on a host of ABI 1.5 or later");
  }
  static void check(airlock_status status, const char* what) {
    if (status != AIRLOCK_STATUS_OK)
      throw StatusError(AIRLOCK_STATUS_INTERNAL, std::string(what) + " failed with status " + std::to_string(status));
  }
  const airlock_host_api* host_;
  airlock_prompt_writer* out_;
};

// Completes one prompt argument or template variable: what the user typed
// so far, and the values already chosen for the others; returns candidates
// (the client sees the first 100). Must not block for long.
using Completer = std::function<std::vector<std::string>(std::string_view typed, const boost::json::object& chosen)>;
// By argument / variable name.
using Completers = std::map<std::string, Completer, std::less<>>;

// The host, for the plugin's own threads after init: thread-safe, copyable,
// valid until on_destroy begins.
class Host {
 public:
  Host(const airlock_host_api& host, airlock_plugin_ctx* ctx) noexcept : host_(&host), ctx_(ctx) {}
  // Clients that subscribed to exactly `uri` get notifications/resources/updated.
  void resource_updated(std::string_view uri) const noexcept {
    if (covers()) host_->resource_updated(ctx_, to_str(uri));
  }
  // Stops serving this plugin's resource (or template, by its text) / prompt;
  // false when it serves none by that name.
  bool unregister_resource(std::string_view uri) const noexcept {
    return covers() && host_->unregister_resource(ctx_, to_str(uri)) == AIRLOCK_STATUS_OK;
  }
  bool unregister_prompt(std::string_view name) const noexcept {
    return covers() && host_->unregister_prompt(ctx_, to_str(name)) == AIRLOCK_STATUS_OK;
  }
  // ABI 1.5: tells clients that a list changed because what the plugin's
  // entries say or do changed (registering and unregistering tell them
  // already). Returns the host's status; UNSUPPORTED from a host older than
  // 1.5. Sends nothing before init returned OK.
  airlock_status notify_list_changed(List list) const noexcept {
    const auto fn = detail::offered(*host_, &airlock_host_api::notify_list_changed,
                                    offsetof(airlock_host_api, notify_list_changed));
    return fn == nullptr ? AIRLOCK_STATUS_UNSUPPORTED : fn(ctx_, static_cast<std::uint32_t>(list));
  }

 private:
  bool covers() const noexcept {
    return host_->struct_size >= offsetof(airlock_host_api, completion_set_total) + sizeof host_->completion_set_total;
  }
  const airlock_host_api* host_;
  airlock_plugin_ctx* ctx_;
};

namespace detail {

using ReadFn = std::function<void(const ReadRequest&, Contents&)>;
using GetFn = std::function<void(const PromptRequest&, Messages&)>;

template <class Fn>
struct ContentEntry {
  const PluginState* state;
  std::string name;
  Fn fn;
  Completers completers{};
};

// A read, get or completion failure: the statuses that mean something to
// the client pass through; anything else is logged (the client sees host
// text only). A question left open (InputRequired) is INPUT_REQUIRED where
// the hook `may_ask` (a read or a get), and a failure in a completion.
inline airlock_status content_failed(const PluginState& s, const std::string& name, const Caught& c,
                                     bool may_ask = false) noexcept {
  if (c.kind == Caught::Kind::input_required && may_ask) return AIRLOCK_STATUS_INPUT_REQUIRED;
  if (c.kind == Caught::Kind::status_error &&
      (c.status == AIRLOCK_STATUS_NOT_FOUND || c.status == AIRLOCK_STATUS_INVALID_ARGUMENT))
    return c.status;
  log_noexcept(s, AIRLOCK_LOG_WARN, {name, ": ", c.what});
  // Only a tool can become a task: a TaskStarted here was thrown by hand.
  const bool tool_only = c.kind == Caught::Kind::input_required || c.kind == Caught::Kind::task_started;
  return failure(tool_only ? AIRLOCK_STATUS_INTERNAL : c.status);
}

inline airlock_status on_read(void* data, const airlock_request_context* context, airlock_str uri,
                              airlock_str variables, airlock_resource_writer* out) noexcept {
  const auto* e = static_cast<const ContentEntry<ReadFn>*>(data);
  return barrier(
      [&] {
        const ReadRequest request{to_view(uri), parse_object(to_view(variables), "variables"), read_context(context)};
        Contents contents(*e->state->host, out);
        e->fn(request, contents);
        return AIRLOCK_STATUS_OK;
      },
      [&](Caught c) noexcept { return content_failed(*e->state, e->name, c, true); });
}

inline airlock_status on_get(void* data, const airlock_request_context* context, airlock_str name,
                             airlock_str arguments, airlock_prompt_writer* out) noexcept {
  const auto* e = static_cast<const ContentEntry<GetFn>*>(data);
  return barrier(
      [&] {
        const PromptRequest request{to_view(name), parse_object(to_view(arguments), "arguments"),
                                    read_context(context)};
        Messages messages(*e->state->host, out);
        e->fn(request, messages);
        return AIRLOCK_STATUS_OK;
      },
      [&](Caught c) noexcept { return content_failed(*e->state, e->name, c, true); });
}

template <class Fn>
airlock_status on_complete(void* data, const airlock_request_context*, airlock_str argument, airlock_str value,
                           airlock_str arguments, airlock_completion_writer* out) noexcept {
  const auto* e = static_cast<const ContentEntry<Fn>*>(data);
  return barrier(
      [&] {
        auto it = e->completers.find(to_view(argument));
        if (it == e->completers.end()) return AIRLOCK_STATUS_OK;
        for (const std::string& candidate : it->second(to_view(value), parse_object(to_view(arguments), "arguments")))
          if (const airlock_status status = e->state->host->completion_add(out, to_str(candidate));
              status != AIRLOCK_STATUS_OK)
            return status;
        return AIRLOCK_STATUS_OK;
      },
      [&](Caught c) noexcept { return content_failed(*e->state, e->name, c); });
}

// A read callable `R(const ReadRequest&, Contents&) const` with R = void
// (it wrote through Contents) or Text (one text content).
template <class Fn>
ReadFn make_read(Fn fn) {
  static_assert(std::is_invocable_v<const Fn&, const ReadRequest&, Contents&>,
                "a resource read is R(const airlock::sdk::ReadRequest&, airlock::sdk::Contents&) const");
  using R = std::invoke_result_t<const Fn&, const ReadRequest&, Contents&>;
  static_assert(std::is_void_v<R> || std::is_same_v<R, Text>, "a resource read returns void or Text");
  return [fn = std::move(fn)](const ReadRequest& request, Contents& out) {
    if constexpr (std::is_void_v<R>) {
      fn(request, out);
    } else {
      out.add_text(fn(request, out).text);
    }
  };
}

}  // namespace detail

// The registrar handed to the AIRLOCK_PLUGIN body; use it only inside that
// body, on the loading thread. Each registering member returns the host's
// status; the first failure is what airlock_plugin_init returns.
class Plugin {
 public:
  explicit Plugin(detail::PluginState& state) noexcept : s_(&state) {}

  // Names the plugin; must come first (set_plugin_info).
  airlock_status info(std::string_view name, std::string_view version = {}, std::string_view description = {}) {
    airlock_plugin_info info{};
    info.struct_size = sizeof info;
    info.name = to_str(name);
    info.version = to_str(version);
    info.description = to_str(description);
    info.plugin_data = s_;
    info.on_destroy = &detail::destroy;
    const airlock_status status = s_->host->set_plugin_info(s_->ctx, &info);
    if (status == AIRLOCK_STATUS_OK) s_->info_accepted = true;
    return record(status);
  }

  // [plugin."<name>"] of the host's config as JSON; {} when absent. Only
  // after info(). Throws std::invalid_argument if the host sent no object.
  boost::json::object config() const { return parse_object(to_view(s_->host->get_config(s_->ctx)), "config"); }

  template <class Fn>
  airlock_status tool(const ToolDef& def, Fn fn) {
    static_assert(std::is_invocable_v<const Fn&, const boost::json::object&, Call&>,
                  "a tool is R(const boost::json::object& args, airlock::sdk::Call& call) const");
    using R = std::invoke_result_t<const Fn&, const boost::json::object&, Call&>;
    auto entry = std::make_unique<detail::Entry<detail::ToolFn>>();
    entry->state = s_;
    entry->name = std::string(def.name);
    entry->fn = [fn = std::move(fn)](const boost::json::object& args, Call& call) {
      if constexpr (std::is_void_v<R>) {
        fn(args, call);
      } else {
        detail::deliver(call, fn(args, call));
      }
    };
    airlock_tool_def raw{};
    raw.struct_size = sizeof raw;
    raw.name = to_str(def.name);
    raw.title = to_str(def.title);
    raw.description = to_str(def.description);
    raw.input_schema = to_str(def.input_schema);
    raw.output_schema = to_str(def.output_schema);
    raw.annotations = to_str(def.annotations);
    raw.flags = def.flags;
    raw.tool_data = entry.get();
    raw.on_call = &detail::on_call;
    const std::string required =
        def.required_client_capabilities.empty() ? std::string() : boost::json::serialize(def.required_client_capabilities);
    raw.required_client_capabilities = to_str(required);
    s_->tools.push_back(std::move(entry));
    return raw_tool(raw);
  }

  // `fn(std::string_view text) const -> std::optional<std::string>`: nullopt
  // (or the same text) means unchanged. Must not block.
  template <class Fn>
  airlock_status text_sanitizer(const SanitizerDef& def, Fn fn) {
    static_assert(std::is_invocable_r_v<std::optional<std::string>, const Fn&, std::string_view>,
                  "a text sanitizer is std::optional<std::string>(std::string_view) const");
    auto entry = std::make_unique<detail::Entry<detail::TextFn>>();
    entry->state = s_;
    entry->name = std::string(def.name);
    entry->fn = std::move(fn);
    airlock_sanitizer_def raw = sanitizer_def(def, entry.get());
    raw.on_text = &detail::on_text;
    s_->text_sanitizers.push_back(std::move(entry));
    return raw_sanitizer(raw);
  }

  // `fn(const RequestContext&, std::string_view tool, const boost::json::object& args,
  //     boost::json::object result) const -> std::optional<boost::json::object>`:
  // nullopt means unchanged; else the complete replacement CallToolResult.
  template <class Fn>
  airlock_status result_sanitizer(const SanitizerDef& def, Fn fn) {
    static_assert(std::is_invocable_r_v<std::optional<boost::json::object>, const Fn&, const RequestContext&,
                                        std::string_view, const boost::json::object&, boost::json::object>,
                  "a result sanitizer is std::optional<boost::json::object>(const RequestContext&, "
                  "std::string_view, const boost::json::object&, boost::json::object) const");
    auto entry = std::make_unique<detail::Entry<detail::ResultFn>>();
    entry->state = s_;
    entry->name = std::string(def.name);
    entry->fn = std::move(fn);
    airlock_sanitizer_def raw = sanitizer_def(def, entry.get());
    raw.on_result = &detail::on_result;
    s_->result_sanitizers.push_back(std::move(entry));
    return raw_sanitizer(raw);
  }

  // The C registrations, for hooks written against airlock.h directly. The
  // caller owns what tool_data / sanitizer_data point to.
  airlock_status raw_tool(const airlock_tool_def& def) { return record(s_->host->register_tool(s_->ctx, &def)); }
  airlock_status raw_sanitizer(const airlock_sanitizer_def& def) {
    return record(s_->host->register_sanitizer(s_->ctx, &def));
  }

  void log(airlock_log_level level, std::string_view message) const noexcept {
    s_->host->log(s_->ctx, level, to_str(message));
  }
  // The reason the host prints when init fails; a thrown exception sets it too.
  void set_init_error(std::string_view message) const noexcept { s_->host->set_init_error(s_->ctx, to_str(message)); }

  // ABI 1.3. `fn(const ReadRequest&, Contents&) const`, returning void or
  // Text: serves `def.uri`. Throw NotFound for "nothing there".
  template <class Fn>
  airlock_status resource(const ResourceDef& def, Fn fn) {
    if (!offers_content()) return content_unsupported();
    auto entry = std::make_shared<detail::ContentEntry<detail::ReadFn>>(
        detail::ContentEntry<detail::ReadFn>{s_, std::string(def.uri), detail::make_read(std::move(fn))});
    airlock_resource_def raw{};
    raw.struct_size = sizeof raw;
    raw.uri = to_str(def.uri);
    raw.name = to_str(def.name);
    raw.title = to_str(def.title);
    raw.description = to_str(def.description);
    raw.mime_type = to_str(def.mime_type);
    raw.annotations = to_str(def.annotations);
    raw.resource_data = entry.get();
    raw.on_read = &detail::on_read;
    s_->content.push_back(entry);
    return record(s_->host->register_resource(s_->ctx, &raw));
  }

  // Serves every URI `def.uri_template` matches; `completers` complete its
  // variables, by name.
  template <class Fn>
  airlock_status resource_template(const ResourceTemplateDef& def, Fn fn, Completers completers = {}) {
    if (!offers_content()) return content_unsupported();
    auto entry = std::make_shared<detail::ContentEntry<detail::ReadFn>>(detail::ContentEntry<detail::ReadFn>{
        s_, std::string(def.uri_template), detail::make_read(std::move(fn)), std::move(completers)});
    airlock_resource_template_def raw{};
    raw.struct_size = sizeof raw;
    raw.uri_template = to_str(def.uri_template);
    raw.name = to_str(def.name);
    raw.title = to_str(def.title);
    raw.description = to_str(def.description);
    raw.mime_type = to_str(def.mime_type);
    raw.annotations = to_str(def.annotations);
    raw.template_data = entry.get();
    raw.on_read = &detail::on_read;
    raw.on_complete = entry->completers.empty() ? nullptr : &detail::on_complete<detail::ReadFn>;
    s_->content.push_back(entry);
    return record(s_->host->register_resource_template(s_->ctx, &raw));
  }

  // `fn(const PromptRequest&, Messages&) const`; `completers` complete its
  // arguments, by name. Throw StatusError(AIRLOCK_STATUS_INVALID_ARGUMENT,
  // ...) for an argument value it cannot use.
  template <class Fn>
  airlock_status prompt(const PromptDef& def, Fn fn, Completers completers = {}) {
    static_assert(std::is_invocable_v<const Fn&, const PromptRequest&, Messages&>,
                  "a prompt is void(const airlock::sdk::PromptRequest&, airlock::sdk::Messages&) const");
    if (!offers_content()) return content_unsupported();
    auto entry = std::make_shared<detail::ContentEntry<detail::GetFn>>(detail::ContentEntry<detail::GetFn>{
        s_, std::string(def.name), detail::GetFn(std::move(fn)), std::move(completers)});
    boost::json::array arguments;
    for (const PromptArgument& a : def.arguments) {
      boost::json::object argument{{"name", a.name}};
      if (!a.title.empty()) argument["title"] = a.title;
      if (!a.description.empty()) argument["description"] = a.description;
      argument["required"] = a.required;
      arguments.push_back(std::move(argument));
    }
    const std::string arguments_json = def.arguments.empty() ? std::string() : boost::json::serialize(arguments);
    airlock_prompt_def raw{};
    raw.struct_size = sizeof raw;
    raw.name = to_str(def.name);
    raw.title = to_str(def.title);
    raw.description = to_str(def.description);
    raw.arguments = to_str(arguments_json);
    raw.prompt_data = entry.get();
    raw.on_get = &detail::on_get;
    raw.on_complete = entry->completers.empty() ? nullptr : &detail::on_complete<detail::GetFn>;
    s_->content.push_back(entry);
    return record(s_->host->register_prompt(s_->ctx, &raw));
  }

  // For the plugin's tools and its own threads, after init (ABI 1.3).
  Host host_handle() const noexcept { return Host(*s_->host, s_->ctx); }

  // Host::notify_list_changed (ABI 1.5). The host sends nothing before init
  // returned OK, so tools and the plugin's threads call it on host_handle().
  airlock_status notify_list_changed(List list) const noexcept { return host_handle().notify_list_changed(list); }

  const airlock_host_api& host() const noexcept { return *s_->host; }
  airlock_plugin_ctx* ctx() const noexcept { return s_->ctx; }

 private:
  airlock_status record(airlock_status status) noexcept {
    if (status != AIRLOCK_STATUS_OK && s_->first_failure == AIRLOCK_STATUS_OK) s_->first_failure = status;
    return status;
  }
  bool offers_content() const noexcept {
    return s_->host->struct_size >=
           offsetof(airlock_host_api, completion_set_total) + sizeof s_->host->completion_set_total;
  }
  airlock_status content_unsupported() noexcept {
    set_init_error("resources and prompts need a host of ABI 1.3 or later");
    return record(AIRLOCK_STATUS_UNSUPPORTED);
  }
  static airlock_sanitizer_def sanitizer_def(const SanitizerDef& def, void* data) noexcept {
    airlock_sanitizer_def raw{};
    raw.struct_size = sizeof raw;
    raw.name = to_str(def.name);
    raw.description = to_str(def.description);
    raw.sanitizer_data = data;
    return raw;
  }
  detail::PluginState* s_;
};

namespace detail {

// The body of airlock_plugin_init: allocates the plugin's state, runs the
// plugin's registrations in a barrier, and frees the state itself only when
// the host never took it (set_plugin_info did not succeed).
inline airlock_status run_init(const airlock_host_api* host, airlock_plugin_ctx* ctx,
                               void (*body)(Plugin&)) noexcept {
  if (host == nullptr || ctx == nullptr) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  // A 1.x host's table always covers every 1.0 member; refuse anything less.
  if (host->struct_size < offsetof(airlock_host_api, result_write) + sizeof host->result_write)
    return AIRLOCK_STATUS_UNSUPPORTED;
  auto* state = new (std::nothrow) PluginState{host, ctx};
  if (state == nullptr) return AIRLOCK_STATUS_INTERNAL;
  Plugin plugin(*state);
  airlock_status status = barrier(
      [&] {
        body(plugin);
        return state->first_failure;
      },
      [&](Caught c) noexcept {
        host->set_init_error(ctx, to_str(c.what));
        return failure(c.kind == Caught::Kind::status_error ? c.status : AIRLOCK_STATUS_INTERNAL);
      });
  if (status == AIRLOCK_STATUS_OK && !state->info_accepted) {
    host->set_init_error(ctx, to_str("the plugin never named itself (call plugin.info first)"));
    status = AIRLOCK_STATUS_INVALID_ARGUMENT;
  }
  if (!state->info_accepted) delete state;
  return status;
}

}  // namespace detail
}  // namespace airlock::sdk

// Defines both entry points. The braces that follow are the body of a
// function taking `airlock::sdk::Plugin& name`, run once on the loading thread.
// The two definitions keep airlock.h's declarations (no noexcept, which would
// change their C++ type); they only call the noexcept run_init.
#define AIRLOCK_PLUGIN(name)                                                              \
  static void airlock_sdk_plugin_body(::airlock::sdk::Plugin& name);                      \
  extern "C" AIRLOCK_PLUGIN_EXPORT uint32_t airlock_plugin_abi_version(void) {            \
    return AIRLOCK_ABI_VERSION;                                                           \
  }                                                                                       \
  extern "C" AIRLOCK_PLUGIN_EXPORT airlock_status airlock_plugin_init(                    \
      const airlock_host_api* host, airlock_plugin_ctx* ctx) {                            \
    return ::airlock::sdk::detail::run_init(host, ctx, &airlock_sdk_plugin_body);         \
  }                                                                                       \
  static void airlock_sdk_plugin_body(::airlock::sdk::Plugin& name)

#endif  // AIRLOCK_AIRLOCK_HPP
