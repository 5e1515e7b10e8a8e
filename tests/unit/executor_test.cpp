// Tests for the worker pool: jobs run on workers, a full queue says no,
// shutdown drains what is queued, and nothing runs twice. Workers are held
// with promises so the queue fills deterministically, never by sleeping.
#include "executor/executor.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <latch>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace airlock::host {
namespace {

using namespace std::chrono_literals;

bool submit(Executor& executor, std::function<void()> job) { return executor.try_submit(job); }

// Occupies one worker until release(); wait_started() returns once it runs.
// The job holds its own shares of both signals, never the Blocker: it may
// still be waking up after the Blocker is gone.
class Blocker {
 public:
  std::function<void()> job() {
    return [started = started_, released = released_] {
      started->set_value();
      released.wait();
    };
  }
  void wait_started() { ASSERT_EQ(started_future_.wait_for(5s), std::future_status::ready); }
  void release() {
    if (!released_once_.exchange(true)) release_.set_value();
  }
  // Lets the worker go even when a test fails early, so the pool can join.
  ~Blocker() { release(); }

 private:
  std::atomic<bool> released_once_{false};
  std::shared_ptr<std::promise<void>> started_ = std::make_shared<std::promise<void>>();
  std::future<void> started_future_ = started_->get_future();
  std::promise<void> release_;
  std::shared_future<void> released_ = release_.get_future().share();
};

TEST(Executor, RunsJobsOnItsWorkerThreads) {
  constexpr int kJobs = 32;
  Executor executor(3, kJobs);
  std::mutex mutex;
  std::set<std::thread::id> threads;  // guarded by mutex
  std::atomic<int> count{0};
  std::promise<void> all_ran;
  for (int i = 0; i < kJobs; ++i) {
    ASSERT_TRUE(submit(executor, [&] {
      {
        std::lock_guard lock(mutex);
        threads.insert(std::this_thread::get_id());
      }
      if (++count == kJobs) all_ran.set_value();
    }));
  }
  // Not shutdown(): the jobs must run while the pool is open.
  ASSERT_EQ(all_ran.get_future().wait_for(5s), std::future_status::ready);
  std::lock_guard lock(mutex);
  EXPECT_FALSE(threads.contains(std::this_thread::get_id()));
  EXPECT_GE(threads.size(), 1u);
  EXPECT_LE(threads.size(), 3u);
}

TEST(Executor, RunsJobsConcurrentlyOnSeveralWorkers) {
  Executor executor(2, 4);
  // Each job waits for the other: both finish only if two workers run them.
  std::latch both(2);
  std::atomic<int> finished{0};
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(submit(executor, [&] {
      both.arrive_and_wait();
      ++finished;
    }));
  executor.shutdown();
  EXPECT_EQ(finished.load(), 2);
}

TEST(Executor, RefusesAJobWhenTheQueueIsFullAndLeavesItUntouched) {
  Executor executor(1, 2);
  Blocker blocker;
  ASSERT_TRUE(submit(executor, blocker.job()));
  blocker.wait_started();  // the worker is busy and the queue empty

  std::atomic<int> ran{0};
  ASSERT_TRUE(submit(executor, [&] { ++ran; }));
  ASSERT_TRUE(submit(executor, [&] { ++ran; }));
  std::function<void()> refused = [&] { ran += 100; };
  EXPECT_FALSE(executor.try_submit(refused));
  ASSERT_TRUE(refused) << "a refused job must be left to the caller";

  blocker.release();
  executor.shutdown();
  EXPECT_EQ(ran.load(), 2);
  refused();  // still the caller's, and still whole
  EXPECT_EQ(ran.load(), 102);
}

TEST(Executor, TakesJobsAgainOnceTheQueueDrains) {
  Executor executor(1, 1);
  Blocker first;
  ASSERT_TRUE(submit(executor, first.job()));
  first.wait_started();
  Blocker second;
  ASSERT_TRUE(submit(executor, second.job()));
  EXPECT_FALSE(submit(executor, [] {}));
  first.release();
  second.wait_started();  // the queue is empty again
  std::atomic<bool> ran{false};
  EXPECT_TRUE(submit(executor, [&] { ran = true; }));
  second.release();
  executor.shutdown();
  EXPECT_TRUE(ran.load());
}

// A transport asks before it reads more calls: the bytes of the jobs still
// waiting count, those of a job that started do not.
TEST(Executor, SaysWhenTheJobsWaitingHoldLessThanAskedFor) {
  Executor executor(1, 8);
  Blocker blocker;
  ASSERT_TRUE(submit(executor, blocker.job()));
  blocker.wait_started();
  std::function<void()> waiting = [] {};
  ASSERT_TRUE(executor.try_submit(waiting, 1000));

  EXPECT_TRUE(executor.wait_until_queued_under(1001, 0ms));
  const auto asked = std::chrono::steady_clock::now();
  EXPECT_FALSE(executor.wait_until_queued_under(1000, 50ms));
  EXPECT_GE(std::chrono::steady_clock::now() - asked, 50ms) << "gave up before the time allowed";

  // The job that held the bytes starts: a waiting transport hears of it.
  std::thread later([&] {
    std::this_thread::sleep_for(20ms);
    blocker.release();
  });
  EXPECT_TRUE(executor.wait_until_queued_under(1000, 5s));
  later.join();
}

TEST(Executor, ShutdownRunsTheJobsAlreadyQueued) {
  // Room enough that a refusal below can only mean "shutting down".
  Executor executor(1, std::size_t{1} << 24);
  Blocker blocker;
  ASSERT_TRUE(submit(executor, blocker.job()));
  blocker.wait_started();
  std::atomic<int> ran{0};
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(submit(executor, [&] { ++ran; }));

  std::thread stopper([&] { executor.shutdown(); });
  // Once shutdown has begun the pool takes nothing more; the jobs queued
  // before it are still waiting behind the blocker.
  int accepted = 0;
  bool stopped_taking = false;
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!submit(executor, [&] { ++ran; })) {
      stopped_taking = true;
      break;
    }
    ++accepted;
    std::this_thread::yield();
  }
  EXPECT_TRUE(stopped_taking) << "shutdown never stopped taking jobs";
  EXPECT_EQ(ran.load(), 0);
  blocker.release();
  stopper.join();
  EXPECT_EQ(ran.load(), 5 + accepted);
}

