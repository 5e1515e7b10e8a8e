#include "tasks/sqlite_task_store.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace airlock::host {
namespace fs = std::filesystem;

namespace {

// PRAGMA user_version of the schema below; a newer file is refused, not guessed at.
constexpr int kSchemaVersion = 1;
// PRAGMA application_id: "ALTK" (airlock tasks), so another program's SQLite file is told apart.
constexpr int kApplicationId = 0x414c544b;
// How long a statement waits for another process (a restarted node) to release the file.
constexpr int kBusyTimeoutMs = 5000;

// STRICT: a value of the wrong type is refused instead of stored. expires_ms
// (created_ms + ttl_ms) is kept so the sweep is an index range scan.
constexpr const char* kSchema = R"sql(
CREATE TABLE tasks (
  id TEXT PRIMARY KEY NOT NULL,
  owner TEXT NOT NULL,
  tool TEXT NOT NULL,
  arguments TEXT NOT NULL,
  protocol_version TEXT NOT NULL,
  meta TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled')),
  status_message TEXT NOT NULL,
  result TEXT NOT NULL,
  error TEXT NOT NULL,
  input_requests TEXT NOT NULL,
  answers TEXT NOT NULL,
  pending TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  ttl_ms INTEGER NOT NULL,
  expires_ms INTEGER NOT NULL,
  poll_interval_ms INTEGER NOT NULL,
  runner TEXT NOT NULL,
  heartbeat_ms INTEGER NOT NULL,
  cancel_requested INTEGER NOT NULL CHECK (cancel_requested IN (0, 1)),
  version INTEGER NOT NULL
) STRICT;
CREATE INDEX tasks_by_owner ON tasks (owner, created_ms, id);
CREATE INDEX tasks_by_runner ON tasks (runner) WHERE runner <> '';
CREATE INDEX tasks_by_expiry ON tasks (expires_ms);
)sql";

// The columns every read returns, in the order read_row() takes them.
#define AIRLOCK_TASK_COLUMNS                                                                              \
  "id, owner, tool, arguments, protocol_version, meta, status, status_message, result, error, "          \
  "input_requests, answers, pending, created_ms, updated_ms, ttl_ms, poll_interval_ms, runner, heartbeat_ms, " \
  "cancel_requested, version"

constexpr const char* kInsert =
    "INSERT INTO tasks (id, owner, tool, arguments, protocol_version, meta, status, status_message, result, error, "
    "input_requests, answers, pending, created_ms, updated_ms, ttl_ms, expires_ms, poll_interval_ms, runner, "
    "heartbeat_ms, cancel_requested, version) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, 1)";
constexpr const char* kSelectOne = "SELECT " AIRLOCK_TASK_COLUMNS " FROM tasks WHERE id = ?1 AND owner = ?2";
constexpr const char* kUpdate =
    "UPDATE tasks SET status = ?3, status_message = ?4, result = ?5, error = ?6, input_requests = ?7, answers = ?8, "
    "pending = ?9, updated_ms = ?10, poll_interval_ms = ?11, runner = ?12, heartbeat_ms = max(heartbeat_ms, ?13), "
    "cancel_requested = ?14, version = version + 1 WHERE id = ?1 AND owner = ?2 AND version = ?15";
constexpr const char* kListFirst =
    "SELECT " AIRLOCK_TASK_COLUMNS " FROM tasks WHERE owner = ?1 ORDER BY created_ms, id LIMIT ?2";
constexpr const char* kCursor = "SELECT created_ms FROM tasks WHERE id = ?1 AND owner = ?2";
constexpr const char* kListAfter =
    "SELECT " AIRLOCK_TASK_COLUMNS " FROM tasks WHERE owner = ?1 AND (created_ms > ?2 OR (created_ms = ?2 AND id > ?3)) "
    "ORDER BY created_ms, id LIMIT ?4";
constexpr const char* kHeartbeat =
    "UPDATE tasks SET heartbeat_ms = ?2 WHERE runner = ?1 AND status IN ('working', 'input_required')";
