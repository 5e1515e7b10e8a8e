// One suite for both task stores (SQLite file, PostgreSQL server), then what
// only one of them has: a damaged file, an unreachable server. The
// PostgreSQL half needs AIRLOCK_TEST_POSTGRES_URI, which
// run_task_store_test.sh sets after starting a throwaway cluster; without it
// those tests fail, since CI always has PostgreSQL.
#include "tasks/postgres_task_store.hpp"
#include "tasks/sqlite_task_store.hpp"
#include "tasks/task_store.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kPostgresUriVariable = "AIRLOCK_TEST_POSTGRES_URI";

// A directory of its own, removed with everything in it when the test ends.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> serial{0};
    path_ = fs::temp_directory_path() /
            ("airlock-task-store-" + std::to_string(::getpid()) + "-" + std::to_string(++serial));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string random_task_id() {
  thread_local std::mt19937_64 bits{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 64; ++i) id += kHex[bits() % 16];
  return id;
}

TaskRecord new_task(const std::string& owner, std::int64_t created_ms = 1'000) {
  TaskRecord record;
  record.id = random_task_id();
  record.owner = owner;
  record.tool = "acme.search";
  record.arguments = R"({"query":"open issues"})";
  record.protocol_version = "2025-11-25";
  record.meta = R"({"progressToken":7})";
  record.created_ms = created_ms;
  record.updated_ms = created_ms;
  record.ttl_ms = 3'600'000;
  record.poll_interval_ms = 500;
  return record;
}

// Every field, compared one by one so a failure names the field.
void expect_same(const TaskRecord& actual, const TaskRecord& expected) {
  EXPECT_EQ(actual.id, expected.id);
  EXPECT_EQ(actual.owner, expected.owner);
  EXPECT_EQ(actual.tool, expected.tool);
  EXPECT_EQ(actual.arguments, expected.arguments);
  EXPECT_EQ(actual.protocol_version, expected.protocol_version);
  EXPECT_EQ(actual.meta, expected.meta);
  EXPECT_EQ(actual.status, expected.status);
  EXPECT_EQ(actual.status_message, expected.status_message);
  EXPECT_EQ(actual.result, expected.result);
  EXPECT_EQ(actual.error, expected.error);
  EXPECT_EQ(actual.input_requests, expected.input_requests);
  EXPECT_EQ(actual.answers, expected.answers);
  EXPECT_EQ(actual.pending, expected.pending);
  EXPECT_EQ(actual.created_ms, expected.created_ms);
  EXPECT_EQ(actual.updated_ms, expected.updated_ms);
  EXPECT_EQ(actual.ttl_ms, expected.ttl_ms);
  EXPECT_EQ(actual.poll_interval_ms, expected.poll_interval_ms);
  EXPECT_EQ(actual.runner, expected.runner);
  EXPECT_EQ(actual.heartbeat_ms, expected.heartbeat_ms);
  EXPECT_EQ(actual.cancel_requested, expected.cancel_requested);
  EXPECT_EQ(actual.version, expected.version);
}

// Runs one statement on the test's PostgreSQL with plain libpq; throws when it fails.
void postgres_exec(const std::string& uri, const std::string& sql) {
  PGconn* connection = PQconnectdb(uri.c_str());
  if (PQstatus(connection) != CONNECTION_OK) {
    const std::string message = PQerrorMessage(connection);
    PQfinish(connection);
    throw std::runtime_error("cannot reach the test PostgreSQL: " + message);
  }
  PQsetNoticeProcessor(connection, [](void*, const char*) {}, nullptr);
  PGresult* result = PQexec(connection, sql.c_str());
  const auto status = PQresultStatus(result);
  const std::string message = PQresultErrorMessage(result);
  PQclear(result);
  PQfinish(connection);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) throw std::runtime_error(sql + ": " + message);
}

std::string postgres_uri() {
  const char* uri = std::getenv(kPostgresUriVariable);
  return uri != nullptr ? uri : "";
}

