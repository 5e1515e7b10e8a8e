// A fixed pool of worker threads with a bounded queue: tool calls run here so
// a slow tool never blocks the transport, and a flood of calls gets "busy"
// instead of unbounded memory.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace airlock::host {

class Executor {
 public:
  Executor(std::uint32_t workers, std::size_t capacity);
  // Runs what is queued, then joins the workers.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Queues `job`; false (and `job` untouched) when `capacity` jobs already
  // wait or the pool is shutting down. Any thread.
  bool try_submit(std::function<void()>& job);

  // Stops taking jobs, runs those already queued, joins. Idempotent.
  void shutdown();
  // The same, waiting at most `grace` for the jobs to end. False when a job
  // was still running then (an in-process plugin that never returns): its
  // thread is abandoned, and the caller must leave the process with _exit,
  // since the plugin's code is still in use.
  bool shutdown(std::chrono::milliseconds grace);

 private:
  void work();

  const std::size_t capacity_;
  std::mutex mutex_;  // guards queue_ and stopping_
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::size_t running_ = 0;  // worker threads that have not returned; guarded by mutex_
  std::condition_variable ended_;
  std::vector<std::thread> workers_;
};

}  // namespace airlock::host