constexpr const char* kFailStale =
    "UPDATE tasks SET status = 'failed', error = ?1, status_message = ?2, runner = '', updated_ms = ?3, "
    "version = version + 1 WHERE status IN ('working', 'input_required') AND runner <> '' AND heartbeat_ms < ?4";
constexpr const char* kFailRunner =
    "UPDATE tasks SET status = 'failed', error = ?1, status_message = ?2, runner = '', updated_ms = ?3, "
    "version = version + 1 WHERE status IN ('working', 'input_required') AND runner = ?4";
constexpr const char* kSweep = "DELETE FROM tasks WHERE expires_ms < ?1";

#undef AIRLOCK_TASK_COLUMNS

struct DatabaseCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StatementFinalizer {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using Database = std::unique_ptr<sqlite3, DatabaseCloser>;
using Statement = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

bool is_corruption(int rc) {
  const int primary = rc & 0xff;
  return primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT;
}

// The message of the last failure on `db`, or of `rc` alone when there is no handle.
std::string sqlite_message(sqlite3* db, int rc) {
  if (db != nullptr && sqlite3_errcode(db) != SQLITE_OK) return sqlite3_errmsg(db);
  return sqlite3_errstr(rc);
}

// A failure while opening: a file that is not (or no longer) a database gets the message
// operators grep for; anything else says what could not be done.
Error open_error(const fs::path& file, sqlite3* db, int rc) {
  if (is_corruption(rc))
    return Error{fmt::format("{}: not a valid task database (sqlite: {})", file.string(), sqlite_message(db, rc))};
  return Error{fmt::format("{}: cannot open the task database (sqlite: {})", file.string(), sqlite_message(db, rc))};
}

// One use of a prepared statement: binds, steps, and resets it when done so the next
// caller finds it clean. A failed bind is reported by the first step().
class StatementUse {
 public:
  explicit StatementUse(sqlite3_stmt* statement) : statement_(statement) {}
  ~StatementUse() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }
  StatementUse(const StatementUse&) = delete;
  StatementUse& operator=(const StatementUse&) = delete;

  void text(int index, std::string_view value) {
    // An empty view may have no data pointer, which SQLite would store as NULL.
    const char* data = value.data() != nullptr ? value.data() : "";
    keep(sqlite3_bind_text64(statement_, index, data, value.size(), SQLITE_STATIC, SQLITE_UTF8));
  }
  void integer(int index, std::int64_t value) { keep(sqlite3_bind_int64(statement_, index, value)); }

  // SQLITE_ROW, SQLITE_DONE, or the failure.
  int step() { return bind_rc_ != SQLITE_OK ? bind_rc_ : sqlite3_step(statement_); }
  sqlite3_stmt* get() const { return statement_; }

 private:
  void keep(int rc) {
    if (bind_rc_ == SQLITE_OK) bind_rc_ = rc;
  }

  sqlite3_stmt* statement_;
  int bind_rc_ = SQLITE_OK;
};

std::string column_text(sqlite3_stmt* statement, int column) {
  const unsigned char* text = sqlite3_column_text(statement, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(sqlite3_column_bytes(statement, column)));
}

// One row in AIRLOCK_TASK_COLUMNS order.
Result<TaskRecord> read_row(sqlite3_stmt* statement) {
  TaskRecord record;
  record.id = column_text(statement, 0);
  record.owner = column_text(statement, 1);
  record.tool = column_text(statement, 2);
  record.arguments = column_text(statement, 3);
  record.protocol_version = column_text(statement, 4);
  record.meta = column_text(statement, 5);
  const std::string status = column_text(statement, 6);
  const auto parsed = task_status_from(status);
  if (!parsed) return Error{fmt::format("task {}: unknown status '{}' in the database", record.id, status)};
  record.status = *parsed;
  record.status_message = column_text(statement, 7);
  record.result = column_text(statement, 8);
  record.error = column_text(statement, 9);
  record.input_requests = column_text(statement, 10);
  record.answers = column_text(statement, 11);
  record.pending = column_text(statement, 12);
  record.created_ms = sqlite3_column_int64(statement, 13);
  record.updated_ms = sqlite3_column_int64(statement, 14);
  record.ttl_ms = sqlite3_column_int64(statement, 15);
  record.poll_interval_ms = sqlite3_column_int64(statement, 16);
  record.runner = column_text(statement, 17);
  record.heartbeat_ms = sqlite3_column_int64(statement, 18);
  record.cancel_requested = sqlite3_column_int64(statement, 19) != 0;
  record.version = sqlite3_column_int64(statement, 20);
  return record;
}