// A port on 127.0.0.1 that refuses connections: bound (so nobody else takes it) but not listening.
class ClosedPort {
 public:
  ClosedPort() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
      throw std::runtime_error("cannot bind a port on 127.0.0.1");
    socklen_t length = sizeof address;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }
  ~ClosedPort() { ::close(fd_); }
  ClosedPort(const ClosedPort&) = delete;
  ClosedPort& operator=(const ClosedPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// ---------------------------------------------------------------------------
// The shared suite: every test runs once per store.

enum class StoreKind { sqlite, postgresql };

void PrintTo(StoreKind kind, std::ostream* out) { *out << (kind == StoreKind::sqlite ? "sqlite" : "postgresql"); }

class TaskStoreTest : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override {
    if (GetParam() == StoreKind::sqlite) {
      location_ = (dir_.path() / "state" / "tasks.db").string();
    } else {
      location_ = postgres_uri();
      ASSERT_FALSE(location_.empty()) << kPostgresUriVariable
                                      << " is not set: run this test through tests/unit/run_task_store_test.sh "
                                         "(ctest does), which starts PostgreSQL";
      // Each test starts from no table, so creating it is tested every time too.
      postgres_exec(location_, "DROP TABLE IF EXISTS airlock_tasks");
    }
    store_ = open_store();
  }

  std::unique_ptr<TaskStore> open_store() {
    auto store = open_task_store(location_);
    if (!store) throw std::runtime_error("the store did not open: " + store.error().message);
    return std::move(*store);
  }

  // Creates `record` and returns it as stored (version 1).
  TaskRecord created(TaskRecord record) {
    auto result = store_->create(record);
    if (!result) throw std::runtime_error("create failed: " + result.error().message);
    record.version = 1;
    return record;
  }

  TaskRecord read(const TaskRecord& record) {
    auto found = store_->get(record.id, record.owner);
    if (!found) throw std::runtime_error("get failed: " + found.error().message);
    if (!*found) throw std::runtime_error("task " + record.id + " is gone");
    return **found;
  }

  TempDir dir_;
  std::string location_;
  std::unique_ptr<TaskStore> store_;
};

TEST_P(TaskStoreTest, CreateThenGetReturnsEveryFieldWithVersionOne) {
  TaskRecord record = new_task("alice");
  record.status = TaskStatus::input_required;
  record.status_message = "waiting for the user";
  record.input_requests = R"({"q1":{"method":"elicitation/create","params":{"message":"Which repo?"}}})";
  record.answers = R"({"q0":{"method":"sampling/createMessage","result":{"role":"assistant"}}})";
  record.pending = R"({"q1":"elicitation/create"})";
  record.runner = "node-a";
  record.heartbeat_ms = 1'234;
  record.cancel_requested = true;
  record.version = 42;  // whatever the caller says, a new task starts at 1
  ASSERT_TRUE(store_->create(record));

  auto found = store_->get(record.id, "alice");
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_TRUE(found->has_value());
  record.version = 1;
  expect_same(**found, record);
}

TEST_P(TaskStoreTest, AnotherOwnersTaskReadsAsNone) {
  const TaskRecord record = created(new_task("alice"));
  auto other = store_->get(record.id, "mallory");
  ASSERT_TRUE(other) << other.error().message;
  EXPECT_FALSE(other->has_value());
  auto prefix = store_->get(record.id, "alic");
  ASSERT_TRUE(prefix);
  EXPECT_FALSE(prefix->has_value());
  auto unknown = store_->get(random_task_id(), "alice");
  ASSERT_TRUE(unknown);
  EXPECT_FALSE(unknown->has_value());
  // A malformed id (from a client) is no task either, not an error.
  auto malformed = store_->get("' OR '1'='1", "alice");
  ASSERT_TRUE(malformed) << malformed.error().message;
  EXPECT_FALSE(malformed->has_value());
  EXPECT_TRUE(store_->get(record.id, "alice")->has_value());
}

TEST_P(TaskStoreTest, CreatingAnExistingIdIsAnError) {
  const TaskRecord record = created(new_task("alice"));
  TaskRecord again = new_task("mallory");
  again.id = record.id;
  auto result = store_->create(again);
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message, HasSubstr("task " + record.id + " already exists"));
  EXPECT_EQ(read(record).owner, "alice");
}

