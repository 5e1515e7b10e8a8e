// Tests for the deadline thread behind timeout_ms: callbacks fire at their
// deadlines and in deadline order, a cancelled one never fires, cancel waits
// for a callback that is running, and destruction drops what is pending.
#include "executor/deadline_timer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace airlock::host {
namespace {

using namespace std::chrono_literals;
using Clock = DeadlineTimer::Clock;
using testing::ElementsAre;

TEST(DeadlineTimer, FiresACallbackNoEarlierThanItsDeadline) {
  DeadlineTimer timer;
  std::promise<Clock::time_point> fired;
  const auto when = Clock::now() + 30ms;
  timer.schedule(when, [&] { fired.set_value(Clock::now()); });
  auto future = fired.get_future();
  ASSERT_EQ(future.wait_for(5s), std::future_status::ready);
  EXPECT_GE(future.get(), when);
}

TEST(DeadlineTimer, FiresInDeadlineOrderNotScheduleOrder) {
  DeadlineTimer timer;
  std::mutex mutex;
  std::vector<std::string> order;  // guarded by mutex
  std::promise<void> last;
  const auto now = Clock::now();
  auto note = [&](const char* name) {
    std::lock_guard lock(mutex);
    order.emplace_back(name);
  };
  timer.schedule(now + 60ms, [&] {
    note("c");
    last.set_value();
  });
  timer.schedule(now + 20ms, [&] { note("a"); });
  timer.schedule(now + 40ms, [&] { note("b"); });
  ASSERT_EQ(last.get_future().wait_for(5s), std::future_status::ready);
  std::lock_guard lock(mutex);
  EXPECT_THAT(order, ElementsAre("a", "b", "c"));
}

TEST(DeadlineTimer, NeverFiresACancelledDeadline) {
  DeadlineTimer timer;
  std::atomic<bool> cancelled_fired{false};
  std::promise<void> sentinel;
  const auto id = timer.schedule(Clock::now() + 20ms, [&] { cancelled_fired = true; });
  timer.schedule(Clock::now() + 60ms, [&] { sentinel.set_value(); });
  timer.cancel(id);
  // The later sentinel fired, so the cancelled one's time has passed too.
  ASSERT_EQ(sentinel.get_future().wait_for(5s), std::future_status::ready);
  EXPECT_FALSE(cancelled_fired.load());
}

TEST(DeadlineTimer, CancelWaitsForTheCallbackRunningNow) {
  DeadlineTimer timer;
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> callback_done{false};
  const auto id = timer.schedule(Clock::now(), [&] {
    started.set_value();
    released.wait();
    callback_done = true;
  });
  ASSERT_EQ(started.get_future().wait_for(5s), std::future_status::ready);

  std::atomic<bool> cancel_returned{false};
  std::thread canceller([&] {
    timer.cancel(id);
    cancel_returned = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(cancel_returned.load()) << "cancel returned while its callback still ran";
  release.set_value();
  canceller.join();
  EXPECT_TRUE(callback_done.load());
  EXPECT_TRUE(cancel_returned.load());
}

TEST(DeadlineTimer, CancelOfADeadlineThatAlreadyFiredReturnsAtOnce) {
  DeadlineTimer timer;
  std::promise<void> fired;
  const auto id = timer.schedule(Clock::now(), [&] { fired.set_value(); });
  ASSERT_EQ(fired.get_future().wait_for(5s), std::future_status::ready);
  const auto start = Clock::now();
  timer.cancel(id);
  timer.cancel(id);
  timer.cancel(987654);  // never scheduled
  EXPECT_LT(Clock::now() - start, 1s);
}

TEST(DeadlineTimer, LetsACallbackScheduleAnother) {
  DeadlineTimer timer;
  std::promise<void> second;
  timer.schedule(Clock::now(), [&] { timer.schedule(Clock::now() + 5ms, [&] { second.set_value(); }); });
  EXPECT_EQ(second.get_future().wait_for(5s), std::future_status::ready);
}

TEST(DeadlineTimer, DropsPendingDeadlinesWhenDestroyed) {
  std::atomic<bool> fired{false};
  const auto start = Clock::now();
  {
    DeadlineTimer timer;
    timer.schedule(Clock::now() + 10s, [&] { fired = true; });
  }
  EXPECT_LT(Clock::now() - start, 2s);
  EXPECT_FALSE(fired.load());
}

}  // namespace
}  // namespace airlock::host