// The first column of the first row of `sql` as text ("" when it returns no row).
Result<std::string> query_text(const fs::path& file, sqlite3* db, const char* sql) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db, sql, -1, &raw, nullptr);
  Statement statement(raw);
  if (rc != SQLITE_OK) return open_error(file, db, rc);
  rc = sqlite3_step(statement.get());
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) return open_error(file, db, rc);
  // in_place_value: an Error can be made from a std::string too.
  return Result<std::string>(boost::system::in_place_value,
                             rc == SQLITE_ROW ? column_text(statement.get(), 0) : std::string());
}

Result<int> query_int(const fs::path& file, sqlite3* db, const char* sql) {
  auto text = query_text(file, db, sql);
  if (!text) return text.error();
  return std::atoi(text->c_str());
}

Result<void> exec(const fs::path& file, sqlite3* db, const char* sql) {
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return open_error(file, db, rc);
  return {};
}

// quick_check lists every damaged page, one per line, under a "*** in database main ***"
// heading: the first problem and how many follow are enough for a message.
std::string first_problem(std::string_view report) {
  std::vector<std::string_view> problems;
  while (!report.empty()) {
    const std::string_view line = report.substr(0, report.find('\n'));
    report.remove_prefix(std::min(report.size(), line.size() + 1));
    if (!line.empty() && !line.starts_with("***")) problems.push_back(line);
  }
  if (problems.empty()) return "unknown damage";
  if (problems.size() == 1) return std::string(problems.front());
  return fmt::format("{}, and {} more problems", problems.front(), problems.size() - 1);
}

// Missing parents are made 0700: the task store holds every tool result.
Result<void> make_parent_directories(const fs::path& file) {
  std::vector<fs::path> missing;
  for (fs::path dir = file.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    std::error_code ec;
    if (fs::exists(dir, ec)) break;
    missing.push_back(dir);
    if (dir == dir.parent_path()) break;
  }
  for (auto dir = missing.rbegin(); dir != missing.rend(); ++dir)
    if (::mkdir(dir->c_str(), 0700) != 0 && errno != EEXIST)
      return Error{fmt::format("{}: cannot create the task store's directory: {}", dir->string(), std::strerror(errno))};
  return {};
}

// One opener's turn at setting a task database up (wait_setup_turn); closing
// the descriptor ends it.
class SetupTurn {
 public:
  explicit SetupTurn(int fd) : fd_(fd) {}
  SetupTurn(SetupTurn&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  SetupTurn& operator=(SetupTurn&&) = delete;
  SetupTurn(const SetupTurn&) = delete;
  SetupTurn& operator=(const SetupTurn&) = delete;
  ~SetupTurn() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  int fd_;
};

// Creates the file 0600 before SQLite sees it (SQLite would create it 0644); its
// -wal and -shm files take the same mode from it.
Result<void> create_private_file(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Error{fmt::format("{}: cannot open the task database: {}", file.string(), std::strerror(errno))};
  struct stat info {};
  if (::fstat(fd, &info) == 0 && (info.st_mode & 0077) != 0)
    spdlog::warn("{}: the task database is readable by others than its owner (chmod 600 it)", file.string());
  ::close(fd);
  return {};
}

// Waits for this opener's turn to set the file up. Two connections setting up
// one new file at once can deadlock inside SQLite: switching to WAL upgrades
// a read lock to an exclusive one, and SQLite answers one of them "database is
// locked" at once, without its busy handler (which could only wait forever).
// So openers take turns, in this process and across processes, under an
// flock(2) on the file's directory. Not on the file itself: closing any
// descriptor of the file would drop every fcntl(2) lock SQLite holds on it in
// this process.
Result<SetupTurn> wait_setup_turn(const fs::path& file) {
  const fs::path dir = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return Error{fmt::format("{}: cannot open the task database's directory: {}", file.string(), std::strerror(errno))};
  SetupTurn turn(fd);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR)
      return Error{fmt::format("{}: cannot take the setup lock: {}", file.string(), std::strerror(errno))};
    if (std::chrono::steady_clock::now() >= deadline)
      return Error{fmt::format("{}: another opener has been setting the task database up for {} ms", file.string(),
                               kBusyTimeoutMs)};
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return turn;
}

