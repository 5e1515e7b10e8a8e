// One thread that runs callbacks at their deadlines: how a tool call's
// timeout_ms fires without a timer thread per call.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace airlock::host {

class DeadlineTimer {
 public:
  using Clock = std::chrono::steady_clock;
  using Id = std::uint64_t;

  DeadlineTimer();
  // Drops what has not fired and joins the thread.
  ~DeadlineTimer();
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;

  // Runs `fire` on the timer thread at `when`, unless cancelled first. The
  // callback must be short: every later deadline waits for it.
  Id schedule(Clock::time_point when, std::function<void()> fire);

  // Forgets a deadline that has not fired. If its callback is running right
  // now, waits until it returns, so whatever the callback uses may be freed
  // once cancel returns. Never call it from inside that callback.
  void cancel(Id id);

 private:
  void run();

  using Queue = std::multimap<Clock::time_point, std::pair<Id, std::function<void()>>>;

  std::mutex mutex_;  // guards pending_, by_id_, next_id_, running_, stopping_
  std::condition_variable wake_;
  Queue pending_;
  // Cancel is on every call's path: find the entry without a scan.
  std::unordered_map<Id, Queue::iterator> by_id_;
  Id next_id_ = 1;
  Id running_ = 0;  // the callback being run, 0 when none
  std::condition_variable ran_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace airlock::host
