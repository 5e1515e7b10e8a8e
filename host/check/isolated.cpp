#include "check/isolated.hpp"

#include "isolation/isolated_plugin.hpp"

#include <future>
#include <thread>

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace airlock::host::check {
namespace {

using Clock = std::chrono::steady_clock;

void write_all(int fd, const std::string& data) {
  std::size_t at = 0;
  while (at < data.size()) {
    const ssize_t n = ::write(fd, data.data() + at, data.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    at += static_cast<std::size_t>(n);
  }
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return fmt::format("killed by signal {} (SIG{})", sig, name ? name : "?");
  }
  return fmt::format("exited with status {}", WEXITSTATUS(status));
}

}  // namespace

Isolated run_isolated(const std::function<std::string()>& body, std::chrono::milliseconds timeout) {
  Isolated result;
  int fds[2];
  if (::pipe(fds) != 0) {
    result.how = fmt::format("cannot create a pipe: {}", std::strerror(errno));
    return result;
  }
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    result.how = fmt::format("cannot fork: {}", std::strerror(errno));
    return result;
  }
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    int code = 0;
    try {
      out = body();
    } catch (...) {
      code = 3;
    }
    write_all(fds[1], out);
    ::close(fds[1]);
    // _exit: no atexit handlers or static destructors of the parent's state,
    // which the child only borrowed.
    ::_exit(code);
  }
  ::close(fds[1]);
  const auto deadline = start + timeout;
  bool eof = false;
  char buffer[65536];
  while (!eof) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = true;
    } else {
      result.output.append(buffer, static_cast<std::size_t>(n));
    }
  }
  ::close(fds[0]);
  int status = 0;
  if (!eof) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    result.end = Isolated::End::timed_out;
    result.how = fmt::format("did not return within {} ms", timeout.count());
    result.output.clear();
  } else {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      result.end = Isolated::End::returned;
    } else {
      result.end = Isolated::End::crashed;
      result.how = describe_exit(status);
      result.output.clear();
    }
  }
  result.took = Clock::now() - start;
  return result;
}

Isolated run_contained(const std::function<std::string()>& body, std::chrono::milliseconds timeout,
                       IsolatedPlugin* worker) {
  if (!worker) return run_isolated(body, timeout);
  Isolated result;
  const auto start = Clock::now();
  const std::uint64_t deaths = worker->deaths();
  std::packaged_task<std::string()> task(body);
  std::future<std::string> answer = task.get_future();
  std::thread runner(std::move(task));
  if (answer.wait_for(timeout) != std::future_status::ready) {
    worker->kill();  // the hook returns once its worker is gone
    runner.join();
    result.end = Isolated::End::timed_out;
    result.how = fmt::format("did not return within {} ms", timeout.count());
    result.took = Clock::now() - start;
    return result;
  }
  runner.join();
  try {
    result.output = answer.get();
    result.end = Isolated::End::returned;
  } catch (...) {
    result.how = "threw";
  }
  if (worker->deaths() != deaths) {
    result.end = Isolated::End::crashed;
    result.how = "its worker " + worker->last_death();
    result.output.clear();
  }
  result.took = Clock::now() - start;
  return result;
}

}  // namespace airlock::host::check
