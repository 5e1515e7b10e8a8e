// Where a transport that reads on one thread collects the cheap calls of
// what it just read, to run them itself instead of handing each to a
// worker: a hand-off is a wake and a context switch, more than a cheap
// call costs (see CallCost). The stdio transport opens one around each
// chunk it dispatches, when another thread can take over reading meanwhile;
// an HTTP connection around each request it hands its session, except on a
// relief thread (transport/http/io_relief.hpp). Elsewhere nothing is open
// and every call goes to the executor.
#pragma once

#include <functional>
#include <vector>

namespace airlock::host {

class InlineCalls {
 public:
  using Job = std::function<void()>;

  // Opens collection into `sink` on the calling thread until destroyed;
  // the collection open before, if any, is open again afterwards.
  explicit InlineCalls(std::vector<Job>& sink);
  ~InlineCalls();
  InlineCalls(const InlineCalls&) = delete;
  InlineCalls& operator=(const InlineCalls&) = delete;

  // True when the calling thread has collection open: `job` was moved into
  // the sink and the caller must not submit it elsewhere. False: `job` is
  // untouched.
  static bool offer(Job& job);

 private:
  std::vector<Job>* previous_;
};

}  // namespace airlock::host
