// airlock/sdk/call.hpp: one tool invocation (Call), and the questions to the
// client that Call, Contents and Messages share (detail::AsksClient).
// Part of the C++ layer over airlock.h; plugins include <airlock/airlock.hpp>.
#ifndef AIRLOCK_SDK_CALL_HPP
#define AIRLOCK_SDK_CALL_HPP

#include <airlock/sdk/core.hpp>

namespace airlock::sdk {

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

}  // namespace airlock::sdk

#endif  // AIRLOCK_SDK_CALL_HPP
