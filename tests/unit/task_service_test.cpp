// TaskService on a real SQLite store, the canary fixture's tools loaded
// through the ABI and run on a real Executor by the one ToolCallRunner: a
// task runs its tool, keeps the raw result, and each read passes the
// reader's chain; only the owner sees, lists or cancels a task; a server
// restarting under the same node id fails the tasks it left working.
#include "mcp/task_service.hpp"

#include "calls/tool_call_runner.hpp"
#include "executor/executor.hpp"
#include "tasks/sqlite_task_store.hpp"
#include "unit_support.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canary.h"

#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace airlock::host {
namespace {

using namespace std::chrono_literals;
using testing::HasSubstr;
using testing::Not;

class TaskServiceTest : public testing::Test {
 protected:
  TaskServiceTest() : dir_("task-service") {
    config_ = unit::config_with_dirs({unit::fixture_dir("canary")});
    ChainConfig chain;
    chain.name = "default";
    chain.steps = {"canary.redact"};
    config_.chains.emplace("default", std::move(chain));
    registry_ = unit::load_registry(config_);
    auto routes = ToolRoutes::build(config_, *registry_);
    if (!routes) throw std::runtime_error(routes.error().message);
    routes_ = std::move(*routes);
    executor_ = std::make_unique<Executor>(2, 16);
    service_ = open_service("node-a");
  }
  ~TaskServiceTest() override {
    if (service_) service_->stop();
    executor_.reset();
  }

  std::unique_ptr<TaskService> open_service(const std::string& node) {
    auto store = SqliteTaskStore::open(dir_.path() / "tasks.db");
    if (!store) throw std::runtime_error(store.error().message);
    auto service = std::make_unique<TaskService>(*routes_, *executor_, runner_, std::move(*store),
                                                 TaskSettings{60'000, 100, node});
    service->start();
    return service;
  }

  TaskOrigin origin(const std::string& tool, const std::string& arguments, const std::string& owner = "alice") {
    TaskOrigin o;
    o.route = routes_->find(tool);
    if (!o.route) throw std::runtime_error("no route for " + tool);
    o.owner = owner;
    o.arguments = arguments;
    o.protocol_version = "2025-11-25";
    return o;
  }

  // The task once it is no longer working, or the last record read after 10 s.
  TaskRecord settled(const std::string& id, const std::string& owner = "alice") {
    std::optional<TaskRecord> record;
    for (const auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
      auto read = service_->get(id, owner);
      if (!read || !*read) throw std::runtime_error("the task cannot be read");
      record = **read;
      if (record->status != TaskStatus::working) break;
      std::this_thread::sleep_for(10ms);
    }
    return *record;
  }

  unit::TempDir dir_;
  Config config_;
  std::unique_ptr<PluginRegistry> registry_;
  std::unique_ptr<ToolRoutes> routes_;
  std::unique_ptr<Executor> executor_;
  ToolCallRunner runner_;
  std::unique_ptr<TaskService> service_;
};

TEST_F(TaskServiceTest, ATaskKeepsTheRawResultAndEveryReadPassesTheReadersChain) {
  auto created = service_->create(origin("canary.echo", R"({"text":"hello"})"));
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ(created->status, TaskStatus::working);
  EXPECT_EQ(created->runner, "node-a");

  const TaskRecord done = settled(created->id);
  ASSERT_EQ(done.status, TaskStatus::completed) << done.status_message << done.error;
  // Stored unsanitized, so a reader with another chain gets its own view...
  EXPECT_THAT(done.result, HasSubstr(AIRLOCK_CANARY));
  // ... and what a reader gets has passed the chain.
  RequestContext reader;
  reader.caller = "alice";
  reader.protocol_version = "2025-11-25";
  const std::string read = service_->read_result(done, reader);
  EXPECT_THAT(read, HasSubstr("hello [redacted]"));
  EXPECT_THAT(read, Not(HasSubstr(AIRLOCK_CANARY)));
  EXPECT_THAT(done.result, HasSubstr(AIRLOCK_CANARY)) << "the stored result never changes";
}

TEST_F(TaskServiceTest, OnlyTheOwnerSeesListsOrCancelsATask) {
  auto created = service_->create(origin("canary.slow", R"({"ms":5000})"));
  ASSERT_TRUE(created) << created.error().message;

  auto other = service_->get(created->id, "bob");
  ASSERT_TRUE(other);
  EXPECT_FALSE(*other) << "another owner's task reads as none";
  auto bobs = service_->list("bob", std::nullopt, 10);
  ASSERT_TRUE(bobs);
  EXPECT_TRUE(bobs->empty());
  auto refused = service_->cancel(created->id, "bob");
  ASSERT_TRUE(refused);
  EXPECT_FALSE(*refused);

  auto alices = service_->list("alice", std::nullopt, 10);
  ASSERT_TRUE(alices);
  ASSERT_EQ(alices->size(), 1u);
  EXPECT_EQ(alices->front().id, created->id);

  const auto started = std::chrono::steady_clock::now();
  auto cancelled = service_->cancel(created->id, "alice");
  ASSERT_TRUE(cancelled) << cancelled.error().message;
  ASSERT_TRUE(*cancelled);
  EXPECT_EQ((*cancelled)->status, TaskStatus::cancelled) << "at once, not when the tool notices";
  // The run was told to stop: it ends long before its 5 s, and the record stays cancelled.
  std::this_thread::sleep_for(300ms);
  const TaskRecord after = settled(created->id);
  EXPECT_EQ(after.status, TaskStatus::cancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 4s);
}

TEST_F(TaskServiceTest, ARunTheServerStopsEndsFailedSayingTheServerStopped) {
  auto created = service_->create(origin("canary.slow", R"({"ms":5000})"));
  ASSERT_TRUE(created) << created.error().message;
  std::this_thread::sleep_for(50ms);
  service_->stop();
  service_ = open_service("node-b");
  const TaskRecord after = settled(created->id);
  EXPECT_EQ(after.status, TaskStatus::failed);
  EXPECT_EQ(after.status_message, kAbandonedTaskMessage);
  EXPECT_EQ(after.error, kAbandonedTaskError);
  EXPECT_EQ(after.runner, "");
}

TEST_F(TaskServiceTest, AServerStartingUnderTheSameNodeIdFailsTheTasksThatIdLeftWorking) {
  auto created = service_->create(origin("canary.slow", R"({"ms":3000})"));
  ASSERT_TRUE(created) << created.error().message;
  // As after a crash: the store says node-a runs it, and a new node-a starts.
  auto restarted = open_service("node-a");
  auto read = restarted->get(created->id, "alice");
  ASSERT_TRUE(read && *read);
  EXPECT_EQ((*read)->status, TaskStatus::failed);
  EXPECT_EQ((*read)->status_message, kAbandonedTaskMessage);
  // The old run, stopped now, cannot bring it back: a terminal task stays as it is.
  service_->stop();
  auto later = restarted->get(created->id, "alice");
  ASSERT_TRUE(later && *later);
  EXPECT_EQ((*later)->status, TaskStatus::failed);
  restarted->stop();
}

TEST_F(TaskServiceTest, TimesAreIso8601InUtcWithMilliseconds) {
  EXPECT_EQ(TaskService::iso8601(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(TaskService::iso8601(1'700'000'000'123), "2023-11-14T22:13:20.123Z");
}

}  // namespace
}  // namespace airlock::host