// Makes an empty file a task database, or checks that an existing one is ours and not newer.
Result<void> prepare_schema(const fs::path& file, sqlite3* db) {
  auto application_id = query_int(file, db, "PRAGMA application_id");
  if (!application_id) return application_id.error();
  if (*application_id != 0 && *application_id != kApplicationId)
    return Error{fmt::format("{}: not a valid task database (another program's SQLite file: application_id {})",
                             file.string(), *application_id)};
  // IMMEDIATE: two processes opening a new file at once must not both create the schema.
  if (auto begun = exec(file, db, "BEGIN IMMEDIATE"); !begun) return begun.error();
  auto check_and_create = [&]() -> Result<void> {
    auto version = query_int(file, db, "PRAGMA user_version");
    if (!version) return version.error();
    if (*version == kSchemaVersion) return {};
    if (*version > kSchemaVersion)
      return Error{fmt::format("{}: the task database has schema version {}, newer than this airlock's {}",
                               file.string(), *version, kSchemaVersion)};
    auto objects = query_int(file, db, "SELECT count(*) FROM sqlite_schema");
    if (!objects) return objects.error();
    if (*objects != 0)
      return Error{fmt::format("{}: not a valid task database (it holds other tables)", file.string())};
    if (auto created = exec(file, db, kSchema); !created) return created.error();
    const std::string stamp =
        fmt::format("PRAGMA user_version = {}; PRAGMA application_id = {}", kSchemaVersion, kApplicationId);
    return exec(file, db, stamp.c_str());
  };
  auto checked = check_and_create();
  if (!checked) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return checked.error();
  }
  return exec(file, db, "COMMIT");
}

}  // namespace

struct SqliteTaskStore::Connection {
  Database db;  // declared first, so the statements below are finalized before it closes
  Statement insert, select_one, update, list_first, cursor, list_after, heartbeat, fail_stale, fail_runner, sweep;
};

SqliteTaskStore::SqliteTaskStore(fs::path file, std::unique_ptr<Connection> connection)
    : file_(std::move(file)), connection_(std::move(connection)) {}

SqliteTaskStore::~SqliteTaskStore() = default;

Result<std::unique_ptr<SqliteTaskStore>> SqliteTaskStore::open(const fs::path& file) {
  if (file.empty()) return Error{"task store: the SQLite file path is empty"};
  if (auto made = make_parent_directories(file); !made) return made.error();
  if (auto created = create_private_file(file); !created) return created.error();
  // Held until the connection is set up, at the end of this function.
  auto turn = wait_setup_turn(file);
  if (!turn) return turn.error();

  auto connection = std::make_unique<Connection>();
  sqlite3* raw = nullptr;
  // NOMUTEX: the store's own mutex serializes every use of the connection.
  const int rc = sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  connection->db.reset(raw);
  if (rc != SQLITE_OK) return open_error(file, raw, rc);
  sqlite3* db = raw;
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);

  // The first statement reads the header: a file that is not a database fails here.
  auto journal = query_text(file, db, "PRAGMA journal_mode = WAL");
  if (!journal) return journal.error();
  if (*journal != "wal")
    return Error{fmt::format("{}: cannot use write-ahead logging here (journal_mode stays '{}')", file.string(),
                             *journal)};
  // FULL in WAL mode: the WAL is synced at every commit, so an OK survives power loss too.
  if (auto synced = exec(file, db, "PRAGMA synchronous = FULL"); !synced) return synced.error();
  auto check = query_text(file, db, "PRAGMA quick_check");
  if (!check) return check.error();
  if (*check != "ok")
    return Error{fmt::format("{}: not a valid task database (sqlite quick_check: {})", file.string(),
                             first_problem(*check))};
  if (auto schema = prepare_schema(file, db); !schema) return schema.error();

  const std::pair<Statement*, const char*> statements[] = {
      {&connection->insert, kInsert},         {&connection->select_one, kSelectOne},
      {&connection->update, kUpdate},         {&connection->list_first, kListFirst},
      {&connection->cursor, kCursor},         {&connection->list_after, kListAfter},
      {&connection->heartbeat, kHeartbeat},   {&connection->fail_stale, kFailStale},
      {&connection->fail_runner, kFailRunner}, {&connection->sweep, kSweep},
  };
  for (const auto& [slot, sql] : statements) {
    sqlite3_stmt* statement = nullptr;
    const int prepared = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, nullptr);
    slot->reset(statement);
    if (prepared != SQLITE_OK) return open_error(file, db, prepared);
  }
  return std::unique_ptr<SqliteTaskStore>(new SqliteTaskStore(file, std::move(connection)));
}

