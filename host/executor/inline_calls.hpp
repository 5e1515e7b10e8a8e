// Where a transport that reads on one thread collects the cheap calls of
// what it just read, to run them itself instead of handing each to a
// worker: a hand-off is a wake and a context switch, more than a cheap
// call costs (see CallCost). The stdio transport opens one around each
// chunk it dispatches, when another thread can take over reading meanwhile;
// an HTTP connection around each request it hands its session, except on a
// relief thread (transport/http/io_relief.hpp). Elsewhere nothing is open
// and every call goes to the executor.
#pragma once

#include "executor/call_cost.hpp"

#include <chrono>
#include <functional>
#include <vector>

namespace airlock::host {

class InlineCalls {
 public:
  // A collected call, and where the thread that runs it reports how long it
  // took. That thread reads the clock between the calls it runs anyway (to
  // see one stall), so one reading ends a call and starts the next: a call
  // costs one clock read, not the two it would take to time itself.
  struct Job {
    std::function<void()> run;
    CallCost* cost = nullptr;  // null: nobody is told
  };

  // Opens collection into `sink` on the calling thread until destroyed;
  // the collection open before, if any, is open again afterwards.
  explicit InlineCalls(std::vector<Job>& sink);
  ~InlineCalls();
  InlineCalls(const InlineCalls&) = delete;
  InlineCalls& operator=(const InlineCalls&) = delete;

  // True when the calling thread has collection open: `run` was added to
  // it and the caller must not run it elsewhere. False: nothing happened.
  template <class Fn>
  static bool offer(Fn&& run, CallCost& cost) {
    std::vector<Job>* sink = open_sink();
    if (!sink) return false;
    sink->push_back(Job{std::forward<Fn>(run), &cost});
    return true;
  }

  // `run` as a function that times itself and tells `cost` (if any), for a
  // worker, which runs it alone between waits.
  template <class Fn>
  static std::function<void()> timed(Fn run, CallCost* cost) {
    return [run = std::move(run), cost] {
      const auto started = std::chrono::steady_clock::now();
      run();
      if (cost) cost->observe(std::chrono::steady_clock::now() - started);
    };
  }

 private:
  static std::vector<Job>* open_sink();

  std::vector<Job>* previous_;
};

}  // namespace airlock::host
