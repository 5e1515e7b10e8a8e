// The MCP method table of one session and the life of a tool call in it:
// admitted on the transport thread, run on a worker, answered once, or not
// at all when the client cancelled it. While it runs, the call talks to the
// client through a CallLink: progress and logs go out related to the call,
// and a request to the client parks the worker until the transport hands
// the client's response to handle().
#include "mcp/session.hpp"

#include "calls/call_audit.hpp"
#include "calls/tool_call_runner.hpp"
#include "executor/inline_calls.hpp"
#include "mcp/input_round.hpp"
#include "mcp/modern_request.hpp"
#include "mcp/protocol.hpp"
#include "mcp/session_call_link.hpp"
#include "mcp/task_service.hpp"
#include "packs/sodium_init.hpp"
#include "plugins/host_api.hpp"
#include "util/json_text.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <chrono>
#include <cmath>

namespace airlock::host {
namespace {

const boost::json::object* params_object(const jsonrpc::Message& m) { return m.params.if_object(); }

// tools/list cursors are opaque to clients; ours is the offset of the next
// page, so a cursor stays valid for as long as the tool set does (the whole
// process: tools are loaded once).
std::string make_cursor(std::size_t offset) { return fmt::format("o{}", offset); }

std::optional<std::size_t> read_cursor(std::string_view cursor, std::size_t size) {
  if (cursor.size() < 2 || cursor.front() != 'o') return std::nullopt;
  std::size_t offset = 0;
  auto [end, ec] = std::from_chars(cursor.data() + 1, cursor.data() + cursor.size(), offset);
  if (ec != std::errc() || end != cursor.data() + cursor.size() || offset > size) return std::nullopt;
  return offset;
}

// How long a worker waits on the client between looks at its call's
// cancelled flag. Every path that sets the flag also wakes the waiters; this
// only bounds the damage of one that forgets.
constexpr std::chrono::milliseconds kCancelledPoll{250};

}  // namespace

std::vector<boost::json::object> build_tool_listing(const ToolRoutes& routes) {
  std::vector<boost::json::object> listing;
  for (const ToolRoute* route : routes.sorted()) {
    const Tool& t = *route->tool;
    boost::json::object entry{{"name", t.name}};
    if (!t.title.empty()) entry["title"] = t.title;
    if (!t.description.empty()) entry["description"] = t.description;
    entry["inputSchema"] = t.input_schema;
    if (t.output_schema) entry["outputSchema"] = *t.output_schema;
    if (t.annotations) entry["annotations"] = *t.annotations;
    if (t.task_capable())
      entry["execution"] = boost::json::object{{"taskSupport", t.task_required() ? "required" : "optional"}};
    listing.push_back(std::move(entry));
  }
  return listing;
}

// No random owner to make and throw away: a getrandom call per stateless
// request was 4% of its CPU.
Session::Session(const ServerState& server, Send send, std::string session_id, std::string caller)
    : server_(server),
      server_info_{{"name", server.config.server.name}, {"version", server.version}},
      send_(std::move(send)),
      session_id_(std::move(session_id)),
      caller_(std::move(caller)),
      task_owner_(!caller_.empty()        ? "identity:" + caller_
                  : !session_id_.empty() ? "session:" + session_id_
                                         : std::string("anonymous")),
      log_threshold_(AIRLOCK_CLIENT_LOG_INFO),
      catalog_(server.routes.content().catalog()) {}

Session::Session(const ServerState& server, Send send) : Session(server, std::move(send), {}, {}) {
  ensure_sodium();
  unsigned char bytes[16];
  randombytes_buf(bytes, sizeof bytes);
  char hex[sizeof bytes * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, bytes, sizeof bytes);
  task_owner_ = std::string("session:") + hex;
}

Session::~Session() { close(); }

void Session::reply(const boost::json::value& id, std::string_view result_json) {
  const std::string key = to_json(id);
  send_(jsonrpc::result(id, result_json), Outbound{key, true});
}

void Session::reply_error(const boost::json::value& id, int code, std::string_view message) {
  const std::string key = id.is_null() ? std::string() : to_json(id);
  send_(jsonrpc::error(id, code, message), Outbound{key, true});
}

void Session::reply_error(const boost::json::value& id, int code, std::string_view message,
                          const boost::json::value& data) {
  const std::string key = id.is_null() ? std::string() : to_json(id);
  send_(jsonrpc::error(id, code, message, data), Outbound{key, true});
}

void Session::handle(std::string_view text) {
  auto parsed = jsonrpc::parse(text);
  if (auto* failure = std::get_if<jsonrpc::Failure>(&parsed)) {
    reply_error(failure->id, failure->code, failure->message);
    return;
  }
  dispatch(std::get<jsonrpc::Message>(parsed));
}

void Session::handle(jsonrpc::Message& message) { dispatch(message); }

void Session::set_end_stream(EndStream end_stream) { end_stream_ = std::move(end_stream); }

void Session::set_transport(std::string_view transport, std::string peer_address) {
  transport_ = transport == "http" ? std::string_view("http") : std::string_view("stdio");
  peer_address_ = std::move(peer_address);
}

void Session::set_tool_scope(ToolScope allowed) { tool_scope_ = std::move(allowed); }

void Session::set_content_scope(ToolScope resources, ToolScope prompts) {
  resource_scope_ = std::move(resources);
  prompt_scope_ = std::move(prompts);
}

void Session::reject_oversized(std::size_t limit) {
  reply_error(nullptr, jsonrpc::kInvalidRequest,
              fmt::format("invalid request: message exceeds the {}-byte limit (server.max_message_bytes)", limit));
}

void Session::dispatch(jsonrpc::Message& m) {
  using Kind = jsonrpc::Message::Kind;
  if (m.kind == Kind::response) return on_response(m);
  if (m.kind == Kind::notification) {
    if (m.method == "notifications/cancelled") on_cancelled(m);
    // notifications/initialized and unknown notifications need no answer.
    return;
  }
  // Before initialize the process (stdio) has no session: a 2026-07-28
  // request is served on its own.
  if (message_era(m, initialized_) == Era::modern) {
    auto admitted = admit_modern(server_, m, nullptr, tool_scope_, caller_);
    if (auto* rejected = std::get_if<Rejection>(&admitted))
      return reply_error(m.id, rejected->code, rejected->message, rejected->data);
    return handle_modern(m, std::move(std::get<RequestScope>(admitted)));
  }
  static const Scope kSession;
  dispatch_request(m, Era::session, kSession);
}

void Session::dispatch_request(jsonrpc::Message& m, Era era, const Scope& scope) {
  const Method* method = find_method(m.method);
  if (era == Era::session && !initialized_ && !(method && method->before_initialize))
    return reply_error(m.id, jsonrpc::kInvalidRequest,
                       fmt::format("server not initialized: send initialize before {} (or, for protocol 2026-07-28, "
                                   "params._meta with its protocolVersion and clientCapabilities)",
                                   m.method));
  // admit_modern lets only the 2026-07-28 methods this server serves through.
  if (!method || !method->in(era))
    return reply_error(m.id, jsonrpc::kMethodNotFound, fmt::format("method not found: {}", m.method));
  if (!serves(server_, *method))
    return reply_error(m.id, jsonrpc::kMethodNotFound,
                       fmt::format("method not found: {} ({})", m.method, unserved_reason(method->needs)));
  (this->*method->handler)(m, scope);
}

void Session::on_ping(jsonrpc::Message& m, const Scope&) { reply(m.id, "{}"); }

void Session::on_initialize(jsonrpc::Message& m, const Scope&) {
  if (initialized_) return reply_error(m.id, jsonrpc::kInvalidRequest, "invalid request: already initialized");
  const auto* params = params_object(m);
  const auto* requested = params ? params->if_contains("protocolVersion") : nullptr;
  if (!requested || !requested->is_string())
    return reply_error(m.id, jsonrpc::kInvalidParams, "initialize: params.protocolVersion must be a string");
  protocol_version_ = negotiate_protocol_version(requested->get_string());
  // Copied out of the message's arena: calls read it for the whole session.
  if (const auto* capabilities = params->if_contains("capabilities"); capabilities && capabilities->is_object()) {
    client_capabilities_ = boost::json::object(capabilities->get_object(), boost::json::storage_ptr());
    client_capabilities_json_ = boost::json::serialize(client_capabilities_);
  }
  initialized_ = true;

  boost::json::object result{
      {"protocolVersion", protocol_version_},
      {"capabilities", server_capabilities(server_, false)},
      {"serverInfo", server_info_}};
  reply(m.id, boost::json::serialize(result));
  // After the answer, so that no notification can come before it.
  if (catalog_ && !catalog_listening_.exchange(true)) catalog_->add_listener(this);
}

void Session::on_set_level(jsonrpc::Message& m, const Scope&) {
  const auto* params = params_object(m);
  const auto* level = params ? params->if_contains("level") : nullptr;
  if (!level) return reply_error(m.id, jsonrpc::kInvalidParams, "logging/setLevel: params.level is missing");
  const auto threshold = level->is_string() ? log_level_from_name(level->get_string()) : std::nullopt;
  if (!threshold)
    return reply_error(m.id, jsonrpc::kInvalidParams,
                       fmt::format("logging/setLevel: invalid level {}: expected one of debug, info, notice, "
                                   "warning, error, critical, alert, emergency",
                                   boost::json::serialize(*level)));
  log_threshold_ = *threshold;
  reply(m.id, "{}");
}

void Session::on_tools_list(jsonrpc::Message& m, const Scope& scope) {
  const auto& listing = server_.tool_listing;
  // Pages run over the tools in scope, so a cursor's offset counts only those.
  std::vector<const boost::json::object*> scoped;
  if (tool_scope_)
    for (const auto& entry : listing)
      if (tool_scope_(entry.at("name").get_string())) scoped.push_back(&entry);
  const std::size_t size = tool_scope_ ? scoped.size() : listing.size();
  auto entry = [&](std::size_t i) -> const boost::json::object& { return tool_scope_ ? *scoped[i] : listing[i]; };

  std::size_t offset = 0;
  if (const auto* params = params_object(m)) {
    if (const auto* cursor = params->if_contains("cursor"); cursor && !cursor->is_null()) {
      std::optional<std::size_t> at;
      if (cursor->is_string()) at = read_cursor(cursor->get_string(), size);
      if (!at) return reply_error(m.id, jsonrpc::kInvalidParams, "tools/list: invalid cursor");
      offset = *at;
    }
  }
  const std::size_t end = std::min<std::size_t>(size, offset + server_.config.server.page_size);
  boost::json::array tools;
  for (std::size_t i = offset; i < end; ++i) tools.push_back(entry(i));
  boost::json::object result{{"tools", std::move(tools)}};
  if (end < size) result["nextCursor"] = make_cursor(end);
  reply_result(m.id, std::move(result), scope, Cache::list);
}

void Session::on_tools_call(jsonrpc::Message& m, const Scope& scope) {
  const auto* params = params_object(m);
  const auto* name = params ? params->if_contains("name") : nullptr;
  if (!name || !name->is_string())
    return reply_error(m.id, jsonrpc::kInvalidParams, "tools/call: params.name must be a string");
  const ToolRoute* route = in_scope(name->get_string()) ? server_.routes.find(name->get_string()) : nullptr;
  if (!route)
    return reply_error(m.id, jsonrpc::kInvalidParams, fmt::format("tools/call: unknown tool: {}", name->get_string()));

  auto call = std::make_shared<InFlight>();
  call->id = m.id;
  call->scope = scope;
  call->route = route;
  if (scope) {
    call->state_method = "tools/call";
    if (!open_round(m, call)) return;
  }

  if (auto* args = m.params.get_object().if_contains("arguments"); args && !args->is_null()) {
    if (!args->is_object())
      return reply_error(m.id, jsonrpc::kInvalidParams, "tools/call: params.arguments must be an object");
    call->arguments_value.emplace(std::move(*args));
  } else {
    // A call with no arguments reaches the tool as {} (never null).
    call->arguments_value.emplace(boost::json::object{});
  }
  if (auto* meta = m.params.get_object().if_contains("_meta"); meta && meta->is_object()) {
    // A token of another type is not one the client can match: no progress.
    if (const auto* token = meta->get_object().if_contains("progressToken");
        token && (token->is_string() || token->is_int64() || token->is_uint64()))
      call->progress_token.emplace(*token, boost::json::storage_ptr());
    call->meta_value.emplace(std::move(*meta));
  }

  const std::string& key = call->key = to_json(m.id);
  // 2025-11-25: a client that asks for a task gets one from the start.
  if (!scope)
    if (const auto* task = m.params.get_object().if_contains("task");
        task && task->is_object() && server_.tasks && route->tool->task_capable())
      return start_session_task(m, *route, call);
  {
    std::lock_guard lock(calls_mutex_);
    if (closed_) return;
    if (!calls_.emplace(key, call).second)
      return reply_error(m.id, jsonrpc::kInvalidRequest,
                         fmt::format("invalid request: id {} is already in use by a call in flight", key));
  }
  // Scheduled before the job is queued, so the worker's finish() always has
  // a deadline to cancel.
  if (route->timeout_ms && server_.timer)
    call->deadline = server_.timer->schedule(
        DeadlineTimer::Clock::now() + std::chrono::milliseconds(*route->timeout_ms),
        [this, route, call] { on_deadline(*route, call); });
  const auto run = [this, route, call] { run_call(*route, call); };
  // A tool whose calls are cheap runs on the thread that read it, when its
  // transport offers that (and times it); anything else goes to a worker.
  if (route->cost.quick() && InlineCalls::offer(run, route->cost)) return;
  std::function<void()> job = InlineCalls::timed(run, &route->cost);
  if (!server_.executor.try_submit(job, m.bytes)) {
    // finish() cancels the deadline, or waits for it if it is firing now; a
    // short timeout_ms may already have answered, and a call is answered once.
    if (call->deadline && server_.timer) server_.timer->cancel(call->deadline);
    if (!call->answered.exchange(true))
      reply_error(m.id, jsonrpc::kServerBusy, "server busy: too many tool calls queued; retry later");
    finish(call);
  }
}

void Session::run_call(const ToolRoute& route, const std::shared_ptr<InFlight>& call) {
  // A call cancelled while it waited in the queue never starts.
  if (call->cancelled.load()) return finish(call);
  // The text is made now, not when the call was read: a queued call holds
  // its arguments once.
  call->arguments = arguments_text(*call);

  RequestContext context = request_context(*call);
  context.arguments = &*call->arguments_value;

  // Arguments that fail the inputSchema never reach the tool; the client
  // gets host text naming the schema location and keyword, through the chain.
  if (auto invalid = route.tool->input_validator->validate(*call->arguments_value)) {
    if (!call->answered.exchange(true))
      send_(ToolCallRunner::respond_invalid_arguments(route, invalid->describe(), context, call->arguments, call->id),
            Outbound{call->key, true});
    return finish(call);
  }

  CallLink link(*this, *call);
  ToolCallOutcome outcome = server_.runner.run(route, call->arguments, call->cancelled, &link, &context);
  // The client asked not to hear about a cancelled call; whatever the tool
  // produced is dropped before any stage sees it.
  if (call->cancelled.load()) return finish(call);

  if (call->answered.exchange(true)) return finish(call);  // the deadline answered first

  // The call became a durable task: the client gets the task, and the
  // task's own run (TaskService) produces the result.
  if (call->task || !call->task_error.empty()) {
    send_(call->task ? jsonrpc::result(call->id, task_created(*call))
                     : jsonrpc::error(call->id, jsonrpc::kInternalError, call->task_error),
          Outbound{call->key, true});
    return finish(call);
  }

  // 2026-07-28: a tool that asked a question still open answers nothing of
  // its own; what it produced is dropped unseen, and it runs again, from
  // the start, when the client retries with the answer.
  if (auto asked = round_outcome(*call)) {
    send_(std::move(*asked), Outbound{call->key, true});
    return finish(call);
  }

  send_(ToolCallRunner::respond(route, std::move(outcome), context, call->arguments, call->id),
        Outbound{call->key, true});
  finish(call);
}

// On the timer thread. The tool is told to stop (it sees the flag if it is
// cancellable); the client gets a tool error now, not whenever the tool
// returns. Host text, so it is the same for every call and leaks nothing,
// and it still passes the chain like every result.
void Session::on_deadline(const ToolRoute& route, const std::shared_ptr<InFlight>& call) {
  if (call->cancelled.load() || call->answered.exchange(true)) return;
  call->cancelled = true;
  wake_client_waiters();
  spdlog::warn("tool '{}': no result after {} ms; answering with a timeout error", route.tool->name,
               *route.timeout_ms);
  ToolCallOutcome outcome{AIRLOCK_STATUS_TOOL_ERROR, {}};
  outcome.output.error_message = fmt::format("tool timed out after {} ms", *route.timeout_ms);
  send_(ToolCallRunner::respond(route, std::move(outcome), request_context(*call), arguments_text(*call), call->id,
                               CallEnd::timed_out),
        Outbound{call->key, true});
}

std::string Session::arguments_text(const InFlight& call) {
  return call.arguments_value ? to_json(*call.arguments_value) : std::string("{}");
}

void Session::finish(const std::shared_ptr<InFlight>& call) {
  if (call->deadline && server_.timer) server_.timer->cancel(call->deadline);
  // Cancelled before any answer: the client asked not to get one, but a
  // transport that holds a stream open for the call must learn it is over.
  if (!call->answered.exchange(true)) {
    if (call->route)
      audit_tool_call(*call->route, request_context(*call), arguments_text(*call), CallEnd::cancelled, nullptr, {}, {},
                      0);
    send_(std::string(), Outbound{call->key, true});
  }
  std::lock_guard lock(calls_mutex_);
  calls_.erase(call->key);
  if (calls_.empty()) calls_done_.notify_all();
}

bool Session::calls_in_flight() {
  std::lock_guard lock(calls_mutex_);
  return !calls_.empty();
}

void Session::on_cancelled(const jsonrpc::Message& m) {
  const auto* params = params_object(m);
  const auto* id = params ? params->if_contains("requestId") : nullptr;
  if (!id) return;
  if (cancel_listen(boost::json::serialize(*id))) return;
  {
    std::lock_guard lock(calls_mutex_);
    auto it = calls_.find(boost::json::serialize(*id));
    if (it == calls_.end()) return;
    it->second->cancelled = true;
  }
  wake_client_waiters();
}

bool Session::close(std::chrono::milliseconds grace, std::optional<std::chrono::milliseconds> abandon) {
  if (catalog_) catalog_->remove_listener(this);
  end_listens();
  {
    std::lock_guard lock(client_requests_mutex_);
    client_gone_ = true;
  }
  client_answered_.notify_all();
  std::unique_lock lock(calls_mutex_);
  closed_ = true;
  if (calls_done_.wait_for(lock, grace, [this] { return calls_.empty(); })) return true;
  for (auto& [key, call] : calls_) call->cancelled = true;
  if (abandon) return calls_done_.wait_for(lock, *abandon, [this] { return calls_.empty(); });
  calls_done_.wait(lock, [this] { return calls_.empty(); });
  return true;
}

// --- requests to the client

void Session::wake_client_waiters() {
  // Taking the mutex orders this wake after a waiter's last look at its
  // flag: it is either still looking (and sees the flag) or already waiting.
  { std::lock_guard lock(client_requests_mutex_); }
  client_answered_.notify_all();
}

CallChannel::Reply Session::request_client(const InFlight& call, std::string_view method, std::string_view params_json,
                                           std::chrono::milliseconds timeout) {
  const auto capability = capability_for_client_request(method);
  if (!capability) return {AIRLOCK_STATUS_UNSUPPORTED, {}};
  if (const auto* declared = client_capabilities_.if_contains(*capability); !declared || declared->is_null())
    return {AIRLOCK_STATUS_UNSUPPORTED, {}};

  auto pending = std::make_shared<ClientRequest>();
  std::string id;  // JSON text: a string no client id means, "airlock-<n>"
  {
    std::lock_guard lock(client_requests_mutex_);
    if (client_gone_ || call.cancelled.load()) return {AIRLOCK_STATUS_CANCELLED, {}};
    id = fmt::format("\"airlock-{}\"", next_client_request_++);
    client_requests_.emplace(id, pending);
  }
  send_(fmt::format(R"({{"jsonrpc":"2.0","id":{},"method":"{}","params":{}}})", id, method, params_json),
        Outbound{call.key, false});

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  CallChannel::Reply reply;
  bool gone = false;
  {
    std::unique_lock lock(client_requests_mutex_);
    for (;;) {
      if (pending->answered) {
        reply = {pending->is_error ? AIRLOCK_STATUS_TOOL_ERROR : AIRLOCK_STATUS_OK, std::move(pending->outcome)};
        break;
      }
      if (client_gone_ || call.cancelled.load()) {
        reply.status = AIRLOCK_STATUS_CANCELLED;
        gone = client_gone_;
        break;
      }
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) {
        reply.status = AIRLOCK_STATUS_TIMEOUT;
        break;
      }
      client_answered_.wait_until(lock, std::min(deadline, now + kCancelledPoll));
    }
    client_requests_.erase(id);
  }
  // The client may still be showing a form or running a model for it: tell
  // it to stop. Not when it went away; nobody would read it. A call its
  // deadline already answered has no stream of its own left.
  if (reply.status == AIRLOCK_STATUS_TIMEOUT || (reply.status == AIRLOCK_STATUS_CANCELLED && !gone)) {
    const char* reason = reply.status == AIRLOCK_STATUS_TIMEOUT ? "timed out" : "the tool call was cancelled";
    send_(fmt::format(R"({{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{},"reason":"{}"}}}})",
                      id, reason),
          call.answered.load() ? Outbound{} : Outbound{call.key, false});
  }
  return reply;
}

void Session::on_response(const jsonrpc::Message& m) {
  std::string key = to_json(m.id);
  std::string outcome = to_json(m.outcome);
  {
    std::lock_guard lock(client_requests_mutex_);
    auto it = client_requests_.find(key);
    if (it == client_requests_.end()) {
      // Late (after its timeout or cancellation) or never ours: nothing waits.
      spdlog::debug("response to {}: no request of this session waits for it; ignored", key);
      return;
    }
    it->second->answered = true;
    it->second->is_error = m.is_error;
    it->second->outcome = std::move(outcome);
  }
  client_answered_.notify_all();
}

}  // namespace airlock::host
