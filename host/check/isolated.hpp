// Runs a piece of plugin code in a forked child, so that the check survives
// what it is checking for: a tool that crashes on some arguments, or one that
// never returns. The child inherits the loaded plugin (fork copies the
// address space), runs `body`, sends back the string it returns, and exits.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace airlock::host {
class IsolatedPlugin;
}

namespace airlock::host::check {

struct Isolated {
  enum class End { returned, crashed, timed_out } end = End::crashed;
  std::string output;  // what body returned (End::returned)
  std::string how;     // for crashed / timed_out: "killed by signal 11 (SIGSEGV)", "exited with status 1"
  std::chrono::nanoseconds took{};
};

// Forks; the child runs `body` and exits; the parent waits at most `timeout`
// (then kills the child). Call from a single-threaded moment of the process:
// the child holds only the calling thread, and any lock another thread held
// stays locked in it.
Isolated run_isolated(const std::function<std::string()>& body, std::chrono::milliseconds timeout);

// The same for a plugin that runs in `worker`, whose process already holds
// whatever the plugin does: `body` runs on a thread of this process; a
// worker that dies under it is a crash, one that does not return in time is
// killed. Null `worker`: run_isolated.
Isolated run_contained(const std::function<std::string()>& body, std::chrono::milliseconds timeout,
                       IsolatedPlugin* worker);

}  // namespace airlock::host::check