std::string SqliteTaskStore::describe() const { return "sqlite " + file_.string(); }

namespace {

Error call_error(const fs::path& file, std::string_view what, sqlite3* db, int rc) {
  if (is_corruption(rc))
    return Error{fmt::format("{}: {}: the task database is damaged (sqlite: {})", file.string(), what,
                             sqlite_message(db, rc))};
  return Error{fmt::format("{}: {}: sqlite: {}", file.string(), what, sqlite_message(db, rc))};
}

std::int64_t clamp_limit(std::size_t limit) {
  return static_cast<std::int64_t>(std::min<std::size_t>(limit, std::numeric_limits<std::int64_t>::max()));
}

Result<std::size_t> run_changes(const fs::path& file, std::string_view what, sqlite3* db, StatementUse& use) {
  const int rc = use.step();
  if (rc != SQLITE_DONE) return call_error(file, what, db, rc);
  return static_cast<std::size_t>(sqlite3_changes64(db));
}

}  // namespace

Result<void> SqliteTaskStore::create(const TaskRecord& record) {
  if (auto valid = check_task_record(record); !valid) return valid.error();
  std::lock_guard lock(mutex_);
  sqlite3* db = connection_->db.get();
  StatementUse use(connection_->insert.get());
  use.text(1, record.id);
  use.text(2, record.owner);
  use.text(3, record.tool);
  use.text(4, record.arguments);
  use.text(5, record.protocol_version);
  use.text(6, record.meta);
  use.text(7, to_string(record.status));
  use.text(8, record.status_message);
  use.text(9, record.result);
  use.text(10, record.error);
  use.text(11, record.input_requests);
  use.text(12, record.answers);
  use.text(13, record.pending);
  use.integer(14, record.created_ms);
  use.integer(15, record.updated_ms);
  use.integer(16, record.ttl_ms);
  use.integer(17, task_expires_ms(record));
  use.integer(18, record.poll_interval_ms);
  use.text(19, record.runner);
  use.integer(20, record.heartbeat_ms);
  use.integer(21, record.cancel_requested ? 1 : 0);
  const int rc = use.step();
  if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
    return Error{fmt::format("{}: create task: task {} already exists", file_.string(), record.id)};
  if (rc != SQLITE_DONE) return call_error(file_, "create task", db, rc);
  return {};
}

Result<std::optional<TaskRecord>> SqliteTaskStore::get(std::string_view id, std::string_view owner) {
  if (!is_task_id(id)) return std::optional<TaskRecord>();
  std::lock_guard lock(mutex_);
  StatementUse use(connection_->select_one.get());
  use.text(1, id);
  use.text(2, owner);
  const int rc = use.step();
  if (rc == SQLITE_DONE) return std::optional<TaskRecord>();
  if (rc != SQLITE_ROW) return call_error(file_, "read task", connection_->db.get(), rc);
  auto record = read_row(use.get());
  if (!record) return record.error();
  return std::optional<TaskRecord>(std::move(*record));
}

