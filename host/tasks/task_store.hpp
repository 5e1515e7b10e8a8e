// Where durable tasks live: one interface over an embedded SQLite file (the
// default, one node) and PostgreSQL (many nodes sharing one database). Every
// method may be called from any thread at the same time; each store
// serializes or pools its connections itself.
#pragma once

#include "tasks/task_record.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host {

// The error a task gets when the node running it stopped (fail_abandoned, fail_runner),
// and its message, which also becomes the task's status_message.
inline constexpr std::string_view kAbandonedTaskMessage = "the server running this task stopped before it finished";
inline constexpr std::string_view kAbandonedTaskError =
    R"({"code":-32603,"message":"the server running this task stopped before it finished"})";
static_assert(kAbandonedTaskError.find(kAbandonedTaskMessage) != std::string_view::npos);

// The PostgreSQL store is a module of the host's (util/host_module.hpp);
// this changes whenever TaskStore or TaskRecord does, and the host refuses
// a module built with another.
inline constexpr int kTaskStoreAbi = 1;

class TaskStore {
 public:
  virtual ~TaskStore() = default;

  // "sqlite /var/lib/airlock/tasks.db" / "postgresql 127.0.0.1:5432/airlock" (never the password).
  virtual std::string describe() const = 0;

  // Durable when it returns OK (SQLite: committed in WAL mode with synchronous=FULL;
  // PostgreSQL: committed, with the server's own synchronous_commit). record.version is stored
  // as 1. An id that already exists is an error, and so is a record check_task_record refuses.
  virtual Result<void> create(const TaskRecord& record) = 0;

  // The task with this id owned by `owner`; nullopt when none (another owner's task reads as
  // none, and so does an id that is not 64 lowercase hex digits).
  virtual Result<std::optional<TaskRecord>> get(std::string_view id, std::string_view owner) = 0;

  // Writes every mutable field of `record` (status..cancel_requested) if the stored version
  // equals record.version and the stored owner is record.owner, and stores version+1.
  // true: written; false: someone changed it first (re-read and retry), or it is gone.
  // The immutable fields (id, owner, tool, arguments, protocol_version, meta, created_ms,
  // ttl_ms) are never changed. heartbeat_ms never moves backwards: a record read before the
  // last heartbeat() keeps the newer heartbeat, so a slow writer cannot make its runner
  // look dead.
  virtual Result<bool> update(const TaskRecord& record) = 0;

  // The owner's tasks, oldest first (created_ms, then id), at most `limit`, after task
  // `after_id` when given. An after_id that is not one of the owner's tasks (any more) is an
  // error, so a bad cursor is never mistaken for the end of the list.
  virtual Result<std::vector<TaskRecord>> list(std::string_view owner, std::optional<std::string_view> after_id,
                                               std::size_t limit) = 0;

  // Sets heartbeat_ms = now_ms on every non-terminal task whose runner is `runner` (the
  // version is not bumped: a heartbeat must not make the runner's own update() fail).
  virtual Result<void> heartbeat(std::string_view runner, std::int64_t now_ms) = 0;

  // Every non-terminal task (working or input_required) with a non-empty runner whose
  // heartbeat_ms < stale_before_ms becomes failed, with error kAbandonedTaskError, its
  // message as status_message, runner "", updated_ms now_ms, version+1. Returns how many.
  // Also used at start for this node's own id.
  virtual Result<std::size_t> fail_abandoned(std::int64_t stale_before_ms, std::int64_t now_ms) = 0;

  // Same, for the tasks of one runner regardless of heartbeat (a node restarting with the same id).
  virtual Result<std::size_t> fail_runner(std::string_view runner, std::int64_t now_ms) = 0;

  // Deletes tasks with created_ms + ttl_ms < now_ms. Returns how many.
  virtual Result<std::size_t> sweep_expired(std::int64_t now_ms) = 0;
};

// `location`: "postgresql://..." or "postgres://..." (a libpq URI) → PostgreSQL; anything else
// is a SQLite file path (relative paths were already resolved by the config). Errors name the
// file / the server (never a password). An unreachable PostgreSQL server is not an error here:
// it is logged, and each call reports it until the server answers.
Result<std::unique_ptr<TaskStore>> open_task_store(const std::string& location);

// Why `record` cannot be stored, naming the field; both stores refuse the same records:
// an id that is not 64 lowercase hex digits, an empty owner or tool, a text field that is not
// UTF-8 or holds a NUL byte (PostgreSQL text cannot), a negative time or duration.
Result<void> check_task_record(const TaskRecord& record);

// created_ms + ttl_ms, saturated instead of overflowing: the moment sweep_expired may delete it.
std::int64_t task_expires_ms(const TaskRecord& record);

// Whether `id` has the shape of a task id (64 lowercase hex digits).
bool is_task_id(std::string_view id);

}  // namespace airlock::host
