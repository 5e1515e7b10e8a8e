// A fixed pool of worker threads with a bounded queue: tool calls run here so
// a slow tool never blocks the transport, and a flood of calls gets "busy"
// instead of unbounded memory.
#pragma once

#include <atomic>
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
  // wait or the pool is shutting down. Any thread. `bytes`: what the job
  // holds while it waits (a call's message), counted until it starts.
  bool try_submit(std::function<void()>& job, std::size_t bytes = 0);

  // Waits until the jobs waiting for a worker hold less than `bytes`, or
  // for `most`, whichever comes first; true if they do. Any thread: a
  // transport calls it before reading more calls, so a client that sends
  // faster than the workers run makes the server stop reading (and the
  // client wait) instead of making it hold every message sent.
  bool wait_until_queued_under(std::size_t bytes, std::chrono::milliseconds most);

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
  std::mutex mutex_;  // guards queue_, stopping_ and room_waiters_
  std::condition_variable wake_;
  struct Queued {
    std::function<void()> job;
    std::size_t bytes;
  };
  std::deque<Queued> queue_;
  // The sum of queue_'s bytes; written under mutex_, read without it too.
  std::atomic<std::size_t> queued_bytes_{0};
  int room_waiters_ = 0;         // threads in wait_until_queued_under
  std::condition_variable room_;
  bool stopping_ = false;
  std::size_t running_ = 0;  // worker threads that have not returned; guarded by mutex_
  std::condition_variable ended_;
  std::vector<std::thread> workers_;
};

}  // namespace airlock::host
