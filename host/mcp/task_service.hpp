// Durable tasks (MCP 2025-11-25 tasks, and the 2026-07-28 tasks extension):
// one per server, shared by every session and stand-alone request. A task's
// origin and its raw outcome live in the TaskStore, so any server sharing
// the store reads it; the result a reader sees is the stored, unsanitized
// one passed through the reader's own chain with the reader's request
// context, every time, and the stored one never changes.
//
// A task runs its tool on the server's workers, from the start each time:
// first when it is created, again after the client answered the questions
// it asked (tasks/update). This server's heartbeat marks the tasks it runs
// as alive; a task whose server stopped beating is failed by whoever
// notices, so a killed server never leaves a task working forever.
#pragma once

#include "pipeline/request_context.hpp"
#include "pipeline/tool_routes.hpp"
#include "tasks/task_store.hpp"
#include "util/error.hpp"

#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace airlock::host {

class Executor;
class ToolCallRunner;

struct TaskSettings {
  std::int64_t ttl_ms = 3'600'000;    // how long a task is kept after it was created
  std::int64_t poll_interval_ms = 500;  // what clients are told to poll at
  std::string node_id;                // this server, in the store's runner column
};

// Where a task comes from: the request that created it.
struct TaskOrigin {
  const ToolRoute* route = nullptr;
  std::string owner;
  std::string arguments;  // raw JSON object
  std::string protocol_version;
  std::string meta = "{}";  // the request's params._meta, whole
  boost::json::object client_capabilities;
  boost::json::object answers;  // answers the request's earlier rounds carried
  std::optional<std::int64_t> ttl_ms;
};

class TaskService {
 public:
  // `runner` runs the tasks' tools exactly as a session's calls run (the
  // same network, the same serialization); it outlives the service.
  TaskService(const ToolRoutes& routes, Executor& executor, const ToolCallRunner& runner,
              std::unique_ptr<TaskStore> store, TaskSettings settings);
  // Stops (see stop) if the owner did not.
  ~TaskService();
  TaskService(const TaskService&) = delete;
  TaskService& operator=(const TaskService&) = delete;

  // Fails this node's tasks left over from an earlier run with the same
  // node id, and starts the heartbeat. Before any task is created.
  void start();
  // Cancels the tasks running here (they end failed: the server stopped)
  // and waits for them. Before the executor stops.
  void stop();

  const std::string& node_id() const { return settings_.node_id; }
  std::int64_t poll_interval_ms() const { return settings_.poll_interval_ms; }
  std::string describe() const { return store_->describe(); }

  // Creates the task, durably, and queues its first run.
  Result<TaskRecord> create(TaskOrigin origin);
  // The task as its owner sees it; nothing for another owner.
  Result<std::optional<TaskRecord>> get(std::string_view id, std::string_view owner);
  Result<std::vector<TaskRecord>> list(std::string_view owner, std::optional<std::string_view> after,
                                       std::size_t limit);
  // tasks/update: keeps the answers to questions the task is waiting on
  // (others are ignored); when none is left waiting, runs it again here.
  // Nothing when there is no such task for `owner`.
  Result<std::optional<TaskRecord>> answer(std::string_view id, std::string_view owner,
                                           const boost::json::object& responses);
  // tasks/cancel: a task not yet terminal becomes cancelled at once, and
  // the run (here or on another server) is told to stop. The record after.
  Result<std::optional<TaskRecord>> cancel(std::string_view id, std::string_view owner);

  // The stored result through the reader's chain: the CallToolResult JSON a
  // reader of a completed task gets.
  std::string read_result(const TaskRecord& task, const RequestContext& reader) const;

  static std::string iso8601(std::int64_t unix_ms);
  static std::int64_t now_ms();

 private:
  struct Running {
    std::atomic<bool> cancelled{false};
    std::string owner;  // to read the record back
  };
  class TaskLink;

  void schedule(TaskRecord record, boost::json::object client_capabilities);
  void execute(const TaskRecord& started, const boost::json::object& client_capabilities);
  // Writes `change` onto the freshest record unless it is terminal already.
  void settle(const TaskRecord& started, const std::function<void(TaskRecord&)>& change);
  void maintain();

  const ToolRoutes& routes_;
  Executor& executor_;
  const ToolCallRunner& runner_;
  const std::unique_ptr<TaskStore> store_;
  const TaskSettings settings_;

  std::mutex mutex_;  // guards running_, stopping_
  std::condition_variable idle_;
  std::unordered_map<std::string, std::shared_ptr<Running>> running_;  // by task id
  bool stopping_ = false;
  std::thread maintainer_;
};

}  // namespace airlock::host