TEST_P(TaskStoreTest, RefusesRecordsItCannotKeepNamingTheField) {
  auto refused = [&](TaskRecord record) {
    auto result = store_->create(record);
    return result ? std::string("(stored)") : result.error().message;
  };
  TaskRecord bad = new_task("alice");
  bad.id = "ABC";
  EXPECT_EQ(refused(bad), "task id 'ABC': expected 64 lowercase hex digits");
  bad = new_task("alice");
  bad.id[0] = 'G';
  EXPECT_THAT(refused(bad), HasSubstr("expected 64 lowercase hex digits"));
  bad = new_task("");
  EXPECT_THAT(refused(bad), HasSubstr("the owner is empty"));
  bad = new_task("alice");
  bad.result = std::string("{\"text\":\"a\0b\"}", 14);
  EXPECT_THAT(refused(bad), HasSubstr("field 'result' holds a NUL byte"));
  bad = new_task("alice");
  bad.status_message = "\xff\xfe";
  EXPECT_THAT(refused(bad), HasSubstr("field 'status_message' is not valid UTF-8"));
  bad = new_task("alice");
  bad.ttl_ms = -1;
  EXPECT_THAT(refused(bad), HasSubstr("field 'ttl_ms' is negative"));
  auto all = store_->list("alice", std::nullopt, 100);
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->empty());
}

TEST_P(TaskStoreTest, UpdateWritesOnlyOverTheVersionItRead) {
  const TaskRecord original = created(new_task("alice"));
  TaskRecord first = original;
  first.status = TaskStatus::completed;
  first.result = R"({"content":[{"type":"text","text":"done"}]})";
  first.status_message = "finished";
  first.updated_ms = 2'000;
  auto written = store_->update(first);
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_TRUE(*written);
  first.version = 2;
  expect_same(read(original), first);

  // A writer that read version 1 lost the race: nothing of its record is written.
  TaskRecord stale = original;
  stale.status = TaskStatus::failed;
  stale.error = R"({"code":-32603,"message":"late"})";
  auto rejected = store_->update(stale);
  ASSERT_TRUE(rejected) << rejected.error().message;
  EXPECT_FALSE(*rejected);
  expect_same(read(original), first);

  // Re-read and retry works.
  TaskRecord retry = read(original);
  retry.status_message = "checked";
  ASSERT_TRUE(store_->update(retry).value());
  EXPECT_EQ(read(original).version, 3);
  EXPECT_EQ(read(original).status_message, "checked");
}

