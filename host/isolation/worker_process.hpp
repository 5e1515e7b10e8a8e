// One running airlock-worker, as the server sees it: the process, its
// socket, its stderr, and the hook calls waiting on it.
//
// A reader thread takes every frame the worker sends and hands it to the
// hook call it belongs to (the `inbox` of the server thread that started
// that call); host calls made for the plugin as a whole go to a handler that
// runs on the reader thread itself. When the worker dies every waiting call
// is woken at once with its inbox marked dead, and the death is logged with
// the signal or exit status.
#pragma once

#include "isolation/wire.hpp"
#include "util/error.hpp"

#include <spdlog/logger.h>

#include <atomic>
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

#include <sys/types.h>

namespace airlock::host {

// Where the frames of one hook call arrive while a server thread waits.
struct Inbox {
  std::mutex mutex;  // guards frames and dead
  std::condition_variable ready;
  std::deque<isolation::Frame> frames;
  bool dead = false;
};

class WorkerProcess {
 public:
  struct Options {
    std::filesystem::path worker;  // the airlock-worker binary
    std::filesystem::path file;    // the plugin, as the operator named it
    int image_fd = -1;             // a pack object's verified bytes; -1: map `file`
    std::uint64_t memory_mb = 1024;
    unsigned threads = 4;
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
  void attach(std::uint64_t id, Inbox& inbox);
  void detach(std::uint64_t id);
  // False when the worker is gone.
  bool send(isolation::Kind kind, std::uint64_t id, std::string_view body);
  void kill();
  bool dead() const { return dead_.load(); }
  pid_t pid() const { return pid_; }
  // How the worker ended, once dead(): "was killed by signal 11 (SIGSEGV)".
  std::string ending() const;
  // Asks the worker to run the plugin's on_destroy and exit; kills it if it
  // has not within `grace`.
  void stop(std::chrono::milliseconds grace);

 private:
  WorkerProcess(pid_t pid, int channel, int stderr_fd, std::filesystem::path temp_dir,
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

  std::mutex write_mutex_;  // one frame at a time on the socket
  std::mutex inboxes_mutex_;  // guards inboxes_ and handler_
  std::unordered_map<std::uint64_t, Inbox*> inboxes_;
  PluginCallHandler handler_;
  std::atomic<std::uint64_t> next_id_{1};
  std::atomic<bool> dead_{false};
  std::atomic<bool> killed_{false};  // by the server: a kill is not a crash to report as one
  mutable std::mutex ending_mutex_;  // guards ending_
  std::string ending_;

  // stderr, line by line, at most kStderrLinesPerSecond lines a second.
  std::string stderr_line_;
  std::chrono::steady_clock::time_point stderr_window_;
  unsigned stderr_lines_ = 0;
  unsigned stderr_dropped_ = 0;

  std::thread reader_;
};

}  // namespace airlock::host
