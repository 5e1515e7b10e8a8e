#include "transport/http/io_relief.hpp"

namespace airlock::host::http {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// A call on an I/O thread this old gets relief; ten times CallCost::kQuick,
// so a tool that stays cheap never needs it.
constexpr auto kStalled = 2ms;
// How often the watcher looks while calls run, and how long it keeps looking
// after the last one before it sleeps until the next.
constexpr auto kWatchInterval = 1ms;
constexpr auto kWatchLinger = 100ms;

thread_local bool on_relief = false;

}  // namespace

IoRelief::IoRelief(boost::asio::io_context& io, std::uint32_t io_threads)
    : io_(io), max_relief_(io_threads), watcher_([this] { watch(); }) {}

IoRelief::~IoRelief() { stop(); }

bool IoRelief::may_run_inline() { return !on_relief; }

void IoRelief::run(std::vector<Job>& jobs) {
  // One clock read a call: the reading that ends a call starts the next.
  auto started = Clock::now();
  std::list<Running>::iterator mine;
  {
    std::lock_guard lock(mutex_);
    mine = running_.insert(running_.end(), Running{started});
    if (watcher_asleep_) {
      watcher_asleep_ = false;
      watcher_wake_.notify_one();
    }
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (i > 0) {
      std::lock_guard lock(mutex_);
      mine->since = started;
    }
    jobs[i].run();
    const auto ended = Clock::now();
    if (jobs[i].cost) jobs[i].cost->observe(ended - started);
    started = ended;
  }
  std::lock_guard lock(mutex_);
  if (mine->relieved) --wanted_;
  running_.erase(mine);
}

void IoRelief::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  watcher_wake_.notify_all();
  relief_wake_.notify_all();
  if (watcher_.joinable()) watcher_.join();
  for (auto& thread : relief_) thread.join();
  relief_.clear();
}

void IoRelief::watch() {
  std::unique_lock lock(mutex_);
  auto last_busy = Clock::now();
  while (!stopping_) {
    const auto now = Clock::now();
    if (!running_.empty()) last_busy = now;
    if (now - last_busy > kWatchLinger) {
      watcher_asleep_ = true;
      watcher_wake_.wait(lock, [this] { return !watcher_asleep_ || stopping_; });
      last_busy = Clock::now();
      continue;
    }
    for (Running& call : running_) {
      if (call.relieved || now - call.since < kStalled) continue;
      call.relieved = true;
      ++wanted_;
      if (relief_threads_ < max_relief_) {
        ++relief_threads_;
        relief_.emplace_back([this] { relieve(); });
      }
      relief_wake_.notify_one();
    }
    watcher_wake_.wait_for(lock, kWatchInterval);
  }
}

void IoRelief::relieve() {
  on_relief = true;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    relief_wake_.wait(lock, [this] { return wanted_ > 0 || stopping_; });
    // Serve while a stalled call still runs; look again between handlers.
    while (wanted_ > 0 && !stopping_) {
      if (io_.stopped()) {
        // Shutting down, and the stalled call still runs: nothing to serve.
        relief_wake_.wait_for(lock, 10ms);
        continue;
      }
      lock.unlock();
      io_.run_one_for(10ms);
      lock.lock();
    }
  }
}

}  // namespace airlock::host::http
