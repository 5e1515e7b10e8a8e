// One MCP session: the lifecycle (initialize, then everything else), the
// method table, and the tool calls it has in flight. A transport feeds it
// one message at a time and gives it a function to send with.
#pragma once

#include "config/host_config.hpp"
#include "executor/deadline_timer.hpp"
#include "executor/executor.hpp"
#include "mcp/jsonrpc.hpp"
#include "pipeline/tool_routes.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace airlock::host {

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

class Session {
 public:
  // Writes one complete JSON-RPC message. Called from the transport's thread
  // and from worker threads; must be thread-safe.
  using Send = std::function<void(std::string message, Outbound where)>;

  Session(const ServerState& server, Send send);
  // Closes first if the owner did not.
  ~Session();

  // Handles one message (a line of stdio, a POST body). Transport thread.
  void handle(std::string_view text);
  // The same, for a message the transport already parsed (HTTP reads the
  // kind and id first: they decide the status and the stream).
  void handle(jsonrpc::Message& message);

  // Answers a message the transport refused for its size.
  void reject_oversized(std::size_t limit);

  // The client is done sending: lets calls in flight finish and answer for
  // up to `grace`, then cancels the rest and waits until none runs. New
  // calls are refused from the start.
  void close(std::chrono::milliseconds grace = std::chrono::milliseconds(0));

 private:
  struct InFlight {
    boost::json::value id;
    std::string key;  // the id as JSON text: the calls_ key and the stream it answers on
    // Parsed, for input validation. Emplaced (move-constructed) so it keeps
    // the message's arena instead of being copied out of it.
    std::optional<boost::json::value> arguments_value;
    std::string arguments;  // as JSON text, what the tool and result sanitizers get
    std::atomic<bool> cancelled{false};
    // Exactly one of the worker and the deadline answers a call.
    std::atomic<bool> answered{false};
    DeadlineTimer::Id deadline = 0;
  };

  void dispatch(jsonrpc::Message& message);
  void on_initialize(const jsonrpc::Message& m);
  void on_tools_list(const jsonrpc::Message& m);
  void on_tools_call(jsonrpc::Message& m);
  void on_cancelled(const jsonrpc::Message& m);
  void run_call(const ToolRoute& route, const std::shared_ptr<InFlight>& call);
  void on_deadline(const ToolRoute& route, const std::shared_ptr<InFlight>& call);
  void finish(const std::shared_ptr<InFlight>& call);

  void reply(const boost::json::value& id, std::string_view result_json);
  void reply_error(const boost::json::value& id, int code, std::string_view message);

  const ServerState& server_;
  Send send_;
  std::string protocol_version_;  // set once initialize succeeded
  bool initialized_ = false;

  std::mutex calls_mutex_;  // guards calls_ and closed_
  std::condition_variable calls_done_;
  // Keyed by the id as JSON text, so 1 and "1" are different calls.
  std::unordered_map<std::string, std::shared_ptr<InFlight>> calls_;
  bool closed_ = false;
};

}  // namespace airlock::host