TEST(Executor, RefusesJobsAfterShutdown) {
  Executor executor(2, 8);
  executor.shutdown();
  std::atomic<bool> ran{false};
  std::function<void()> job = [&] { ran = true; };
  EXPECT_FALSE(executor.try_submit(job));
  EXPECT_TRUE(job);
  executor.shutdown();  // idempotent
  EXPECT_FALSE(ran.load());
}

TEST(Executor, DestructorRunsTheJobsAlreadyQueued) {
  std::atomic<int> ran{0};
  {
    Executor executor(1, 16);
    Blocker blocker;
    ASSERT_TRUE(submit(executor, blocker.job()));
    blocker.wait_started();
    for (int i = 0; i < 8; ++i) ASSERT_TRUE(submit(executor, [&] { ++ran; }));
    blocker.release();
  }
  EXPECT_EQ(ran.load(), 8);
}

TEST(Executor, RunsEveryJobExactlyOnce) {
  constexpr int kJobs = 2000;
  std::vector<std::atomic<int>> runs(kJobs);
  {
    Executor executor(4, kJobs);
    // Submitted from two threads at once, as transports and sessions do.
    std::thread other([&] {
      for (int i = 1; i < kJobs; i += 2) EXPECT_TRUE(submit(executor, [&runs, i] { ++runs[i]; }));
    });
    for (int i = 0; i < kJobs; i += 2) EXPECT_TRUE(submit(executor, [&runs, i] { ++runs[i]; }));
    other.join();
    executor.shutdown();
  }
  int wrong = 0;
  for (int i = 0; i < kJobs; ++i) wrong += runs[i].load() != 1;
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace airlock::host
