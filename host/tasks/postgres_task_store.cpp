#include "tasks/postgres_task_store.hpp"

#include <boost/config.hpp>
#include <fmt/format.h>
#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

namespace airlock::host {

namespace {

// Connections one store holds at most; a call beyond that waits for one to come back.
constexpr std::size_t kMaxConnections = 8;
// Key of the advisory lock that serializes creating the table across nodes.
constexpr std::int64_t kSchemaLockKey = 0x61697231'7461736b;  // "air1task"

constexpr const char* kSchema[] = {
    R"sql(CREATE TABLE IF NOT EXISTS airlock_tasks (
  id text COLLATE "C" PRIMARY KEY,
  owner text NOT NULL,
  tool text NOT NULL,
  arguments text NOT NULL,
  protocol_version text NOT NULL,
  meta text NOT NULL,
  status text NOT NULL CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled')),
  status_message text NOT NULL,
  result text NOT NULL,
  error text NOT NULL,
  input_requests text NOT NULL,
  answers text NOT NULL,
  pending text NOT NULL,
  created_ms bigint NOT NULL,
  updated_ms bigint NOT NULL,
  ttl_ms bigint NOT NULL,
  expires_ms bigint NOT NULL,
  poll_interval_ms bigint NOT NULL,
  runner text NOT NULL,
  heartbeat_ms bigint NOT NULL,
  cancel_requested boolean NOT NULL,
  version bigint NOT NULL))sql",
    "CREATE INDEX IF NOT EXISTS airlock_tasks_by_owner ON airlock_tasks (owner, created_ms, id)",
    "CREATE INDEX IF NOT EXISTS airlock_tasks_by_runner ON airlock_tasks (runner) WHERE runner <> ''",
    "CREATE INDEX IF NOT EXISTS airlock_tasks_by_expiry ON airlock_tasks (expires_ms)",
};

// The columns every read returns, in the order read_row() takes them.
#define AIRLOCK_TASK_COLUMNS                                                                              \
  "id, owner, tool, arguments, protocol_version, meta, status, status_message, result, error, "          \
  "input_requests, answers, pending, created_ms, updated_ms, ttl_ms, poll_interval_ms, runner, heartbeat_ms, " \
  "cancel_requested, version"

constexpr const char* kInsert =
    "INSERT INTO airlock_tasks (id, owner, tool, arguments, protocol_version, meta, status, status_message, result, "
    "error, input_requests, answers, pending, created_ms, updated_ms, ttl_ms, expires_ms, poll_interval_ms, runner, "
    "heartbeat_ms, cancel_requested, version) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, 1)";
constexpr const char* kSelectOne = "SELECT " AIRLOCK_TASK_COLUMNS " FROM airlock_tasks WHERE id = $1 AND owner = $2";
constexpr const char* kUpdate =
    "UPDATE airlock_tasks SET status = $3, status_message = $4, result = $5, error = $6, input_requests = $7, "
    "answers = $8, pending = $9, updated_ms = $10, poll_interval_ms = $11, runner = $12, "
    "heartbeat_ms = GREATEST(heartbeat_ms, $13), cancel_requested = $14, version = version + 1 "
    "WHERE id = $1 AND owner = $2 AND version = $15";
constexpr const char* kListFirst =
    "SELECT " AIRLOCK_TASK_COLUMNS " FROM airlock_tasks WHERE owner = $1 ORDER BY created_ms, id LIMIT $2";
constexpr const char* kCursor = "SELECT created_ms FROM airlock_tasks WHERE id = $1 AND owner = $2";
constexpr const char* kListAfter =
    "SELECT " AIRLOCK_TASK_COLUMNS " FROM airlock_tasks "
    "WHERE owner = $1 AND (created_ms > $2 OR (created_ms = $2 AND id > $3)) ORDER BY created_ms, id LIMIT $4";
constexpr const char* kHeartbeat =
    "UPDATE airlock_tasks SET heartbeat_ms = $2 WHERE runner = $1 AND status IN ('working', 'input_required')";
constexpr const char* kFailStale =
    "UPDATE airlock_tasks SET status = 'failed', error = $1, status_message = $2, runner = '', updated_ms = $3, "
    "version = version + 1 WHERE status IN ('working', 'input_required') AND runner <> '' AND heartbeat_ms < $4";
