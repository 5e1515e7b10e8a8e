// One durable task as the stores keep it: the origin of the call (immutable
// once created) and its progress (rewritten under optimistic concurrency).
// Plain data; the stores and the task protocol on top share it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host {

enum class TaskStatus { working, input_required, completed, failed, cancelled };

std::string_view to_string(TaskStatus);  // "working", "input_required", ...
std::optional<TaskStatus> task_status_from(std::string_view);

inline bool is_terminal(TaskStatus s) {
  return s == TaskStatus::completed || s == TaskStatus::failed || s == TaskStatus::cancelled;
}

struct TaskRecord {
  std::string id;                     // 64 lowercase hex (256 random bits), unguessable; primary key
  std::string owner;                  // who may read it; a read by anyone else finds nothing
  std::string tool;                   // the original tool name
  std::string arguments;              // the raw arguments, JSON object text, as the client sent them
  std::string protocol_version;       // of the creating request
  std::string meta = "{}";            // the creating request's params._meta, JSON text, kept whole
  TaskStatus status = TaskStatus::working;
  std::string status_message;         // may be empty
  std::string result;                 // completed: the tool's UNSANITIZED CallToolResult JSON; "" otherwise
  std::string error;                  // failed: a JSON-RPC error object {code,message,data?} as JSON; "" otherwise
  std::string input_requests = "{}";  // input_required: {key:{method,params}} JSON
  std::string answers = "{}";         // answers the client gave so far: {key:{method,result}} JSON
  std::string pending = "{}";         // questions waiting: {key: method} JSON
  std::int64_t created_ms = 0;        // Unix epoch milliseconds
  std::int64_t updated_ms = 0;
  std::int64_t ttl_ms = 0;            // kept at least this long after created_ms
  std::int64_t poll_interval_ms = 0;
  std::string runner;                 // id of the node running it now; "" when nobody runs it
  std::int64_t heartbeat_ms = 0;      // the runner's last sign of life
  bool cancel_requested = false;
  std::int64_t version = 0;           // bumped by every successful write (optimistic concurrency)
};

}  // namespace airlock::host
