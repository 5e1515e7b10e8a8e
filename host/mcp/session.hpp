// One MCP session: the lifecycle (initialize, then everything else), the
// method table, the tool calls it has in flight, and what those calls say to
// the client while they run (progress, logs, requests to the client); and
// the resources, prompts and completions plugins serve (session_content.cpp).
// A transport feeds it one message at a time and gives it a function to send
// with; nothing here depends on which transport it is.
#pragma once

#include "calls/tool_call_runner.hpp"
#include "config/host_config.hpp"
#include "executor/deadline_timer.hpp"
#include "executor/executor.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/method_table.hpp"
#include "mcp/request_scope.hpp"
#include "pipeline/tool_routes.hpp"
#include "plugins/host_api.hpp"
#include "util/json_text.hpp"

#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

namespace airlock::host {
class Metrics;
class RequestStateSealer;
class InputRound;
class TaskService;
struct TaskRecord;

// What every session of one server shares; immutable after start.
struct ServerState {
  const Config& config;
  const ToolRoutes& routes;
  Executor& executor;
  std::string version;  // airlock's, for serverInfo
  // tools/list entries, in tools/list order, built once at start.
  std::vector<boost::json::object> tool_listing;
  // Fires timeout_ms deadlines; without one, timeouts are not enforced.
  DeadlineTimer* timer = nullptr;
  // Counts tool calls, errors and sanitizer failures; null: not counted.
  Metrics* metrics = nullptr;
  // Runs every tool call and frames its answer; the default one gives the
  // tools no network (every fetch is denied).
  ToolCallRunner runner{};
  // Seals the requestState of 2026-07-28 multi round-trip requests; null:
  // a tool that asks the client in such a request gets UNSUPPORTED.
  const RequestStateSealer* sealer = nullptr;
  // How long 2026-07-28 clients may cache discover and list results
  // ([server] list_ttl_ms), and whether a shared cache may hold them: not
  // when identities see different tools.
  std::int64_t list_ttl_ms = 60000;
  bool private_lists = false;
  // Durable tasks; null: none (no [tasks] store could be opened).
  TaskService* tasks = nullptr;
};

// Builds ServerState::tool_listing from the routes.
std::vector<boost::json::object> build_tool_listing(const ToolRoutes& routes);

// Where a message the session sends belongs. Over HTTP a request's own
// messages (its progress, its logs, its requests to the client, and last its
// response) travel on that request's stream, everything else on the
// session's standalone stream. stdio has one stream and ignores this.
struct Outbound {
  std::string_view request;  // id (as JSON text) of the client request it belongs to; empty: none
  bool final = false;        // the response to `request`: nothing follows it on that stream
};

// What a request that runs plugin code besides a tool (a resource read, a
// prompt get, a completion) answers: a result, or a JSON-RPC error.
struct ContentAnswer {
  std::string result;  // JSON; used when error_code is 0 and response is empty
  int error_code = 0;
  std::string error_message;
  std::string error_data;  // JSON; empty: no data
  // The stage of the result pipeline that withheld the content ("chain",
  // "budget"); empty: none did.
  std::string_view withheld{};
  // The complete JSON-RPC response, when the result pipeline wrote it
  // (resources/read, prompts/get), and where the delivered result sits in it.
  std::string response{};
  std::size_t result_at = 0;
  std::size_t result_size = 0;
};

// Private ContentListener: the catalog tells an initialized session about
// changed resources and lists.
class Session : private ContentListener {
 public:
  // Writes one complete JSON-RPC message. Called from the transport's thread
  // and from worker threads; must be thread-safe. Messages of one request
  // are sent in order, from one thread at a time. An empty message with
  // `final` set is no message: that request will never be answered (the
  // client cancelled it), so a transport holding a stream open for it can
  // end it; stdio writes nothing.
  using Send = std::function<void(std::string message, Outbound where)>;
  // Ends the response stream of the client request whose id (JSON text) is
  // `request`, ahead of its response (a tool's call_end_stream). Worker
  // threads; must be thread-safe.
  using EndStream = std::function<void(std::string_view request)>;
  // Whether this session's client may see and call the tool.
  using ToolScope = std::function<bool(std::string_view tool_name)>;

  // A session of its own, as stdio's process is: its tasks belong to a
  // random owner no other session can name.
  Session(const ServerState& server, Send send);
  // An HTTP session: `session_id` (empty when stateless) and the
  // authenticated `caller` (empty when none) say who it is, for the request
  // context result sanitizers see, and whose tasks it sees: the caller's,
  // else the session's, else those of every anonymous stateless request.
  Session(const ServerState& server, Send send, std::string session_id, std::string caller);
  // Closes first if the owner did not.
  ~Session() override;

