// The large request bodies an HTTP server holds at once, across its
// connections ([transport.http] max_body_bytes_in_flight).
//
// Why: a body is read whole before its call starts, and is held, with its
// parsed message, the result and the response, until the response is
// written. With no bound, 32 clients sending 256 KiB each kept 32 calls'
// worth of that in memory while the workers turned through a few at a time:
// peak memory grew with the number of clients (16 MiB at one, 32 MiB at 32)
// while calls per second stayed the same.
//
// What: a body over kCountedAbove bytes (by its Content-Length) is read only
// once its bytes fit beside the others held; until then it waits unread, in
// arrival order, in the kernel's socket buffer (the client's send blocks),
// and its wait counts in the request's read_timeout_ms. Its bytes count until
// its response is written or its connection closes. A body larger than the
// whole budget is read when no other counted body is held.
//
// Not counted, so never waiting: bodies of at most kCountedAbove bytes (a
// client's answer to the server's own request, such as an elicitation, must
// not queue behind the calls that wait for it), and bodies sent without a
// Content-Length (chunked), whose size is known only once read. The bound is
// on an honest load's memory; against hostile clients the limits are
// max_connections, max_message_bytes and read_timeout_ms.
//
// Thread-safe: connections on any I/O thread acquire and release.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace airlock::host::http {

class BodyBudget {
 public:
  static constexpr std::size_t kCountedAbove = 64 * 1024;

  // `capacity`: the bytes of counted bodies held at once (at least 1).
  explicit BodyBudget(std::size_t capacity);
  BodyBudget(const BodyBudget&) = delete;
  BodyBudget& operator=(const BodyBudget&) = delete;

  // Whether a body of `bytes` is counted at all (see above).
  static bool counted(std::size_t bytes) noexcept { return bytes > kCountedAbove; }

  // Holds `bytes` for `waiter` now and returns true; or queues the request
  // and returns false, and `admitted` runs once the bytes are held for it,
  // on the thread that released room (with no lock held): it should only
  // post to the waiter's own executor. `waiter` names the wait for
  // withdraw(); one wait per waiter at a time.
  bool acquire(const void* waiter, std::size_t bytes, std::function<void()> admitted);

  // Gives up `waiter`'s queued wait: true if it was still queued (nothing is
  // held for it, `admitted` never runs); false if it was admitted already,
  // whose `admitted` has run or is running and whose bytes are held.
  bool withdraw(const void* waiter);

  // Gives back bytes held by acquire() or by an admission.
  void release(std::size_t bytes);

  // Told the bytes held and the requests waiting after every change, with
  // the budget's lock held (so in order): it should only store them. Set
  // before the first acquire().
  using Observer = std::function<void(std::size_t held_bytes, std::size_t waiting)>;
  void observe(Observer observer) { observer_ = std::move(observer); }

  std::size_t capacity() const noexcept { return capacity_; }
  std::size_t held() const;
  std::size_t waiting() const;

 private:
  struct Wait {
    const void* waiter;
    std::size_t bytes;
    std::function<void()> admitted;
  };
  // Whether `bytes` may be held beside what is held now; lock held.
  bool fits(std::size_t bytes) const noexcept {
    return held_ == 0 || (held_ <= capacity_ && bytes <= capacity_ - held_);
  }
  // Holds room for the queue's front while it fits, in order; returns their
  // `admitted`, to run once the lock is released. Lock held.
  std::vector<std::function<void()>> admit_queued();

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::size_t held_ = 0;    // <= capacity_, except while one larger body is alone
  std::deque<Wait> queue_;  // arrival order; the first waits for room, the rest for it
  Observer observer_;
  // Tells observer_, if any; lock held.
  void changed() const {
    if (observer_) observer_(held_, queue_.size());
  }
};

}  // namespace airlock::host::http
