// Runs one child program with its stdin, stdout and stderr on pipes.
#include "subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <stdexcept>

extern char** environ;

namespace airlock::test {
namespace {

using Clock = std::chrono::steady_clock;

void ignore_sigpipe_once() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

std::runtime_error system_error(const std::string& what, int err) {
  return std::runtime_error(what + ": " + std::strerror(err));
}

// Both ends close on exec; posix_spawn's dup2 onto 0/1/2 clears the flag on
// the child's copies only, so no other child inherits these pipes.
void make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) throw system_error("pipe2", errno);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

Subprocess::Subprocess(std::vector<std::string> argv, Options options) {
  if (argv.empty()) throw std::runtime_error("subprocess: empty argv");
  ignore_sigpipe_once();

  int in[2], out[2], err[2];
  make_pipe(in);
  make_pipe(out);
  make_pipe(err);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  if (!options.working_dir.empty())
    posix_spawn_file_actions_addchdir_np(&actions, options.working_dir.c_str());

  // We ignore SIGPIPE; the child must get the default disposition back,
  // because ignored signals survive exec.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  sigset_t no_mask;
  sigemptyset(&no_mask);
  posix_spawnattr_setsigmask(&attr, &no_mask);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);

  const bool search_path = argv[0].find('/') == std::string::npos;
  const int rc = search_path
                     ? ::posix_spawnp(&pid_, args[0], &actions, &attr, args.data(), environ)
                     : ::posix_spawn(&pid_, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);

  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (rc != 0) {
    ::close(in[1]);
    ::close(out[0]);
    ::close(err[0]);
    pid_ = -1;
    throw system_error("posix_spawn " + argv[0], rc);
  }
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
  const int stderr_fd = err[0];
  stderr_thread_ = std::thread([this, stderr_fd] { drain_stderr(stderr_fd); });
}

Subprocess::~Subprocess() {
  close_stdin();
  kill();
  {
    // The child is gone; its stderr reaches EOF unless it left a grandchild
    // holding the pipe, in which case we stop waiting after a second.
    std::unique_lock lock(stderr_mutex_);
    stderr_cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stderr_eof_; });
    stderr_stop_ = true;
  }
  stderr_thread_.join();
  close_fd(stdout_fd_);
}

void Subprocess::drain_stderr(int fd) {
  char chunk[4096];
  for (;;) {
    {
      std::lock_guard lock(stderr_mutex_);
      if (stderr_stop_) break;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, 50);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    std::lock_guard lock(stderr_mutex_);
    if (n <= 0) {
      stderr_eof_ = true;
      break;
    }
    stderr_.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  stderr_cv_.notify_all();
}

bool Subprocess::write(std::string_view bytes) {
  while (!bytes.empty()) {
    if (stdin_fd_ < 0) return false;
    const ssize_t n = ::write(stdin_fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void Subprocess::close_stdin() { close_fd(stdin_fd_); }

std::optional<std::string> Subprocess::read_line(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const std::size_t newline = stdout_buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = stdout_buffer_.substr(0, newline);
      stdout_buffer_.erase(0, newline + 1);
      return line;
    }
    if (stdout_eof_ || stdout_fd_ < 0) return std::nullopt;
    pollfd p{stdout_fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, remaining_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return std::nullopt;
    char chunk[65536];
    const ssize_t n = ::read(stdout_fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      stdout_eof_ = true;
      // A last line without '\n' is still a line.
      if (!stdout_buffer_.empty()) {
        std::string line = std::move(stdout_buffer_);
        stdout_buffer_.clear();
        return line;
      }
      return std::nullopt;
    }
    stdout_buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

std::optional<int> Subprocess::wait_exit(std::chrono::milliseconds timeout) {
  if (!exit_status_) {
    if (pid_ < 0) return std::nullopt;
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        exit_status_ = decode_status(status);
        break;
      }
      if (r < 0 && errno != EINTR) return std::nullopt;
      if (Clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  std::unique_lock lock(stderr_mutex_);
  stderr_cv_.wait_for(lock, std::chrono::seconds(2), [this] { return stderr_eof_; });
  return exit_status_;
}

void Subprocess::kill() {
  if (pid_ < 0 || exit_status_) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  exit_status_ = decode_status(status);
}

std::string Subprocess::stderr_text() const {
  std::lock_guard lock(stderr_mutex_);
  return stderr_;
}

}  // namespace airlock::test
