// Runs one child program with its stdin, stdout and stderr on pipes.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace airlock::test {

// A child process started with posix_spawn. The test reads its stdout a line
// at a time; a background thread drains its stderr into memory, so a chatty
// child never blocks on a full stderr pipe. The destructor kills the child if
// it is still running, and reaps it.
//
// Not thread-safe, except that stderr_text() may be called from any thread.
// Constructing one ignores SIGPIPE in this process, so writing to a child
// that has exited fails with EPIPE instead of killing the test.
class Subprocess {
 public:
  struct Options {
    std::filesystem::path working_dir;  // empty: inherit ours
  };

  // Starts argv[0] (searched in PATH when it has no '/'). Throws
  // std::runtime_error when the program cannot be started.
  explicit Subprocess(std::vector<std::string> argv, Options options = {});
  ~Subprocess();

  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }

  // Writes all of `bytes` to the child's stdin. Returns false when stdin is
  // closed or the child has stopped reading (EPIPE).
  bool write(std::string_view bytes);

  // Closes the child's stdin, so it reads EOF. Idempotent.
  void close_stdin();

  // The next line of stdout without its '\n', or nullopt when none arrived
  // within `timeout` or stdout reached EOF (see stdout_eof()).
  std::optional<std::string> read_line(std::chrono::milliseconds timeout);

  // True once stdout has reached EOF and every buffered line has been read.
  bool stdout_eof() const { return stdout_eof_ && stdout_buffer_.empty(); }

  // Waits for the child to exit. Returns its exit status, or 128 + signal
  // number when a signal ended it; nullopt when it is still running after
  // `timeout`. Once the child has exited, also waits (briefly) for stderr to
  // reach EOF, so stderr_text() is then complete.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);

  // Sends SIGKILL if the child is still running, and reaps it.
  void kill();

  // Everything the child has written to stderr so far.
  std::string stderr_text() const;

  // Raw descriptors for drivers that do their own I/O (the load bench). Do
  // not mix raw reads of stdout with read_line().
  int stdin_fd() const { return stdin_fd_; }
  int stdout_fd() const { return stdout_fd_; }

 private:
  void drain_stderr(int fd);

  pid_t pid_ = -1;
  std::optional<int> exit_status_;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  std::string stdout_buffer_;
  bool stdout_eof_ = false;

  // This mutex guards stderr_, stderr_eof_ (set by stderr_thread_) and
  // stderr_stop_ (set by the destructor).
  mutable std::mutex stderr_mutex_;
  std::condition_variable stderr_cv_;
  std::string stderr_;
  bool stderr_eof_ = false;
  bool stderr_stop_ = false;
  std::thread stderr_thread_;
};

}  // namespace airlock::test