constexpr const char* kFailRunner =
    "UPDATE airlock_tasks SET status = 'failed', error = $1, status_message = $2, runner = '', updated_ms = $3, "
    "version = version + 1 WHERE status IN ('working', 'input_required') AND runner = $4";
constexpr const char* kSweep = "DELETE FROM airlock_tasks WHERE expires_ms < $1";

#undef AIRLOCK_TASK_COLUMNS

struct ConnectionCloser {
  void operator()(PGconn* connection) const { PQfinish(connection); }
};
struct ResultClearer {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Connection = std::unique_ptr<PGconn, ConnectionCloser>;
using QueryResult = std::unique_ptr<PGresult, ResultClearer>;

// Parameters in libpq's text format. Text values must end in NUL, which a std::string's
// c_str() does without a copy; numbers are formatted into storage owned here.
class Params {
 public:
  Params& text(const std::string& value) {
    values_.push_back(value.c_str());
    return *this;
  }
  Params& text(std::string_view value) {
    values_.push_back(owned_.emplace_back(value).c_str());
    return *this;
  }
  Params& integer(std::int64_t value) {
    values_.push_back(owned_.emplace_back(std::to_string(value)).c_str());
    return *this;
  }
  Params& boolean(bool value) {
    values_.push_back(value ? "t" : "f");
    return *this;
  }
  int count() const { return static_cast<int>(values_.size()); }
  const char* const* values() const { return values_.data(); }