TEST_P(TaskStoreTest, UpdateNeverChangesTheImmutableFields) {
  const TaskRecord original = created(new_task("alice", 5'000));
  TaskRecord changed = original;
  changed.tool = "evil.tool";
  changed.arguments = R"({"query":"something else"})";
  changed.protocol_version = "2026-07-28";
  changed.meta = R"({"io.example/x":1})";
  changed.created_ms = 1;
  changed.ttl_ms = 1;
  changed.status_message = "progress";
  ASSERT_TRUE(store_->update(changed).value());

  const TaskRecord stored = read(original);
  EXPECT_EQ(stored.tool, original.tool);
  EXPECT_EQ(stored.arguments, original.arguments);
  EXPECT_EQ(stored.protocol_version, original.protocol_version);
  EXPECT_EQ(stored.meta, original.meta);
  EXPECT_EQ(stored.created_ms, original.created_ms);
  EXPECT_EQ(stored.ttl_ms, original.ttl_ms);
  EXPECT_EQ(stored.status_message, "progress");
  // The expiry follows the original created_ms + ttl_ms, not the update's.
  EXPECT_EQ(store_->sweep_expired(4'000).value(), 0u);
  EXPECT_TRUE(store_->get(original.id, "alice")->has_value());
}

TEST_P(TaskStoreTest, UpdateOfAnotherOwnersOrAMissingTaskWritesNothing) {
  const TaskRecord original = created(new_task("alice"));
  TaskRecord hijack = original;
  hijack.owner = "mallory";
  hijack.status = TaskStatus::cancelled;
  EXPECT_FALSE(store_->update(hijack).value());
  EXPECT_EQ(read(original).status, TaskStatus::working);
  EXPECT_EQ(read(original).version, 1);

  TaskRecord missing = new_task("alice");
  missing.version = 1;
  EXPECT_FALSE(store_->update(missing).value());
  EXPECT_FALSE(store_->get(missing.id, "alice")->has_value());
}

TEST_P(TaskStoreTest, UpdateKeepsANewerHeartbeat) {
  TaskRecord record = new_task("alice");
  record.runner = "node-a";
  record.heartbeat_ms = 100;
  const TaskRecord original = created(record);
  ASSERT_TRUE(store_->heartbeat("node-a", 900));
  TaskRecord slow_writer = original;  // read before the heartbeat
  slow_writer.status_message = "step 2";
  ASSERT_TRUE(store_->update(slow_writer).value());
  EXPECT_EQ(read(original).heartbeat_ms, 900);
  EXPECT_EQ(read(original).status_message, "step 2");
}

TEST_P(TaskStoreTest, ListsTheOwnersTasksOldestFirstInPages) {
  // Created out of order, two at the same millisecond (then ordered by id).
  const std::int64_t times[] = {3'000, 1'000, 2'000, 2'000, 5'000, 4'000};
  std::vector<TaskRecord> mine;
  for (const auto created_ms : times) mine.push_back(created(new_task("alice", created_ms)));
  created(new_task("bob", 500));
  created(new_task("bob", 6'000));
  std::sort(mine.begin(), mine.end(), [](const TaskRecord& a, const TaskRecord& b) {
    return std::tie(a.created_ms, a.id) < std::tie(b.created_ms, b.id);
  });

  auto all = store_->list("alice", std::nullopt, 100);
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), mine.size());
  for (std::size_t i = 0; i < mine.size(); ++i) expect_same((*all)[i], mine[i]);

  std::vector<std::string> paged;
  std::optional<std::string> cursor;
  for (int page = 0; page < 10; ++page) {
    auto part = store_->list("alice", cursor ? std::optional<std::string_view>(*cursor) : std::nullopt, 4);
    ASSERT_TRUE(part) << part.error().message;
    for (const auto& record : *part) paged.push_back(record.id);
    if (part->size() < 4) break;
    cursor = part->back().id;
  }
  ASSERT_EQ(paged.size(), mine.size());
  for (std::size_t i = 0; i < mine.size(); ++i) EXPECT_EQ(paged[i], mine[i].id) << "position " << i;

  auto bobs = store_->list("bob", std::nullopt, 100);
  ASSERT_TRUE(bobs);
  ASSERT_EQ(bobs->size(), 2u);
  EXPECT_EQ((*bobs)[0].created_ms, 500);
  EXPECT_TRUE(store_->list("carol", std::nullopt, 100)->empty());
  EXPECT_TRUE(store_->list("alice", std::nullopt, 0)->empty());
  auto after_last = store_->list("alice", std::string_view(mine.back().id), 10);
  ASSERT_TRUE(after_last);
  EXPECT_TRUE(after_last->empty());

  // Another owner's task is no cursor for alice: an error, not an empty page.
  auto foreign_cursor = store_->list("alice", std::string_view((*bobs)[0].id), 10);
  ASSERT_FALSE(foreign_cursor);
  EXPECT_THAT(foreign_cursor.error().message, HasSubstr("is not one of this owner's tasks"));
}

TEST_P(TaskStoreTest, HeartbeatsKeepTasksAliveAndStaleOnesFail) {
  auto running = [&](const std::string& runner, TaskStatus status, std::int64_t heartbeat_ms) {
    TaskRecord record = new_task("alice");
    record.runner = runner;
    record.status = status;
    record.heartbeat_ms = heartbeat_ms;
    if (status == TaskStatus::completed) record.result = R"({"content":[]})";
    return created(record);
  };
  const TaskRecord a_working = running("node-a", TaskStatus::working, 100);
  const TaskRecord a_asking = running("node-a", TaskStatus::input_required, 100);
  const TaskRecord a_done = running("node-a", TaskStatus::completed, 100);
  const TaskRecord b_working = running("node-b", TaskStatus::working, 100);
  const TaskRecord unassigned = running("", TaskStatus::working, 0);

  ASSERT_TRUE(store_->heartbeat("node-b", 500));
  EXPECT_EQ(read(b_working).heartbeat_ms, 500);
  EXPECT_EQ(read(b_working).version, 1);  // a heartbeat is not a write that others must re-read for
  EXPECT_EQ(read(a_done).heartbeat_ms, 100);

  auto failed = store_->fail_abandoned(300, 1'000);
  ASSERT_TRUE(failed) << failed.error().message;
  EXPECT_EQ(*failed, 2u);
  for (const auto& abandoned : {a_working, a_asking}) {
    const TaskRecord stored = read(abandoned);
    EXPECT_EQ(stored.status, TaskStatus::failed);
    EXPECT_EQ(stored.error,
              R"({"code":-32603,"message":"the server running this task stopped before it finished"})");
    EXPECT_EQ(stored.status_message, "the server running this task stopped before it finished");
    EXPECT_EQ(stored.runner, "");
    EXPECT_EQ(stored.updated_ms, 1'000);
    EXPECT_EQ(stored.version, 2);
    EXPECT_EQ(stored.result, "");
  }
  expect_same(read(a_done), a_done);
  expect_same(read(unassigned), unassigned);
  EXPECT_EQ(read(b_working).status, TaskStatus::working);
  EXPECT_EQ(store_->fail_abandoned(300, 1'100).value(), 0u);
  // A heartbeat no longer reaches a failed task.
  ASSERT_TRUE(store_->heartbeat("node-a", 2'000));
  EXPECT_EQ(read(a_working).heartbeat_ms, 100);
}

TEST_P(TaskStoreTest, FailRunnerFailsOneRunnersTasksWhateverTheirHeartbeat) {
  auto running = [&](const std::string& runner) {
    TaskRecord record = new_task("alice");
    record.runner = runner;
    record.heartbeat_ms = 10'000;
    return created(record);
  };
  const TaskRecord a1 = running("node-a");
  const TaskRecord a2 = running("node-a");
  const TaskRecord b1 = running("node-b");
  auto failed = store_->fail_runner("node-a", 20'000);
  ASSERT_TRUE(failed) << failed.error().message;
  EXPECT_EQ(*failed, 2u);
  EXPECT_EQ(read(a1).status, TaskStatus::failed);
  EXPECT_EQ(read(a2).error, std::string(kAbandonedTaskError));
  EXPECT_EQ(read(a2).updated_ms, 20'000);
  EXPECT_EQ(read(b1).status, TaskStatus::working);
  EXPECT_EQ(read(b1).runner, "node-b");
  EXPECT_EQ(store_->fail_runner("node-a", 20'001).value(), 0u);

  auto everyone = store_->fail_runner("", 20'000);
  ASSERT_FALSE(everyone);
  EXPECT_THAT(everyone.error().message, HasSubstr("the runner id is empty"));
}

TEST_P(TaskStoreTest, SweepDeletesOnlyExpiredTasks) {
  TaskRecord short_lived = new_task("alice", 1'000);
  short_lived.ttl_ms = 500;  // expires after 1'500
  TaskRecord long_lived = new_task("alice", 1'000);
  long_lived.ttl_ms = 2'000;
  TaskRecord forever = new_task("alice", 1'000);
  forever.ttl_ms = std::numeric_limits<std::int64_t>::max();  // saturates instead of overflowing
  created(short_lived);
  created(long_lived);
  created(forever);

  EXPECT_EQ(store_->sweep_expired(1'500).value(), 0u);  // kept *at least* ttl_ms
  EXPECT_EQ(store_->sweep_expired(1'501).value(), 1u);
  EXPECT_FALSE(store_->get(short_lived.id, "alice")->has_value());
  EXPECT_TRUE(store_->get(long_lived.id, "alice")->has_value());
  EXPECT_EQ(store_->sweep_expired(1'000'000).value(), 1u);
  EXPECT_TRUE(store_->get(forever.id, "alice")->has_value());
}

TEST_P(TaskStoreTest, ManyThreadsCreateAndUpdateAtOnce) {
  constexpr int kThreads = 8;
  constexpr int kTasksEach = 20;
  constexpr int kIncrementsEach = 20;
  TaskRecord counter = new_task("shared");
  counter.poll_interval_ms = 0;
  created(counter);

  std::atomic<int> failures{0};
  std::vector<std::string> first_failure(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto fail = [&](const std::string& why) {
        if (failures++ == 0) first_failure[static_cast<std::size_t>(t)] = why;
      };
      const std::string owner = "owner-" + std::to_string(t);
      for (int i = 0; i < kTasksEach; ++i) {
        TaskRecord record = new_task(owner, i);
        record.status_message = "thread " + std::to_string(t) + " task " + std::to_string(i);
        if (auto result = store_->create(record); !result) return fail(result.error().message);
        auto found = store_->get(record.id, owner);
        if (!found || !*found || (*found)->status_message != record.status_message) return fail("read back");
      }
      for (int i = 0; i < kIncrementsEach; ++i) {
        for (;;) {  // the optimistic loop: re-read and retry until our write lands
          auto current = store_->get(counter.id, "shared");
          if (!current || !*current) return fail("counter read");
          TaskRecord next = **current;
          next.poll_interval_ms += 1;
          auto written = store_->update(next);
          if (!written) return fail(written.error().message);
          if (*written) break;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& why : first_failure) EXPECT_EQ(why, "");
  ASSERT_EQ(failures.load(), 0);

  const TaskRecord final_counter = read(counter);
  EXPECT_EQ(final_counter.poll_interval_ms, kThreads * kIncrementsEach);  // no lost update
  EXPECT_EQ(final_counter.version, 1 + kThreads * kIncrementsEach);
  for (int t = 0; t < kThreads; ++t) {
    auto listed = store_->list("owner-" + std::to_string(t), std::nullopt, 1'000);
    ASSERT_TRUE(listed);
    EXPECT_EQ(listed->size(), static_cast<std::size_t>(kTasksEach));
  }
}

TEST_P(TaskStoreTest, KeepsAOneMebibyteResultWhole) {
  std::string text;
  text.reserve(1 << 20);
  for (int i = 0; text.size() < (1u << 20) - 64; ++i) text += "line " + std::to_string(i) + " \\\"quoted\\\" ü€😀\\n";
  const std::string result = R"({"content":[{"type":"text","text":")" + text + R"("}]})";
  ASSERT_GE(result.size(), (1u << 20) - 64);

  TaskRecord record = created(new_task("alice"));
  record.status = TaskStatus::completed;
  record.result = result;
  ASSERT_TRUE(store_->update(record).value());
  const TaskRecord stored = read(record);
  EXPECT_EQ(stored.result.size(), result.size());
  EXPECT_TRUE(stored.result == result);  // not EXPECT_EQ: a mismatch would print a mebibyte twice

  TaskRecord big_create = new_task("alice");
  big_create.arguments = R"({"blob":")" + text + R"("})";
  created(big_create);
  EXPECT_TRUE(read(big_create).arguments == big_create.arguments);
}

TEST_P(TaskStoreTest, KeepsUnicodeAndQuotesInEveryTextField) {
  const std::string nasty = "it's \"quoted\" \\ back\\slash '; DROP TABLE tasks; -- $1 ?1 % _ "
                            "ü 中文 עברית 😀 \u2028 \t tab";
  TaskRecord record = new_task("owner " + nasty);
  record.tool = "tool " + nasty;
  record.arguments = R"({"q":"it's \"x\" 中文 😀"})";
  record.protocol_version = "v " + nasty;
  record.meta = R"({"note":"ü \"quote\" '; --"})";
  record.status = TaskStatus::failed;
  record.status_message = nasty;
  record.result = "result " + nasty;
  record.error = R"({"code":-32000,"message":"it's 中文 😀 \"q\""})";
  record.input_requests = R"({"k'1":{"method":"elicitation/create","params":{"message":"中文 😀"}}})";
  record.answers = R"({"k\"2":{"method":"roots/list","result":{}}})";
  record.pending = R"({"k'1":"elicitation/create"})";
  record.runner = "runner " + nasty;
  created(record);

  record.version = 1;
  expect_same(read(record), record);
  auto listed = store_->list(record.owner, std::nullopt, 10);
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u);
  expect_same(listed->front(), record);
  auto other = store_->get(record.id, "owner it's");
  ASSERT_TRUE(other);
  EXPECT_FALSE(other->has_value());
}

TEST_P(TaskStoreTest, AnotherStoreOnTheSameLocationSeesTheTasks) {
  const TaskRecord record = created(new_task("alice"));
  auto second = open_store();  // a second node, or the same node after a restart
  auto found = second->get(record.id, "alice");
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_TRUE(found->has_value());
  expect_same(**found, record);
  TaskRecord next = **found;
  next.status = TaskStatus::cancelled;
  ASSERT_TRUE(second->update(next).value());
  EXPECT_EQ(read(record).status, TaskStatus::cancelled);
}

TEST_P(TaskStoreTest, StoresOpeningTogetherOnANewLocationAllWork) {
  store_.reset();
  if (GetParam() == StoreKind::postgresql) postgres_exec(location_, "DROP TABLE IF EXISTS airlock_tasks");
  else location_ = (dir_.path() / "fresh" / "tasks.db").string();
  std::vector<std::string> outcomes(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    threads.emplace_back([&, i] {
      auto store = open_task_store(location_);
      if (!store) return void(outcomes[i] = store.error().message);
      auto result = (*store)->create(new_task("alice"));
      outcomes[i] = result ? "ok" : result.error().message;
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& outcome : outcomes) EXPECT_EQ(outcome, "ok");
  store_ = open_store();
  EXPECT_EQ(store_->list("alice", std::nullopt, 10)->size(), outcomes.size());
}

TEST_P(TaskStoreTest, DescribesItsLocation) {
  if (GetParam() == StoreKind::sqlite) {
    EXPECT_EQ(store_->describe(), "sqlite " + location_);
  } else {
    const std::string described = store_->describe();
    EXPECT_THAT(described, ::testing::MatchesRegex("postgresql 127\\.0\\.0\\.1:[0-9]+/airlock"));
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, TaskStoreTest, ::testing::Values(StoreKind::sqlite, StoreKind::postgresql),
                         [](const ::testing::TestParamInfo<StoreKind>& info) {
                           return info.param == StoreKind::sqlite ? std::string("Sqlite") : std::string("Postgresql");
                         });

// ---------------------------------------------------------------------------
// SQLite only: the file.

TEST(SqliteTaskStoreTest, AFileThatIsNotADatabaseIsNamedAtOpen) {
  const TempDir dir;
  const fs::path file = dir.path() / "tasks.db";
  {
    std::ofstream out(file, std::ios::binary);
    for (int i = 0; i < 512; ++i) out << "this is not an SQLite database, just text. ";
  }
  auto store = open_task_store(file.string());
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().message, file.string() + ": not a valid task database (sqlite: file is not a database)");
}

TEST(SqliteTaskStoreTest, ADamagedDatabaseIsNamedAtOpen) {
  const TempDir dir;
  const fs::path file = dir.path() / "tasks.db";
  {
    auto store = open_task_store(file.string());
    ASSERT_TRUE(store) << store.error().message;
    for (int i = 0; i < 200; ++i) {
      TaskRecord record = new_task("alice", i);
      record.result = std::string(2'000, 'x');
      ASSERT_TRUE((*store)->create(record));
    }
  }
  // Every page after the header page: the schema page survives, the data does not.
  {
    std::fstream io(file, std::ios::binary | std::ios::in | std::ios::out);
    io.seekp(4096);
    const std::string garbage(fs::file_size(file) - 4096, '\x5a');
    io.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  auto store = open_task_store(file.string());
  ASSERT_FALSE(store);
  EXPECT_THAT(store.error().message, ::testing::StartsWith(file.string() + ": not a valid task database ("));
}

TEST(SqliteTaskStoreTest, AnotherProgramsDatabaseIsRefused) {
  const TempDir dir;
  const fs::path file = dir.path() / "notes.db";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE notes (text TEXT)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto store = open_task_store(file.string());
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().message, file.string() + ": not a valid task database (it holds other tables)");
}

TEST(SqliteTaskStoreTest, ANewerSchemaIsRefused) {
  const TempDir dir;
  const fs::path file = dir.path() / "tasks.db";
  ASSERT_TRUE(open_task_store(file.string()));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 9", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto store = open_task_store(file.string());
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().message,
            file.string() + ": the task database has schema version 9, newer than this airlock's 1");
}

TEST(SqliteTaskStoreTest, CreatesThePrivateFileAndItsDirectories) {
  const TempDir dir;
  const fs::path file = dir.path() / "state" / "airlock" / "tasks.db";
  const mode_t old_mask = ::umask(022);
  auto store = open_task_store(file.string());
  ::umask(old_mask);
  ASSERT_TRUE(store) << store.error().message;
  ASSERT_TRUE((*store)->create(new_task("alice")));
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((dir.path() / "state").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((file.string() + "-wal").c_str(), &info), 0) << "not in WAL mode?";
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST(SqliteTaskStoreTest, AnUnusablePathIsNamed) {
  const TempDir dir;
  const fs::path blocker = dir.path() / "a-file";
  std::ofstream(blocker) << "x";
  auto under_file = open_task_store((blocker / "tasks.db").string());
  ASSERT_FALSE(under_file);
  EXPECT_THAT(under_file.error().message, HasSubstr((blocker / "tasks.db").string()));
  auto directory = open_task_store(dir.path().string());
  ASSERT_FALSE(directory);
  EXPECT_THAT(directory.error().message, HasSubstr(dir.path().string() + ": cannot open the task database"));
  auto empty = open_task_store("");
  ASSERT_FALSE(empty);
  EXPECT_THAT(empty.error().message, HasSubstr("the location is empty"));
}

// ---------------------------------------------------------------------------
// PostgreSQL only: the server and its connections.

constexpr const char* kPassword = "s3cret-Passw0rd";

TEST(PostgresTaskStoreTest, AnUnreachableServerFailsEachCallNotTheOpen) {
  const ClosedPort closed;
  const std::string where = "127.0.0.1:" + std::to_string(closed.port()) + "/airlock";
  auto store = open_task_store(std::string("postgresql://airlock:") + kPassword + "@" + where);
  ASSERT_TRUE(store) << store.error().message;
  EXPECT_EQ((*store)->describe(), "postgresql " + where);

  auto created = (*store)->create(new_task("alice"));
  ASSERT_FALSE(created);
  EXPECT_THAT(created.error().message, ::testing::StartsWith("postgresql " + where + ": create task: "));
  EXPECT_THAT(created.error().message, HasSubstr("Connection refused"));
  EXPECT_THAT(created.error().message, Not(HasSubstr(kPassword)));
  EXPECT_THAT(created.error().message, Not(HasSubstr("\n")));

  // The next call tries again (and fails again), it does not remember the failure.
  auto read = (*store)->get(random_task_id(), "alice");
  ASSERT_FALSE(read);
  EXPECT_THAT(read.error().message, ::testing::StartsWith("postgresql " + where + ": read task: "));
  auto swept = (*store)->sweep_expired(1);
  ASSERT_FALSE(swept);
  EXPECT_THAT(swept.error().message, Not(HasSubstr(kPassword)));
}

TEST(PostgresTaskStoreTest, AMalformedUriIsAnErrorWithoutThePassword) {
  auto store = open_task_store(std::string("postgresql://airlock:") + kPassword + "@[::1/airlock");
  ASSERT_FALSE(store);
  EXPECT_THAT(store.error().message, HasSubstr("postgresql task store: malformed URI"));
  EXPECT_THAT(store.error().message, Not(HasSubstr(kPassword)));
  auto query_password = open_task_store(std::string("postgres://airlock@127.0.0.1:1/airlock?password=") + kPassword +
                                        "&bogus_option=1");
  ASSERT_FALSE(query_password);
  EXPECT_THAT(query_password.error().message, Not(HasSubstr(kPassword)));
}

TEST(PostgresTaskStoreTest, RecoversWhenItsConnectionsAreKilled) {
  const std::string uri = postgres_uri();
  ASSERT_FALSE(uri.empty()) << kPostgresUriVariable << " is not set: run through tests/unit/run_task_store_test.sh";
  postgres_exec(uri, "DROP TABLE IF EXISTS airlock_tasks");
  auto store = open_task_store(uri);
  ASSERT_TRUE(store) << store.error().message;
  const TaskRecord record = new_task("alice");
  ASSERT_TRUE((*store)->create(record));

  // As a server restart would: every connection of the store is cut.
  postgres_exec(uri, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'airlock'");
  for (int i = 0; i < 100; ++i) {
    PGconn* connection = PQconnectdb(uri.c_str());
    PGresult* left = PQexec(connection, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'airlock'");
    const bool gone = PQresultStatus(left) == PGRES_TUPLES_OK && std::string(PQgetvalue(left, 0, 0)) == "0";
    PQclear(left);
    PQfinish(connection);
    if (gone) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  auto broken = (*store)->get(record.id, "alice");
  ASSERT_FALSE(broken) << "a cut connection went unnoticed";
  EXPECT_THAT(broken.error().message, ::testing::StartsWith((*store)->describe() + ": read task: "));
  auto again = (*store)->get(record.id, "alice");
  ASSERT_TRUE(again) << again.error().message;
  ASSERT_TRUE(again->has_value());
  EXPECT_EQ((**again).id, record.id);
}

}  // namespace
}  // namespace airlock::host
