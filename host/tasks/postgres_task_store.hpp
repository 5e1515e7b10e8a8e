// The shared task store: one PostgreSQL database that several airlock nodes
// use at once, through libpq. A few connections are pooled; one that breaks
// is dropped (with the idle ones, likely broken by the same server restart),
// and the next call connects again. Parameterized statements only.
#pragma once

#include "tasks/task_store.hpp"

#include <memory>
#include <string>

namespace airlock::host {

class PostgresTaskStore final : public TaskStore {
 public:
  // `uri`: a libpq URI, postgresql://user:password@host:port/dbname?options. A malformed URI
  // is an error; an unreachable server is not (it is logged, every call then says so and
  // tries again). Creates table airlock_tasks when absent, under an advisory lock so that
  // nodes starting together do not race. Neither describe() nor any message shows the password.
  static Result<std::unique_ptr<PostgresTaskStore>> open(const std::string& uri);
  ~PostgresTaskStore() override;

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
  class Pool;  // the server's address, its connections, and whether the table is known to exist

  explicit PostgresTaskStore(std::unique_ptr<Pool> pool);

  std::unique_ptr<Pool> pool_;
};

}  // namespace airlock::host