 private:
  std::deque<std::string> owned_;  // a deque: adding one never moves the others
  std::vector<const char*> values_;
};

// libpq's messages span lines ("...failed: Connection refused\n\tIs the server running...").
std::string one_line(std::string_view message) {
  std::string line;
  bool space = false;
  for (const char c : message) {
    if (c == '\n' || c == '\t' || c == '\r' || c == ' ') {
      space = !line.empty();
      continue;
    }
    if (space) line += ' ';
    space = false;
    line += c;
  }
  return line;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 && hex_value(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Every spelling of the password the URI holds (user:PASSWORD@ and ?password=), as written
// and decoded, found without libpq: its own parse errors quote the URI.
std::vector<std::string> password_spellings(std::string_view uri) {
  std::vector<std::string> spellings;
  auto add = [&](std::string_view raw) {
    if (raw.empty()) return;
    spellings.emplace_back(raw);
    spellings.push_back(percent_decoded(raw));
  };
  const auto scheme_end = uri.find("://");
  if (scheme_end != std::string_view::npos) {
    const std::string_view rest = uri.substr(scheme_end + 3);
    const std::string_view authority = rest.substr(0, rest.find_first_of("/?"));
    const auto at = authority.rfind('@');
    if (at != std::string_view::npos) {
      const std::string_view userinfo = authority.substr(0, at);
      const auto colon = userinfo.find(':');
      if (colon != std::string_view::npos) add(userinfo.substr(colon + 1));
    }
  }
  const auto query = uri.find('?');
  if (query != std::string_view::npos) {
    std::string_view params = uri.substr(query + 1);
    while (!params.empty()) {
      const std::string_view param = params.substr(0, params.find('&'));
      if (param.starts_with("password=")) add(param.substr(9));
      params.remove_prefix(std::min(params.size(), param.size() + 1));
    }
  }
  return spellings;
}

// Replaces every spelling of the password in `message`. Very short ones are left alone:
// blotting out a two-letter password would garble every word that holds those letters.
std::string scrubbed(std::string message, const std::vector<std::string>& passwords) {
  for (const auto& password : passwords) {
    if (password.size() < 4) continue;
    for (auto at = message.find(password); at != std::string::npos; at = message.find(password, at + 3))
      message.replace(at, password.size(), "***");
  }
  return message;
}

// "host:port/dbname" as an operator would name the server, from libpq's parse of the URI.
std::string server_name(PQconninfoOption* options) {
  std::string host, hostaddr, port, dbname, user;
  for (auto* option = options; option->keyword != nullptr; ++option) {
    const std::string_view keyword = option->keyword;
    const std::string value = option->val != nullptr ? option->val : "";
    if (keyword == "host") host = value;
    if (keyword == "hostaddr") hostaddr = value;
    if (keyword == "port") port = value;
    if (keyword == "dbname") dbname = value;
    if (keyword == "user") user = value;
  }
  if (host.empty()) host = hostaddr.empty() ? "(local socket)" : hostaddr;
  if (port.empty()) port = "5432";
  if (dbname.empty()) dbname = user;
  // Several hosts (failover): pair each with its port when the lists line up.
  if (host.find(',') != std::string::npos && port.find(',') != std::string::npos) {
    std::string pairs;
    std::string_view hosts = host, ports = port;
    while (!hosts.empty() && !ports.empty()) {
      const auto h = hosts.substr(0, hosts.find(','));
      const auto p = ports.substr(0, ports.find(','));
      pairs += fmt::format("{}{}:{}", pairs.empty() ? "" : ",", h, p);
      hosts.remove_prefix(std::min(hosts.size(), h.size() + 1));
      ports.remove_prefix(std::min(ports.size(), p.size() + 1));
    }
    return fmt::format("{}/{}", pairs, dbname);
  }
  return fmt::format("{}:{}/{}", host, port, dbname);
}

Result<std::int64_t> parse_integer(std::string_view text, std::string_view what) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    return Error{fmt::format("{}: '{}' from the server is not an integer", what, text)};
  return value;
}

std::string value_at(const PGresult* result, int row, int column) {
  return std::string(PQgetvalue(result, row, column), static_cast<std::size_t>(PQgetlength(result, row, column)));
}

// One row in AIRLOCK_TASK_COLUMNS order.
Result<TaskRecord> read_row(const PGresult* result, int row) {
  TaskRecord record;
  record.id = value_at(result, row, 0);
  record.owner = value_at(result, row, 1);
  record.tool = value_at(result, row, 2);
  record.arguments = value_at(result, row, 3);
  record.protocol_version = value_at(result, row, 4);
  record.meta = value_at(result, row, 5);
  const std::string status = value_at(result, row, 6);
  const auto parsed = task_status_from(status);
  if (!parsed) return Error{fmt::format("task {}: unknown status '{}' in the database", record.id, status)};
  record.status = *parsed;
  record.status_message = value_at(result, row, 7);
  record.result = value_at(result, row, 8);
  record.error = value_at(result, row, 9);
  record.input_requests = value_at(result, row, 10);
  record.answers = value_at(result, row, 11);
  record.pending = value_at(result, row, 12);
  const std::pair<std::int64_t*, int> numbers[] = {
      {&record.created_ms, 13}, {&record.updated_ms, 14},   {&record.ttl_ms, 15},
      {&record.poll_interval_ms, 16}, {&record.heartbeat_ms, 18}, {&record.version, 20},
  };
  for (const auto& [field, column] : numbers) {
    auto value = parse_integer(value_at(result, row, column), fmt::format("task {}", record.id));
    if (!value) return value.error();
    *field = *value;
  }
  record.runner = value_at(result, row, 17);
  record.cancel_requested = value_at(result, row, 19) == "t";
  return record;
}

std::int64_t clamp_limit(std::size_t limit) {
  return static_cast<std::int64_t>(std::min<std::size_t>(limit, std::numeric_limits<std::int64_t>::max()));
}

}  // namespace

// Connections to one server, handed out one per call. A call that finds the
// server unreachable fails; the next one tries again.
class PostgresTaskStore::Pool {
 public:
  Pool(std::string uri, std::string description, std::vector<std::string> passwords)
      : uri_(std::move(uri)), description_(std::move(description)), passwords_(std::move(passwords)) {}

  const std::string& description() const { return description_; }

  // The message for a failure of `what`: the server's name first, never the password.
  Error error(std::string_view what, std::string_view message) const {
    return Error{fmt::format("{}: {}: {}", description_, what, scrubbed(one_line(message), passwords_))};
  }