  // Handles one message (a line of stdio, a POST body). Transport thread.
  // Before initialize, a request that carries 2026-07-28's _meta (or any
  // request but initialize and ping) is served as a 2026-07-28 request,
  // on its own; after it, every message belongs to the session.
  void handle(std::string_view text);
  // The same, for a message the transport already parsed (HTTP reads the
  // kind and id first: they decide the status and the stream).
  void handle(jsonrpc::Message& message);
  // A 2026-07-28 request the transport already admitted (admit_modern):
  // served with `scope`, never as part of the session. Transport thread.
  void handle_modern(jsonrpc::Message& message, RequestScope scope);

  // Answers a message the transport refused for its size.
  void reject_oversized(std::size_t limit);

  // Set by a transport before the first message, then never again. Without
  // one, call_end_stream does nothing (stdio).
  void set_end_stream(EndStream end_stream);
  // Limits the tools this session's client sees in tools/list (paged over
  // the tools in scope) and may call; a tool outside is refused exactly like
  // an unknown one, so the scope does not reveal what exists. Without one,
  // every tool. Set before the first message, then never again.
  void set_tool_scope(ToolScope allowed);
  // The same for resources (by URI; a template by its uriTemplate text, in
  // resources/templates/list and completion) and prompts (by name): what is
  // outside reads as absent. An empty one: everything of its kind.
  void set_content_scope(ToolScope resources, ToolScope prompts);

  // How the client reaches this session, for the audit trail: "stdio"
  // (the default) or "http", and the address of the peer that opened it.
  // Set before the first message.
  void set_transport(std::string_view transport, std::string peer_address);
  // The OAuth client_id of the token that opened it, for the audit trail.
  // Set before the first message.
  void set_client(std::string client) { client_ = std::move(client); }

  // The negotiated protocol version; empty before initialize. Transport thread.
  const std::string& protocol_version() const { return protocol_version_; }
  bool initialized() const { return initialized_; }
  // Whether a tool call of this session has not finished yet. Any thread.
  bool calls_in_flight();

  // The client is done sending: lets calls in flight finish and answer for
  // up to `grace`, then cancels the rest and waits until none runs, for at
  // most `abandon` when given. New calls are refused from the start, and so
  // are requests to the client: one that waits for an answer gets CANCELLED
  // at once, since none can come. From the start, too, no resource or list
  // change reaches this session. False when a call still runs after
  // `abandon` (an in-process plugin that ignores cancellation): the session
  // must then never be destroyed, since that call still uses it; the
  // process ends instead.
  bool close(std::chrono::milliseconds grace = std::chrono::milliseconds(0),
             std::optional<std::chrono::milliseconds> abandon = std::nullopt);

 private:
  class CallLink;  // a call's CallChannel (session.cpp)
  using Scope = std::shared_ptr<const RequestScope>;  // null: a session's request

  struct InFlight {
    Scope scope;
    // A 2026-07-28 request that may ask the client: the answers it has, the
    // questions it asks, and what its requestState is bound to.
    std::shared_ptr<InputRound> round;
    std::string state_method;  // "tools/call", "prompts/get", "resources/read"
    std::string state_digest;
    // The task this call became (call_start_task), or why it could not;
    // only on_call's thread touches them.
    const ToolRoute* route = nullptr;  // tools/call: the tool called
    mutable std::shared_ptr<const TaskRecord> task;
    mutable std::string task_error;
    boost::json::value id;
    std::string key;  // the id as JSON text: the calls_ key and the stream it answers on
    // Parsed, for input validation. Emplaced (move-constructed) so it keeps
    // the message's arena instead of being copied out of it.
    std::optional<boost::json::value> arguments_value;
    // As JSON text, what the tool and the result sanitizers get: written by
    // run_call just before the tool runs, then read on that thread (and by
    // the tool's own calls back, start_task). Elsewhere: arguments_text().
    std::string arguments;
    std::atomic<bool> cancelled{false};
    // Exactly one of the worker and the deadline answers a call.
    std::atomic<bool> answered{false};
    DeadlineTimer::Id deadline = 0;
    // params._meta, moved out of the message (it keeps the message's arena).
    std::optional<boost::json::value> meta_value;
    // meta_value as JSON text, for call_request_meta and a task's record;
    // written the first time it is asked for (any thread), as few tools ask
    // and writing it cost a fiftieth of a small stateless call.
    const std::string& meta() const {
      std::call_once(meta_once_, [this] { meta_text_ = meta_value ? to_json(*meta_value) : std::string("{}"); });
      return meta_text_;
    }
    // params._meta.progressToken, echoed in every progress; none: no progress wanted.
    std::optional<boost::json::value> progress_token;

