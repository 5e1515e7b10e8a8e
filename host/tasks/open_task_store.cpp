// Opening the store a location names: a SQLite file here, or PostgreSQL
// through its module (airlock-tasks-postgres.so), loaded only when the
// location asks for it, so a server that keeps its tasks in SQLite never
// maps libpq and the TLS, Kerberos and LDAP libraries behind it.
#include "tasks/task_store.hpp"

#include "tasks/sqlite_task_store.hpp"
#include "util/host_module.hpp"

namespace airlock::host {
namespace {

constexpr std::string_view kPostgresModule = "airlock-tasks-postgres.so";
using OpenPostgres = void(const std::string& uri, Result<std::unique_ptr<TaskStore>>& out);

}  // namespace

Result<std::unique_ptr<TaskStore>> open_task_store(const std::string& location) {
  if (location.starts_with("postgresql://") || location.starts_with("postgres://")) {
    static const Result<OpenPostgres*> open_postgres = load_host_module_entry<OpenPostgres>(
        kPostgresModule, "airlock_tasks_postgres_abi", kTaskStoreAbi, "airlock_open_postgres_store");
    if (!open_postgres) return Error{"task store: PostgreSQL is unavailable: " + open_postgres.error().message};
    Result<std::unique_ptr<TaskStore>> store = Error{"task store: the PostgreSQL module opened nothing"};
    (*open_postgres)(location, store);
    return store;
  }
  if (location.empty()) return Error{"task store: the location is empty (a SQLite file path or a postgresql:// URI)"};
  auto store = SqliteTaskStore::open(location);
  if (!store) return store.error();
  return std::unique_ptr<TaskStore>(std::move(*store));
}

}  // namespace airlock::host
