#include "executor/executor.hpp"

namespace airlock::host {

Executor::Executor(std::uint32_t workers, std::size_t capacity) : capacity_(capacity) {
  workers_.reserve(workers);
  for (std::uint32_t i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
}

Executor::~Executor() { shutdown(); }

bool Executor::try_submit(std::function<void()>& job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= capacity_) return false;
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void Executor::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_)
    if (worker.joinable()) worker.join();
  workers_.clear();
}

void Executor::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to run
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    // A job must not throw (tool calls catch at their edge); if one does,
    // terminating beats a silently lost worker.
    job();
  }
}

}  // namespace airlock::host
