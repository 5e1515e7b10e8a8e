#include "executor/executor.hpp"

namespace airlock::host {

Executor::Executor(std::uint32_t workers, std::size_t capacity) : capacity_(capacity) {
  workers_.reserve(workers);
  running_ = workers;
  for (std::uint32_t i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
}

Executor::~Executor() { shutdown(); }

bool Executor::try_submit(std::function<void()>& job, std::size_t bytes) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= capacity_) return false;
    queue_.push_back({std::move(job), bytes});
    queued_bytes_.store(queued_bytes_.load(std::memory_order_relaxed) + bytes, std::memory_order_relaxed);
  }
  wake_.notify_one();
  return true;
}

bool Executor::wait_until_queued_under(std::size_t bytes, std::chrono::milliseconds most) {
  // Most calls find room: no lock for them.
  if (queued_bytes_.load(std::memory_order_relaxed) < bytes) return true;
  std::unique_lock lock(mutex_);
  ++room_waiters_;
  const bool room = room_.wait_for(lock, most, [&] {
    return stopping_ || queued_bytes_.load(std::memory_order_relaxed) < bytes;
  });
  --room_waiters_;
  return room;
}

void Executor::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  room_.notify_all();
  for (auto& worker : workers_)
    if (worker.joinable()) worker.join();
  workers_.clear();
}

bool Executor::shutdown(std::chrono::milliseconds grace) {
  {
    std::unique_lock lock(mutex_);
    stopping_ = true;
    wake_.notify_all();
    if (!ended_.wait_for(lock, grace, [this] { return running_ == 0; })) {
      for (auto& worker : workers_)
        if (worker.joinable()) worker.detach();
      workers_.clear();
      return false;
    }
  }
  shutdown();
  return true;
}

void Executor::work() {
  // Counted out however the loop ends, so shutdown(grace) sees every
  // thread that returned.
  struct Ended {
    Executor& pool;
    ~Ended() {
      std::lock_guard lock(pool.mutex_);
      --pool.running_;
      pool.ended_.notify_all();
    }
  } ended{*this};
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to run
      job = std::move(queue_.front().job);
      queued_bytes_.store(queued_bytes_.load(std::memory_order_relaxed) - queue_.front().bytes,
                          std::memory_order_relaxed);
      queue_.pop_front();
      // Only a transport with more to read waits, and rarely: most jobs
      // start with nobody to tell.
      if (room_waiters_ > 0) room_.notify_all();
    }
    // A job must not throw (tool calls catch at their edge); if one does,
    // terminating beats a silently lost worker.
    job();
  }
}

}  // namespace airlock::host
