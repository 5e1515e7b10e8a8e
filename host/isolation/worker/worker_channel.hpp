// The worker's end of its socket to the server: frames out under one lock,
// and answers to the host calls the plugin's threads are waiting on.
//
// One reader (the worker's main loop) takes every frame the server sends;
// a thread that forwarded a host function waits here for the reply with
// its id, so any number of the plugin's threads may call the host at once.
#pragma once

#include "isolation/wire.hpp"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace airlock::isolation {

class WorkerChannel {
 public:
  explicit WorkerChannel(int fd) : fd_(fd) {}

  int fd() const { return fd_; }

  // Sends one frame; false when the server is gone.
  bool send(Kind kind, std::uint64_t id, std::string_view body);

  // Forwards a host function acting on `scope` (a hook call's id, or 0 for
  // the plugin) and waits for its reply body. `args` is everything after
  // the scope and the function. When the server is gone the worker exits:
  // nobody is left to answer, and the plugin must not run on unsupervised.
  std::string call(std::uint64_t scope, Fn fn, std::string_view args);

  // The same, for a function that answers nothing: sent, never waited on.
  void post(std::uint64_t scope, Fn fn, std::string_view args);

  // Called by the reader with a reply frame: wakes its caller.
  void deliver(std::uint64_t id, std::string body);

 private:
  struct Waiter {
    std::string body;
    bool done = false;
  };

  int fd_;
  std::mutex write_mutex_;  // one frame at a time on the socket
  std::mutex waiters_mutex_;  // guards next_id_ and waiters_
  std::condition_variable replied_;
  std::uint64_t next_id_ = 1;
  std::unordered_map<std::uint64_t, Waiter*> waiters_;
};

}  // namespace airlock::isolation