Result<bool> SqliteTaskStore::update(const TaskRecord& record) {
  if (auto valid = check_task_record(record); !valid) return valid.error();
  std::lock_guard lock(mutex_);
  StatementUse use(connection_->update.get());
  use.text(1, record.id);
  use.text(2, record.owner);
  use.text(3, to_string(record.status));
  use.text(4, record.status_message);
  use.text(5, record.result);
  use.text(6, record.error);
  use.text(7, record.input_requests);
  use.text(8, record.answers);
  use.text(9, record.pending);
  use.integer(10, record.updated_ms);
  use.integer(11, record.poll_interval_ms);
  use.text(12, record.runner);
  use.integer(13, record.heartbeat_ms);
  use.integer(14, record.cancel_requested ? 1 : 0);
  use.integer(15, record.version);
  auto changed = run_changes(file_, "update task", connection_->db.get(), use);
  if (!changed) return changed.error();
  return *changed == 1;
}

Result<std::vector<TaskRecord>> SqliteTaskStore::list(std::string_view owner, std::optional<std::string_view> after_id,
                                                      std::size_t limit) {
  std::vector<TaskRecord> records;
  if (limit == 0) return records;
  std::lock_guard lock(mutex_);
  sqlite3* db = connection_->db.get();
  std::optional<StatementUse> use;
  if (after_id) {
    std::int64_t after_created = 0;
    {
      StatementUse cursor(connection_->cursor.get());
      cursor.text(1, *after_id);
      cursor.text(2, owner);
      const int rc = cursor.step();
      if (rc == SQLITE_DONE)
        return Error{fmt::format("list tasks: the cursor task '{}' is not one of this owner's tasks",
                                 is_task_id(*after_id) ? *after_id : std::string_view("(malformed)"))};
      if (rc != SQLITE_ROW) return call_error(file_, "list tasks", db, rc);
      after_created = sqlite3_column_int64(cursor.get(), 0);
    }
    use.emplace(connection_->list_after.get());
    use->text(1, owner);
    use->integer(2, after_created);
    use->text(3, *after_id);
    use->integer(4, clamp_limit(limit));
  } else {
    use.emplace(connection_->list_first.get());
    use->text(1, owner);
    use->integer(2, clamp_limit(limit));
  }
  for (;;) {
    const int rc = use->step();
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return call_error(file_, "list tasks", db, rc);
    auto record = read_row(use->get());
    if (!record) return record.error();
    records.push_back(std::move(*record));
  }
  return records;
}

Result<void> SqliteTaskStore::heartbeat(std::string_view runner, std::int64_t now_ms) {
  if (runner.empty()) return Error{"task heartbeat: the runner id is empty"};
  std::lock_guard lock(mutex_);
  StatementUse use(connection_->heartbeat.get());
  use.text(1, runner);
  use.integer(2, now_ms);
  auto changed = run_changes(file_, "task heartbeat", connection_->db.get(), use);
  if (!changed) return changed.error();
  return {};
}

Result<std::size_t> SqliteTaskStore::fail_abandoned(std::int64_t stale_before_ms, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  StatementUse use(connection_->fail_stale.get());
  use.text(1, kAbandonedTaskError);
  use.text(2, kAbandonedTaskMessage);
  use.integer(3, now_ms);
  use.integer(4, stale_before_ms);
  return run_changes(file_, "fail abandoned tasks", connection_->db.get(), use);
}

Result<std::size_t> SqliteTaskStore::fail_runner(std::string_view runner, std::int64_t now_ms) {
  // An empty runner would match every task nobody runs.
  if (runner.empty()) return Error{"fail runner's tasks: the runner id is empty"};
  std::lock_guard lock(mutex_);
  StatementUse use(connection_->fail_runner.get());
  use.text(1, kAbandonedTaskError);
  use.text(2, kAbandonedTaskMessage);
  use.integer(3, now_ms);
  use.text(4, runner);
  return run_changes(file_, "fail runner's tasks", connection_->db.get(), use);
}

Result<std::size_t> SqliteTaskStore::sweep_expired(std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  StatementUse use(connection_->sweep.get());
  use.integer(1, now_ms);
  return run_changes(file_, "sweep expired tasks", connection_->db.get(), use);
}

}  // namespace airlock::host
