// One running airlock-worker, as the server sees it: the process, its
// sockets, its stderr, and the hook calls waiting on it.
//
// Hook calls travel on lanes: one per hook the worker runs at once, each a
// pair of mailboxes in shared memory (lane_memory.hpp) and a socket pair
// for frames too large for them, served in the worker by a thread of its
// own. A server thread takes a free lane, posts its hook, and takes the
// answer and the host calls the hook makes off that lane itself: a call
// wakes one thread on each side and no other. The control socket carries the rest (init, the plugin's own
// host calls, cancellations, shutdown); a reader thread takes its frames and
// the worker's stderr. When the worker dies its lanes read as closed, every
// waiter is woken, and the death is logged with the signal or exit status.
#pragma once

#include "isolation/lane_memory.hpp"
#include "isolation/wire.hpp"
#include "util/error.hpp"

#include <spdlog/fwd.h>  // the logger is held here, called in the .cpp

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <sys/types.h>

namespace airlock::host {

// Where the control socket's frames for one waiter arrive: init's (inbox
// 0, while the plugin boots), or none at all for one that only waits to
// learn the worker died.
struct Inbox {
  std::mutex mutex;  // guards frames and dead
  std::condition_variable ready;
  std::deque<isolation::Frame> frames;
  bool dead = false;
};

// One lane's server end. Only the thread that took it reads or writes it.
struct Lane {
  isolation::LaneMemory memory;
  int fd = -1;         // the socket, for large frames; SO_RCVTIMEO'd
  std::string buffer;  // take's, reused
};

class WorkerProcess {
 public:
  struct Options {
    std::filesystem::path worker;  // the airlock-worker binary
    std::filesystem::path file;    // the plugin, as the operator named it
    int image_fd = -1;             // a pack object's verified bytes; -1: map `file`
    std::uint64_t memory_mb = 1024;
    unsigned threads = 4;  // hooks at once: one lane each, and one more kept for sanitizers
    std::shared_ptr<spdlog::logger> logger;  // the plugin's: its stderr and its death go here
  };
  // A host call for the plugin as a whole (scope 0) after init: answers
  // with the reply body, or nothing for a call that wants none.
  using PluginCallHandler = std::function<std::string(isolation::Fn, isolation::WireReader&)>;

  // Starts the worker; inbox 0 is attached to `boot`, which receives its
  // first frames (loaded or load_failed, then init's host calls and done).
  static Result<std::shared_ptr<WorkerProcess>> spawn(const Options& options, Inbox& boot);

  // Kills the worker if it still runs, then waits for the reader.
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // From now on, plugin host calls go to `handler` rather than inbox 0,
  // which is detached.
  void serve_plugin_calls(PluginCallHandler handler);

  std::uint64_t next_id() { return next_id_.fetch_add(1, std::memory_order_relaxed); }
  // Frames from the control socket for `id` go to `inbox` until detached;
  // the inbox is marked dead when the worker dies.
  void attach(std::uint64_t id, Inbox& inbox);
  void detach(std::uint64_t id);
  // False when the worker is gone. On the control socket.
  bool send(isolation::Kind kind, std::uint64_t id, std::string_view body);

  // A free lane, waiting at most `wait` for one; null on time-out or when
  // the worker is dead. Lane 0 is kept for sanitizers, which are short and
  // wait on no host reply: a worker whose other lanes are all held by long
  // tool calls still sanitizes at once.
  Lane* take_lane(bool sanitizer, std::chrono::milliseconds wait);
  void give_back(Lane* lane);
  // Blocks until the reader has seen the worker die (bounded by `limit`).
  void wait_dead(std::chrono::milliseconds limit);
  void kill();
  bool dead() const { return dead_.load(); }
  pid_t pid() const { return pid_; }
  // How the worker ended, once dead(): "was killed by signal 11 (SIGSEGV)".
  std::string ending() const;
  // Asks the worker to run the plugin's on_destroy and exit; kills it if it
  // has not within `grace`.
  void stop(std::chrono::milliseconds grace);

 private:
  WorkerProcess(pid_t pid, int channel, std::vector<Lane> lanes, int stderr_fd, std::filesystem::path temp_dir,
                std::shared_ptr<spdlog::logger> logger);
  void read_loop();
  void route(isolation::Frame frame);
  void log_stderr(std::string_view chunk);
  void died();

  const pid_t pid_;
  const int channel_;
  const int stderr_fd_;
  const std::filesystem::path temp_dir_;
  const std::shared_ptr<spdlog::logger> logger_;

  std::string buffer_;  // the reader's, for recv_frame

  std::mutex lanes_mutex_;  // guards lanes_free_
  std::condition_variable lane_freed_;
  std::vector<Lane> lanes_;
  std::vector<bool> lanes_free_;
  std::mutex inboxes_mutex_;  // guards inboxes_ and handler_
  std::unordered_map<std::uint64_t, Inbox*> inboxes_;
  PluginCallHandler handler_;
  std::atomic<std::uint64_t> next_id_{1};
  std::atomic<bool> dead_{false};
  std::atomic<bool> killed_{false};  // by the server: a kill is not a crash to report as one
  mutable std::mutex ending_mutex_;  // guards ending_
  std::condition_variable ended_;
  std::string ending_;

  // stderr, line by line, at most kStderrLinesPerSecond lines a second.
  std::string stderr_line_;
  std::chrono::steady_clock::time_point stderr_window_;
  unsigned stderr_lines_ = 0;
  unsigned stderr_dropped_ = 0;

  std::thread reader_;
};

}  // namespace airlock::host
