// How long a tool's calls take lately: what decides whether a call may run
// on the thread that read it (see inline_calls.hpp) instead of being handed
// to a worker.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace airlock::host {

class CallCost {
 public:
  // A call that took longer than this is not cheap, and neither is a tool
  // whose recent calls average more: a batch of them on one thread would
  // make the calls behind them wait longer than a hand-off costs.
  static constexpr std::chrono::microseconds kQuick{200};
  // A tool earns trust over this many calls before any runs on the reader.
  static constexpr std::uint32_t kWarmUp = 16;

  CallCost() = default;
  // Routes are copied while they are built, before any call runs.
  CallCost(const CallCost& other) : average_us_(other.average_us_.load()), seen_(other.seen_.load()) {}

  // Any thread. Keeps a moving average with a weight of 1/8 for the newest
  // call, so a tool that turns slow is noticed within a few calls; a single
  // slow call sends the tool's next calls to the workers at once.
  void observe(std::chrono::nanoseconds took) {
    const auto us = static_cast<std::uint32_t>(
        std::min<std::int64_t>(std::chrono::duration_cast<std::chrono::microseconds>(took).count(), 1 << 30));
    if (us > kQuick.count()) {
      average_us_.store(std::max(us, average_us_.load(std::memory_order_relaxed)), std::memory_order_relaxed);
    } else {
      const std::uint32_t old = average_us_.load(std::memory_order_relaxed);
      average_us_.store(old - old / 8 + us / 8, std::memory_order_relaxed);
    }
    if (seen_.load(std::memory_order_relaxed) < kWarmUp) seen_.fetch_add(1, std::memory_order_relaxed);
  }

  // Any thread. Relaxed on purpose: a stale answer costs one hand-off, or
  // one call run on the reader that the watchdog moves off it.
  bool quick() const {
    return seen_.load(std::memory_order_relaxed) >= kWarmUp &&
           average_us_.load(std::memory_order_relaxed) <= kQuick.count();
  }

 private:
  std::atomic<std::uint32_t> average_us_{0};
  std::atomic<std::uint32_t> seen_{0};
};

}  // namespace airlock::host