  // Runs `statement` on a pooled connection; the result must have `expected` status.
  // On failure, `sqlstate` (when given) receives the server's SQLSTATE ("23505": a duplicate key).
  Result<QueryResult> run(std::string_view what, const char* statement, const Params& params,
                          ExecStatusType expected, std::string* sqlstate = nullptr) {
    auto lease = acquire(what);
    if (!lease) return lease.error();
    QueryResult result(
        PQexecParams(lease->get(), statement, params.count(), nullptr, params.values(), nullptr, nullptr, 0));
    if (!result || PQresultStatus(result.get()) != expected) {
      const std::string message =
          result ? PQresultErrorMessage(result.get()) : PQerrorMessage(lease->get());
      const char* state = result ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE) : nullptr;
      if (sqlstate != nullptr) *sqlstate = state != nullptr ? state : "";
      release(std::move(*lease));
      return error(what, message);
    }
    release(std::move(*lease));
    return result;
  }

  // Opens one connection now, so a store that cannot reach its server says so at start.
  Result<void> probe() {
    auto lease = acquire("connect");
    if (!lease) return lease.error();
    release(std::move(*lease));
    return {};
  }

 private:
  Result<Connection> acquire(std::string_view what) {
    {
      std::unique_lock lock(mutex_);
      slot_free_.wait(lock, [&] { return in_use_ < kMaxConnections; });
      ++in_use_;
      if (!idle_.empty()) {
        Connection connection = std::move(idle_.back());
        idle_.pop_back();
        return connection;
      }
    }
    // Connecting takes a round trip or a timeout: never while holding the lock.
    auto connection = connect(what);
    if (connection && !schema_ready_.load(std::memory_order_acquire)) {
      if (auto created = create_schema(connection->get(), what); !created) connection = created.error();
    }
    if (!connection) {
      std::lock_guard lock(mutex_);
      --in_use_;
      slot_free_.notify_one();
    }
    return connection;
  }

  void release(Connection connection) {
    const bool healthy = PQstatus(connection.get()) == CONNECTION_OK &&
                         PQtransactionStatus(connection.get()) == PQTRANS_IDLE;
    std::vector<Connection> broken;
    {
      std::lock_guard lock(mutex_);
      --in_use_;
      if (healthy) {
        idle_.push_back(std::move(connection));
      } else {
        // The server restarted or went away: the idle connections broke with this one.
        broken.swap(idle_);
        broken.push_back(std::move(connection));
      }
      slot_free_.notify_one();
    }
    // `broken` closes here, outside the lock.
  }

  Result<Connection> connect(std::string_view what) const {
    // Ours first: the URI's own connect_timeout or application_name wins over them,
    // but the encoding is always UTF-8, which is what the records hold.
    const char* const keywords[] = {"connect_timeout", "application_name", "dbname", "client_encoding", nullptr};
    const char* const values[] = {"10", "airlock", uri_.c_str(), "UTF8", nullptr};
    Connection connection(PQconnectdbParams(keywords, values, 1));
    if (!connection) return error(what, "out of memory for a connection");
    if (PQstatus(connection.get()) != CONNECTION_OK) return error(what, PQerrorMessage(connection.get()));
    // NOTICEs ("relation already exists, skipping") would otherwise go to stderr.
    PQsetNoticeProcessor(connection.get(), [](void*, const char*) {}, nullptr);
    return connection;
  }

  // The table and its indexes, once per store. The advisory lock makes nodes that start
  // together take turns: CREATE TABLE IF NOT EXISTS alone can still collide.
  Result<void> create_schema(PGconn* connection, std::string_view what) {
    auto exec = [&](const char* statement, const Params& params) -> Result<void> {
      QueryResult result(PQexecParams(connection, statement, params.count(), nullptr, params.values(), nullptr,
                                      nullptr, 0));
      const auto status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
      if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
        return error(what, fmt::format("cannot create table airlock_tasks: {}",
                                       result ? PQresultErrorMessage(result.get()) : PQerrorMessage(connection)));
      return {};
    };
    // A failure leaves the transaction open: release() then drops the connection.
    if (auto begun = exec("BEGIN", Params()); !begun) return begun;
    if (auto locked = exec("SELECT pg_advisory_xact_lock($1)", Params().integer(kSchemaLockKey)); !locked)
      return locked;
    for (const char* statement : kSchema)
      if (auto created = exec(statement, Params()); !created) return created;
    if (auto committed = exec("COMMIT", Params()); !committed) return committed;
    schema_ready_.store(true, std::memory_order_release);
    return {};
  }

