#include "executor/deadline_timer.hpp"

namespace airlock::host {

DeadlineTimer::DeadlineTimer() : thread_([this] { run(); }) {}

DeadlineTimer::~DeadlineTimer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

DeadlineTimer::Id DeadlineTimer::schedule(Clock::time_point when, std::function<void()> fire) {
  Id id;
  bool earliest;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
    const auto at = pending_.emplace(when, std::make_pair(id, std::move(fire)));
    by_id_.emplace(id, at);
    earliest = at == pending_.begin();
  }
  // The thread sleeps until the earliest deadline; a later one changes
  // nothing it waits for. Calls share one timeout, so each new deadline is
  // almost always the latest, and waking the thread per call cost a context
  // switch each time.
  if (earliest) wake_.notify_all();
  return id;
}

void DeadlineTimer::cancel(Id id) {
  std::unique_lock lock(mutex_);
  if (auto it = by_id_.find(id); it != by_id_.end()) {
    pending_.erase(it->second);
    by_id_.erase(it);
    return;
  }
  ran_.wait(lock, [&] { return running_ != id; });
}

void DeadlineTimer::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (pending_.empty()) {
      wake_.wait(lock);
      continue;
    }
    const auto next = pending_.begin()->first;
    if (Clock::now() < next) {
      wake_.wait_until(lock, next);
      continue;
    }
    auto fire = std::move(pending_.begin()->second.second);
    running_ = pending_.begin()->second.first;
    by_id_.erase(running_);
    pending_.erase(pending_.begin());
    // Unlocked while it runs, so the callback may schedule or cancel others.
    lock.unlock();
    fire();
    lock.lock();
    running_ = 0;
    ran_.notify_all();
  }
}

}  // namespace airlock::host