   private:
    mutable std::once_flag meta_once_;
    mutable std::string meta_text_;
  };

  // A request this session sent its client, waiting for the answer.
  struct ClientRequest {
    bool answered = false;
    bool is_error = false;
    std::string outcome;  // the result, or the error object, as JSON
  };

  // The method table (method_table.cpp) names the handlers below, which
  // all take the message and its scope (null: the session's own request).
  friend const Method* find_method(std::string_view name);

  void dispatch(jsonrpc::Message& message);
  // Runs the table's handler for a request admitted in `era`.
  void dispatch_request(jsonrpc::Message& message, Era era, const Scope& scope);
  void on_initialize(jsonrpc::Message& m, const Scope&);
  void on_ping(jsonrpc::Message& m, const Scope&);
  void on_set_level(jsonrpc::Message& m, const Scope&);
  void on_response(const jsonrpc::Message& m);
  void on_tools_list(jsonrpc::Message& m, const Scope& scope);
  void on_tools_call(jsonrpc::Message& m, const Scope& scope);
  void on_discover(jsonrpc::Message& m, const Scope& scope);

  // --- durable tasks (session_tasks.cpp)
  // call_start_task in a synchronous call. on_call's thread.
  airlock_status start_task(const InFlight& call);
  // tools/call with params.task in a session (2025-11-25): a task from the start.
  void start_session_task(const jsonrpc::Message& m, const ToolRoute& route, const std::shared_ptr<InFlight>& call);
  void on_tasks_get(jsonrpc::Message& m, const Scope& scope);
  void on_tasks_result(jsonrpc::Message& m, const Scope&);
  void on_tasks_list(jsonrpc::Message& m, const Scope&);
  void on_tasks_update(jsonrpc::Message& m, const Scope& scope);
  void on_tasks_cancel(jsonrpc::Message& m, const Scope& scope);
  // What the client hears about a task it created: 2026-07-28's flat
  // CreateTaskResult, or 2025's {task: Task}.
  std::string task_created(const InFlight& call) const;

  // --- subscriptions/listen (session_listen.cpp): a 2026-07-28 request
  // held open, on which list changes and resource updates are delivered.
  struct Listen;
  void on_listen(jsonrpc::Message& m, const Scope& scope);
  // Called with the catalog's listener lock held (ContentListener).
  void notify_listens(ContentList list);
  void notify_listens_updated(std::string_view uri);
  // Ends the listen with this id (a notifications/cancelled); false: none.
  bool cancel_listen(std::string_view key);
  // Ends every listen with its result (the server closes the session).
  void end_listens();
  // A 2026-07-28 request's inputResponses and requestState, opened into
  // call->round. False when it answered an error.
  bool open_round(const jsonrpc::Message& m, const std::shared_ptr<InFlight>& call);
  // The InputRequiredResult of an attempt that asked the client something
  // it has not answered yet, or the -32602 for an answer of the wrong shape.
  // Nothing when the attempt may be answered normally. Worker thread.
  std::optional<std::string> round_outcome(const InFlight& call);
  // Whether the attempt's answer is the round's, not the hook's own.
  static bool round_pending(const InFlight& call);
  void on_cancelled(const jsonrpc::Message& m);
  void run_call(const ToolRoute& route, const std::shared_ptr<InFlight>& call);
  void on_deadline(const ToolRoute& route, const std::shared_ptr<InFlight>& call);
  void finish(const std::shared_ptr<InFlight>& call);
  bool in_scope(std::string_view tool_name) const { return !tool_scope_ || tool_scope_(tool_name); }
  bool resource_in_scope(std::string_view uri) const { return !resource_scope_ || resource_scope_(uri); }
  bool prompt_in_scope(std::string_view name) const { return !prompt_scope_ || prompt_scope_(name); }

  // Sends `method` to the client for `call` and waits for the answer; the
  // body of call_client_request. Worker thread.
  CallChannel::Reply request_client(const InFlight& call, std::string_view method, std::string_view params_json,
                                    std::chrono::milliseconds timeout);
  // Wakes every request_client waiting, to look at its call's cancelled
  // flag again; call after setting one.
  void wake_client_waiters();

  // --- resources, prompts, completions (session_content.cpp)

  using ContentJob = std::function<ContentAnswer(const InFlight& call)>;

