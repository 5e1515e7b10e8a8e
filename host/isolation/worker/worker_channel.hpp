// The worker's ends of its sockets to the server: the control socket and
// one lane per hook it runs at once, and the host calls the plugin's threads
// are waiting on.
//
// A hook arrives on a lane, runs on that lane's thread, and everything it
// asks of the host goes back and forth on the same lane, where the server
// thread that sent it is reading. Host calls for the plugin as a whole (and
// any made for a hook that has already returned) go on the control socket,
// whose frames the worker's main loop takes.
#pragma once

#include "isolation/lane_memory.hpp"
#include "isolation/wire.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace airlock::isolation {

// Replies awaited on one socket, by the id of the host call they answer.
class ReplyWaiters {
 public:
  struct Waiter {
    std::string body;
    bool done = false;
  };
  std::uint64_t add(Waiter& waiter);  // under the caller's lock
  // Hands a reply to its waiter; false when nobody waits for that id.
  bool deliver(std::uint64_t id, std::string body);

 private:
  std::uint64_t next_id_ = 1;
  std::unordered_map<std::uint64_t, Waiter*> waiters_;
};

// One lane. Whichever thread needs a frame from it (the lane's own thread
// waiting for its next hook, or a plugin thread waiting for a reply) reads
// it, while the others wait; a frame meant for another is handed over. In
// the usual case, a hook's thread asking the host on its own lane, the
// reader is the one waiting and nobody is woken.
class LaneChannel {
 public:
  // `fd`: the lane's socket; `memory`: its mailboxes.
  LaneChannel(int fd, LaneMemory memory) : fd_(fd), memory_(std::move(memory)) {}
  LaneChannel(const LaneChannel&) = delete;
  LaneChannel& operator=(const LaneChannel&) = delete;

  // The next hook the server sends; for the lane's thread only.
  Frame next_hook();
  // Sends a hook's answer (or anything else that wants no reply).
  void send(Kind kind, std::uint64_t id, std::string_view body);
  // A host call on this lane, and its reply body.
  std::string call(std::string_view body);
  // Returns once whoever is sending on this lane has sent.
  void quiesce() { std::lock_guard lock(write_mutex_); }

 private:
  // Reads frames until `ready` holds; `lock` holds mutex_ on entry and exit.
  template <class Ready>
  void read_until(std::unique_lock<std::mutex>& lock, Ready ready);

  const int fd_;
  LaneMemory memory_;
  std::string buffer_;  // take's; only the reading thread's
  std::mutex write_mutex_;  // one writer at a time in the server's mailbox

  std::mutex mutex_;  // guards everything below
  std::condition_variable changed_;
  bool reading_ = false;  // some thread is in recv on fd_
  ReplyWaiters replies_;
  std::deque<Frame> hooks_;  // hooks read by a thread that was waiting for a reply
};

class WorkerChannel {
 public:
  // One lane per socket in `lane_fds`, its memory in the memfd of the same
  // index in `lane_memories`.
  WorkerChannel(int control_fd, const std::vector<int>& lane_fds, const std::vector<int>& lane_memories);

  int control_fd() const { return control_fd_; }
  std::size_t lanes() const { return lanes_.size(); }
  LaneChannel& lane(std::size_t i) { return *lanes_[i]; }

  // Sends one frame on the control socket; false when the server is gone.
  bool send(Kind kind, std::uint64_t id, std::string_view body);

  // Hook `scope` is running on `lane` from now on, until left: its host
  // calls go there.
  void enter(std::uint64_t scope, LaneChannel& lane);
  void leave(std::uint64_t scope);

  // Forwards a host function acting on `scope` (a hook call's id, or 0 for
  // the plugin) and waits for its reply body. `args` is everything after
  // the scope and the function. When the server is gone the worker exits:
  // nobody is left to answer, and the plugin must not run on unsupervised.
  std::string call(std::uint64_t scope, Fn fn, std::string_view args);

  // The same, for a function that answers nothing: sent, never waited on.
  void post(std::uint64_t scope, Fn fn, std::string_view args);

  // Called by the main loop with a reply from the control socket.
  void deliver(std::uint64_t id, std::string body);

  // Returns once every lane's last answer is sent: what the hooks did
  // happens before what the caller does next.
  void quiesce() {
    for (auto& lane : lanes_) lane->quiesce();
  }

 private:
  LaneChannel* lane_of(std::uint64_t scope);

  const int control_fd_;
  std::vector<std::unique_ptr<LaneChannel>> lanes_;

  std::mutex scopes_mutex_;  // guards scopes_
  std::unordered_map<std::uint64_t, LaneChannel*> scopes_;

  std::mutex control_mutex_;  // guards control_replies_
  std::condition_variable replied_;
  ReplyWaiters control_replies_;
};

}  // namespace airlock::isolation