  const std::string uri_;  // holds the password: only ever passed to libpq
  const std::string description_;
  const std::vector<std::string> passwords_;
  std::atomic<bool> schema_ready_{false};

  // Guards idle_ and in_use_.
  std::mutex mutex_;
  std::condition_variable slot_free_;
  std::vector<Connection> idle_;
  std::size_t in_use_ = 0;
};

PostgresTaskStore::PostgresTaskStore(std::unique_ptr<Pool> pool) : pool_(std::move(pool)) {}

PostgresTaskStore::~PostgresTaskStore() = default;

Result<std::unique_ptr<PostgresTaskStore>> PostgresTaskStore::open(const std::string& uri) {
  auto passwords = password_spellings(uri);
  char* parse_error = nullptr;
  PQconninfoOption* options = PQconninfoParse(uri.c_str(), &parse_error);
  if (options == nullptr) {
    const std::string reason = parse_error != nullptr ? parse_error : "out of memory";
    PQfreemem(parse_error);
    return Error{fmt::format("postgresql task store: malformed URI: {}", scrubbed(one_line(reason), passwords))};
  }
  for (auto* option = options; option->keyword != nullptr; ++option)
    if (std::string_view(option->keyword) == "password" && option->val != nullptr && *option->val != '\0')
      passwords.emplace_back(option->val);
  std::string description = "postgresql " + server_name(options);
  PQconninfoFree(options);

  auto pool = std::make_unique<Pool>(uri, std::move(description), std::move(passwords));
  if (auto reached = pool->probe(); !reached)
    spdlog::warn("{} (task calls fail until the server answers; each one tries again)", reached.error().message);
  return std::unique_ptr<PostgresTaskStore>(new PostgresTaskStore(std::move(pool)));
}

std::string PostgresTaskStore::describe() const { return pool_->description(); }

Result<void> PostgresTaskStore::create(const TaskRecord& record) {
  if (auto valid = check_task_record(record); !valid) return valid.error();
  Params params;
  params.text(record.id).text(record.owner).text(record.tool).text(record.arguments).text(record.protocol_version);
  params.text(record.meta).text(to_string(record.status)).text(record.status_message).text(record.result);
  params.text(record.error).text(record.input_requests).text(record.answers).text(record.pending);
  params.integer(record.created_ms).integer(record.updated_ms).integer(record.ttl_ms);
  params.integer(task_expires_ms(record)).integer(record.poll_interval_ms).text(record.runner);
  params.integer(record.heartbeat_ms).boolean(record.cancel_requested);
  std::string sqlstate;
  auto result = pool_->run("create task", kInsert, params, PGRES_COMMAND_OK, &sqlstate);
  if (!result) {
    if (sqlstate == "23505")
      return pool_->error("create task", fmt::format("task {} already exists", record.id));
    return result.error();
  }
  return {};
}

Result<std::optional<TaskRecord>> PostgresTaskStore::get(std::string_view id, std::string_view owner) {
  if (!is_task_id(id)) return std::optional<TaskRecord>();
  auto result = pool_->run("read task", kSelectOne, Params().text(id).text(owner), PGRES_TUPLES_OK);
  if (!result) return result.error();
  if (PQntuples(result->get()) == 0) return std::optional<TaskRecord>();
  auto record = read_row(result->get(), 0);
  if (!record) return record.error();
  return std::optional<TaskRecord>(std::move(*record));
}

namespace {

Result<std::size_t> changed_rows(PGresult* result) {
  auto count = parse_integer(PQcmdTuples(result), "row count");
  if (!count) return count.error();
  return static_cast<std::size_t>(*count);
}

}  // namespace

Result<bool> PostgresTaskStore::update(const TaskRecord& record) {
  if (auto valid = check_task_record(record); !valid) return valid.error();
  Params params;
  params.text(record.id).text(record.owner).text(to_string(record.status)).text(record.status_message);
  params.text(record.result).text(record.error).text(record.input_requests).text(record.answers);
  params.text(record.pending).integer(record.updated_ms).integer(record.poll_interval_ms).text(record.runner);
  params.integer(record.heartbeat_ms).boolean(record.cancel_requested).integer(record.version);
  auto result = pool_->run("update task", kUpdate, params, PGRES_COMMAND_OK);
  if (!result) return result.error();
  auto changed = changed_rows(result->get());
  if (!changed) return changed.error();
  return *changed == 1;
}

