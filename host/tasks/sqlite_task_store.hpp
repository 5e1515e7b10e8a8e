// The embedded task store: one SQLite file (WAL, synchronous=FULL), the
// default when a single node serves. One connection serves every thread,
// one statement at a time; SQLite's busy timeout covers another process
// (a restarted node) holding the file for a moment.
#pragma once

#include "tasks/task_store.hpp"

#include <filesystem>
#include <memory>
#include <mutex>

namespace airlock::host {

class SqliteTaskStore final : public TaskStore {
 public:
  // Creates the file (mode 0600) and its missing parent directories (0700), or opens the
  // existing one and checks it (PRAGMA quick_check, the schema version). A file that is not
  // a task database is an error naming it: "<path>: not a valid task database (sqlite: ...)".
  static Result<std::unique_ptr<SqliteTaskStore>> open(const std::filesystem::path& file);
  ~SqliteTaskStore() override;

  std::string describe() const override;
  Result<void> create(const TaskRecord& record) override;
  Result<std::optional<TaskRecord>> get(std::string_view id, std::string_view owner) override;
  Result<bool> update(const TaskRecord& record) override;
  Result<std::vector<TaskRecord>> list(std::string_view owner, std::optional<std::string_view> after_id,
                                       std::size_t limit) override;
  Result<void> heartbeat(std::string_view runner, std::int64_t now_ms) override;
  Result<std::size_t> fail_abandoned(std::int64_t stale_before_ms, std::int64_t now_ms) override;
  Result<std::size_t> fail_runner(std::string_view runner, std::int64_t now_ms) override;
  Result<std::size_t> sweep_expired(std::int64_t now_ms) override;

 private:
  struct Connection;  // the sqlite3 handle and its prepared statements

  SqliteTaskStore(std::filesystem::path file, std::unique_ptr<Connection> connection);

  const std::filesystem::path file_;
  // Guards connection_ (its handle, its statements, its error message): one statement at a time.
  std::mutex mutex_;
  std::unique_ptr<Connection> connection_;
};

}  // namespace airlock::host
