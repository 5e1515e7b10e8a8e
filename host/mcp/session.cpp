// The MCP method table of one session and the life of a tool call in it:
// admitted on the transport thread, run on a worker, answered once, or not
// at all when the client cancelled it.
#include "mcp/session.hpp"

#include "mcp/protocol.hpp"
#include "pipeline/result_pipeline.hpp"
#include "plugins/host_api.hpp"
#include "util/json_text.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <charconv>

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
    listing.push_back(std::move(entry));
  }
  return listing;
}

Session::Session(const ServerState& server, Send send) : server_(server), send_(std::move(send)) {}

Session::~Session() { close(); }

void Session::reply(const boost::json::value& id, std::string_view result_json) {
  const std::string key = boost::json::serialize(id);
  send_(jsonrpc::result(id, result_json), Outbound{key, true});
}

void Session::reply_error(const boost::json::value& id, int code, std::string_view message) {
  const std::string key = id.is_null() ? std::string() : boost::json::serialize(id);
  send_(jsonrpc::error(id, code, message), Outbound{key, true});
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

void Session::reject_oversized(std::size_t limit) {
  reply_error(nullptr, jsonrpc::kInvalidRequest,
              fmt::format("invalid request: message exceeds the {}-byte limit (server.max_message_bytes)", limit));
}

void Session::dispatch(jsonrpc::Message& m) {
  using Kind = jsonrpc::Message::Kind;
  if (m.kind == Kind::response) return;  // this host sends no requests to clients yet
  if (m.kind == Kind::notification) {
    if (m.method == "notifications/cancelled") on_cancelled(m);
    // notifications/initialized and unknown notifications need no answer.
    return;
  }
  if (m.method == "ping") return reply(m.id, "{}");
  if (m.method == "initialize") return on_initialize(m);
  if (!initialized_)
    return reply_error(m.id, jsonrpc::kInvalidRequest,
                       fmt::format("server not initialized: send initialize before {}", m.method));
  if (m.method == "tools/call") return on_tools_call(m);
  if (m.method == "tools/list") return on_tools_list(m);
  reply_error(m.id, jsonrpc::kMethodNotFound, fmt::format("method not found: {}", m.method));
}

void Session::on_initialize(const jsonrpc::Message& m) {
  if (initialized_) return reply_error(m.id, jsonrpc::kInvalidRequest, "invalid request: already initialized");
  const auto* params = params_object(m);
  const auto* requested = params ? params->if_contains("protocolVersion") : nullptr;
  if (!requested || !requested->is_string())
    return reply_error(m.id, jsonrpc::kInvalidParams, "initialize: params.protocolVersion must be a string");
  protocol_version_ = negotiate_protocol_version(requested->get_string());
  initialized_ = true;

  boost::json::object result{
      {"protocolVersion", protocol_version_},
      {"capabilities", boost::json::object{{"tools", boost::json::object{{"listChanged", false}}}}},
      {"serverInfo", boost::json::object{{"name", server_.config.server.name}, {"version", server_.version}}}};
  reply(m.id, boost::json::serialize(result));
}

void Session::on_tools_list(const jsonrpc::Message& m) {
  const auto& listing = server_.tool_listing;
  std::size_t offset = 0;
  if (const auto* params = params_object(m)) {
    if (const auto* cursor = params->if_contains("cursor"); cursor && !cursor->is_null()) {
      std::optional<std::size_t> at;
      if (cursor->is_string()) at = read_cursor(cursor->get_string(), listing.size());
      if (!at) return reply_error(m.id, jsonrpc::kInvalidParams, "tools/list: invalid cursor");
      offset = *at;
    }
  }
  const std::size_t end = std::min<std::size_t>(listing.size(), offset + server_.config.server.page_size);
  boost::json::array tools;
  for (std::size_t i = offset; i < end; ++i) tools.push_back(listing[i]);
  boost::json::object result{{"tools", std::move(tools)}};
  if (end < listing.size()) result["nextCursor"] = make_cursor(end);
  reply(m.id, boost::json::serialize(result));
}

void Session::on_tools_call(jsonrpc::Message& m) {
  const auto* params = params_object(m);
  const auto* name = params ? params->if_contains("name") : nullptr;
  if (!name || !name->is_string())
    return reply_error(m.id, jsonrpc::kInvalidParams, "tools/call: params.name must be a string");
  const ToolRoute* route = server_.routes.find(name->get_string());
  if (!route)
    return reply_error(m.id, jsonrpc::kInvalidParams, fmt::format("tools/call: unknown tool: {}", name->get_string()));

  auto call = std::make_shared<InFlight>();
  call->id = m.id;
  // A call with no arguments reaches the tool as {} (never null).
  call->arguments = "{}";

  if (auto* args = m.params.get_object().if_contains("arguments"); args && !args->is_null()) {
    if (!args->is_object())
      return reply_error(m.id, jsonrpc::kInvalidParams, "tools/call: params.arguments must be an object");
    call->arguments = to_json(*args);
    call->arguments_value.emplace(std::move(*args));
  } else {
    call->arguments_value.emplace(boost::json::object{});
  }

  const std::string& key = call->key = boost::json::serialize(m.id);
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
  std::function<void()> job = [this, route, call] { run_call(*route, call); };
  if (!server_.executor.try_submit(job)) {
    // finish() cancels the deadline, or waits for it if it is firing now; a
    // short timeout_ms may already have answered, and a call is answered once.
    finish(call);
    if (!call->answered.exchange(true))
      reply_error(m.id, jsonrpc::kServerBusy, "server busy: too many tool calls queued; retry later");
  }
}

void Session::run_call(const ToolRoute& route, const std::shared_ptr<InFlight>& call) {
  // A call cancelled while it waited in the queue never starts.
  if (call->cancelled.load()) return finish(call);

  const Tool& tool = *route.tool;
  const RequestContext context{protocol_version_, "", "", boost::json::serialize(call->id)};

  // Arguments that fail the inputSchema never reach the tool; the client
  // gets host text naming the schema location and keyword, through the chain.
  if (auto invalid = tool.input_validator->validate(*call->arguments_value)) {
    if (!call->answered.exchange(true)) {
      std::string response = jsonrpc::result_prefix(call->id);
      run_invalid_arguments_pipeline(route, invalid->describe(), context, call->arguments, response);
      response.push_back(jsonrpc::kResultSuffix);
      send_(std::move(response), Outbound{call->key, true});
    }
    return finish(call);
  }

  airlock_call handle;
  handle.cancelled = &call->cancelled;
  airlock_status status;
  {
    std::unique_lock<std::mutex> serial;
    if (!tool.reentrant()) serial = std::unique_lock(*tool.serial);
    status = tool.on_call(tool.tool_data, &handle, borrow(call->arguments));
  }
  // The client asked not to hear about a cancelled call; whatever the tool
  // produced is dropped before any stage sees it.
  if (call->cancelled.load()) return finish(call);

  if (call->answered.exchange(true)) return finish(call);  // the deadline answered first

  // The response is built in place: envelope, then the result appended by
  // the pipeline's last stage, so a large result is written once.
  std::string response = jsonrpc::result_prefix(call->id);
  run_result_pipeline(route, ToolCallOutcome{status, std::move(handle.output)}, context, call->arguments, response);
  response.push_back(jsonrpc::kResultSuffix);
  send_(std::move(response), Outbound{call->key, true});
  finish(call);
}

// On the timer thread. The tool is told to stop (it sees the flag if it is
// cancellable); the client gets a tool error now, not whenever the tool
// returns. Host text, so it is the same for every call and leaks nothing,
// and it still passes the chain like every result.
void Session::on_deadline(const ToolRoute& route, const std::shared_ptr<InFlight>& call) {
  if (call->cancelled.load() || call->answered.exchange(true)) return;
  call->cancelled = true;
  spdlog::warn("tool '{}': no result after {} ms; answering with a timeout error", route.tool->name,
               *route.timeout_ms);
  ToolCallOutcome outcome{AIRLOCK_STATUS_TOOL_ERROR, {}};
  outcome.output.error_message = fmt::format("tool timed out after {} ms", *route.timeout_ms);
  const RequestContext context{protocol_version_, "", "", boost::json::serialize(call->id)};
  std::string response = jsonrpc::result_prefix(call->id);
  run_result_pipeline(route, std::move(outcome), context, call->arguments, response);
  response.push_back(jsonrpc::kResultSuffix);
  send_(std::move(response), Outbound{call->key, true});
}

void Session::finish(const std::shared_ptr<InFlight>& call) {
  if (call->deadline && server_.timer) server_.timer->cancel(call->deadline);
  std::lock_guard lock(calls_mutex_);
  calls_.erase(call->key);
  if (calls_.empty()) calls_done_.notify_all();
}

void Session::on_cancelled(const jsonrpc::Message& m) {
  const auto* params = params_object(m);
  const auto* id = params ? params->if_contains("requestId") : nullptr;
  if (!id) return;
  std::lock_guard lock(calls_mutex_);
  if (auto it = calls_.find(boost::json::serialize(*id)); it != calls_.end()) it->second->cancelled = true;
}

void Session::close(std::chrono::milliseconds grace) {
  std::unique_lock lock(calls_mutex_);
  closed_ = true;
  if (calls_done_.wait_for(lock, grace, [this] { return calls_.empty(); })) return;
  for (auto& [key, call] : calls_) call->cancelled = true;
  calls_done_.wait(lock, [this] { return calls_.empty(); });
}

}  // namespace airlock::host