Result<std::vector<TaskRecord>> PostgresTaskStore::list(std::string_view owner,
                                                        std::optional<std::string_view> after_id, std::size_t limit) {
  std::vector<TaskRecord> records;
  if (limit == 0) return records;
  Result<QueryResult> result = Error{};
  if (after_id) {
    auto cursor = pool_->run("list tasks", kCursor, Params().text(*after_id).text(owner), PGRES_TUPLES_OK);
    if (!cursor) return cursor.error();
    if (PQntuples(cursor->get()) == 0)
      return Error{fmt::format("list tasks: the cursor task '{}' is not one of this owner's tasks",
                               is_task_id(*after_id) ? *after_id : std::string_view("(malformed)"))};
    auto after_created = parse_integer(value_at(cursor->get(), 0, 0), "list tasks");
    if (!after_created) return after_created.error();
    result = pool_->run("list tasks", kListAfter,
                        Params().text(owner).integer(*after_created).text(*after_id).integer(clamp_limit(limit)),
                        PGRES_TUPLES_OK);
  } else {
    result = pool_->run("list tasks", kListFirst, Params().text(owner).integer(clamp_limit(limit)), PGRES_TUPLES_OK);
  }
  if (!result) return result.error();
  const int rows = PQntuples(result->get());
  records.reserve(static_cast<std::size_t>(rows));
  for (int row = 0; row < rows; ++row) {
    auto record = read_row(result->get(), row);
    if (!record) return record.error();
    records.push_back(std::move(*record));
  }
  return records;
}

Result<void> PostgresTaskStore::heartbeat(std::string_view runner, std::int64_t now_ms) {
  if (runner.empty()) return Error{"task heartbeat: the runner id is empty"};
  auto result = pool_->run("task heartbeat", kHeartbeat, Params().text(runner).integer(now_ms), PGRES_COMMAND_OK);
  if (!result) return result.error();
  return {};
}

Result<std::size_t> PostgresTaskStore::fail_abandoned(std::int64_t stale_before_ms, std::int64_t now_ms) {
  Params params;
  params.text(kAbandonedTaskError).text(kAbandonedTaskMessage).integer(now_ms).integer(stale_before_ms);
  auto result = pool_->run("fail abandoned tasks", kFailStale, params, PGRES_COMMAND_OK);
  if (!result) return result.error();
  return changed_rows(result->get());
}

Result<std::size_t> PostgresTaskStore::fail_runner(std::string_view runner, std::int64_t now_ms) {
  // An empty runner would match every task nobody runs.
  if (runner.empty()) return Error{"fail runner's tasks: the runner id is empty"};
  Params params;
  params.text(kAbandonedTaskError).text(kAbandonedTaskMessage).integer(now_ms).text(runner);
  auto result = pool_->run("fail runner's tasks", kFailRunner, params, PGRES_COMMAND_OK);
  if (!result) return result.error();
  return changed_rows(result->get());
}

Result<std::size_t> PostgresTaskStore::sweep_expired(std::int64_t now_ms) {
  auto result = pool_->run("sweep expired tasks", kSweep, Params().integer(now_ms), PGRES_COMMAND_OK);
  if (!result) return result.error();
  return changed_rows(result->get());
}

}  // namespace airlock::host

// The module's two exports (tasks/open_task_store.cpp): its ABI, checked
// before the host calls anything, and the opener. C names, so the host finds
// them without knowing a mangling; C++ types, since host and module are one
// build. The store's code, vtable included, stays in the module, which the
// host never unloads.
extern "C" {
BOOST_SYMBOL_EXPORT extern const int airlock_tasks_postgres_abi;
const int airlock_tasks_postgres_abi = airlock::host::kTaskStoreAbi;

BOOST_SYMBOL_EXPORT void airlock_open_postgres_store(
    const std::string& uri, airlock::host::Result<std::unique_ptr<airlock::host::TaskStore>>& out) {
  auto store = airlock::host::PostgresTaskStore::open(uri);
  if (!store) {
    out = store.error();
  } else {
    out = std::unique_ptr<airlock::host::TaskStore>(std::move(*store));
  }
}
}
