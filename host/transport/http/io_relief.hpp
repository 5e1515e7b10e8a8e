// Lets an I/O thread run a cheap tool call itself, where it read the request,
// instead of handing it to a worker and taking the answer back: two thread
// hand-offs a call, more than a cheap call costs (executor/call_cost.hpp).
//
// What that must not cost is the other connections: while an I/O thread runs
// a call, nothing else it serves moves. So a watcher looks every millisecond
// while calls run on I/O threads, and when one has run for over two (a cheap
// tool turned slow, or hung), a relief thread runs the io_context in that
// thread's place until the call returns. Relief threads never run calls
// themselves, so one relief thread per I/O thread is always enough.
#pragma once

#include "executor/inline_calls.hpp"

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

namespace airlock::host::http {

class IoRelief {
 public:
  using Job = InlineCalls::Job;

  // `io` is the context the I/O threads run; `io_threads` of them.
  IoRelief(boost::asio::io_context& io, std::uint32_t io_threads);
  // stop()s.
  ~IoRelief();
  IoRelief(const IoRelief&) = delete;
  IoRelief& operator=(const IoRelief&) = delete;

  // Whether the calling thread may run calls itself: an I/O thread may, a
  // relief thread never does.
  static bool may_run_inline();

  // Runs `jobs` on the calling I/O thread, in order, watched.
  void run(std::vector<Job>& jobs);

  // Ends the watcher and the relief threads; call once the io_context has
  // stopped. Idempotent.
  void stop();

 private:
  struct Running {
    std::chrono::steady_clock::time_point since;
    bool relieved = false;
  };

  void watch();
  void relieve();

  boost::asio::io_context& io_;
  const std::uint32_t max_relief_;

  std::mutex mutex_;  // guards everything below
  std::condition_variable watcher_wake_;
  std::condition_variable relief_wake_;
  std::list<Running> running_;        // calls running on I/O threads now
  std::uint32_t wanted_ = 0;          // running calls that stalled and still run
  std::uint32_t relief_threads_ = 0;  // started so far, at most max_relief_
  bool watcher_asleep_ = false;       // waiting without a timeout: run() must wake it
  bool stopping_ = false;
  std::thread watcher_;
  std::vector<std::thread> relief_;
};

}  // namespace airlock::host::http