  void on_resources_list(jsonrpc::Message& m, const Scope& scope);
  void on_resource_templates_list(jsonrpc::Message& m, const Scope& scope);
  void on_resources_read(jsonrpc::Message& m, const Scope& scope);
  void on_resources_subscribe(jsonrpc::Message& m, const Scope&);
  void on_resources_unsubscribe(jsonrpc::Message& m, const Scope&);
  void subscribe(const jsonrpc::Message& m, bool subscribe);
  void on_prompts_list(jsonrpc::Message& m, const Scope& scope);
  void on_prompts_get(jsonrpc::Message& m, const Scope& scope);
  void on_complete(jsonrpc::Message& m, const Scope& scope);
  // Runs `job` on a worker as a request in flight: a cancelled one is not
  // answered, close() waits for it, a full queue answers busy. `state_method`:
  // a 2026-07-28 request whose hook may ask the client (prompts/get,
  // resources/read); empty: it may not.
  void run_content_job(const jsonrpc::Message& m, const Scope& scope, ContentJob job,
                       std::string_view state_method = {});
  // The request context a plugin hook and the content pipeline see.
  RequestContext request_context(const InFlight& call) const;
  // A tools/call's arguments as JSON text ({} when it sent none).
  static std::string arguments_text(const InFlight& call);
  // ContentListener: on the changing thread; only queues a notification.
  void resource_updated(std::string_view uri) override;
  void list_changed(ContentList list) override;

  void reply(const boost::json::value& id, std::string_view result_json);
  void reply_error(const boost::json::value& id, int code, std::string_view message);
  void reply_error(const boost::json::value& id, int code, std::string_view message, const boost::json::value& data);
  // A result: as it is in a session; for a 2026-07-28 request with
  // resultType, serverInfo and, for `cacheable` ones, ttlMs and cacheScope.
  enum class Cache { none, list, read };
  void reply_result(const boost::json::value& id, boost::json::object result, const Scope& scope, Cache cache);
 public:
  // What a 2026-07-28 result carries besides its payload: resultType, the
  // server's name and version in _meta and, when cacheable, ttlMs and
  // cacheScope. Also used by the transports' own answers.
  static void stamp_modern(boost::json::object& result, const ServerState& server, Cache cache);

 private:

  const ServerState& server_;
  // {name, version}: initialize's serverInfo, and every 2026-07-28 result's.
  const boost::json::object server_info_;
  Send send_;
  EndStream end_stream_;
  ToolScope tool_scope_;
  ToolScope resource_scope_;
  ToolScope prompt_scope_;
  std::string protocol_version_;  // set once initialize succeeded
  std::string session_id_;  // the HTTP constructor's
  std::string caller_;
  std::string_view transport_ = "stdio";  // a literal
  std::string peer_address_;
  std::string client_;  // set_client
  // Who may read the tasks this session creates: the authenticated caller,
  // else the HTTP session, else (stdio) this process's own session.
  std::string task_owner_;
  std::atomic<bool> initialized_{false};  // read by list changes on plugin threads
  // Set by initialize, before any call can start, then read-only.
  boost::json::object client_capabilities_;
  std::string client_capabilities_json_ = "{}";
  // The least severe airlock_client_log_level sent (logging/setLevel).
  std::atomic<int> log_threshold_;

  std::mutex calls_mutex_;  // guards calls_ and closed_
  std::condition_variable calls_done_;
  // Keyed by the id as JSON text, so 1 and "1" are different calls.
  std::unordered_map<std::string, std::shared_ptr<InFlight>> calls_;
  bool closed_ = false;

  std::mutex client_requests_mutex_;  // guards client_requests_, next_client_request_, client_gone_
  std::condition_variable client_answered_;
  // Keyed by the id as JSON text ("\"airlock-7\""), as a response's id reads.
  std::unordered_map<std::string, std::shared_ptr<ClientRequest>> client_requests_;
  std::uint64_t next_client_request_ = 1;
  bool client_gone_ = false;  // close() began: no answer can come any more

  // Null when no plugin can serve resources or prompts (ABI 1.3).
  ContentCatalog* const catalog_;
  std::mutex listens_mutex_;  // guards listens_
  std::vector<std::shared_ptr<Listen>> listens_;
  std::atomic<bool> catalog_listening_{false};  // added as the catalog's listener
  std::mutex subscriptions_mutex_;  // guards subscriptions_
  std::set<std::string, std::less<>> subscriptions_;  // resources/subscribe, by exact URI
};

}  // namespace airlock::host
