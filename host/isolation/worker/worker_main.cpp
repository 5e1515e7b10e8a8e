// airlock-worker: one third-party plugin in a process of its own.
//
// The server starts it with exec (a clean address space, not a fork of the
// multi-threaded server), its control socket to the server on fd 3, the
// verified bytes of a pack's object on fd 4 when there are any, one socket
// per lane (a hook it runs at once) from fd 5 on and then each lane's shared
// memory, stdin and stdout on /dev/null, stderr on a pipe the server reads
// into its log, and an environment of nothing but TMPDIR and HOME (its
// private temp directory).
// Before a byte of the plugin is mapped it confines itself with every layer
// the kernel offers; then it loads the plugin with the same checks as the
// server, runs its init against a function table that forwards every call
// to the server, and serves the hooks the server asks for until told to
// stop or until the server is gone.
//
//   airlock-worker FILE OBJECT TEMP_DIR MEMORY_MB LANES WIRE
//
// WIRE is the server's isolation::kWireVersion: a worker of another version
// (another build's, another install's) says so and exits with status 2.
// FILE is the name the operator knows the plugin by (errors and logs say
// it), OBJECT what is mapped: FILE itself, or /proc/self/fd/4.
#include "isolation/confinement.hpp"
#include "isolation/worker/hook_runner.hpp"
#include "plugins/plugin_object.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <linux/close_range.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

// In a sanitizer build: LeakSanitizer's check at exit needs ptrace and a
// fork, which the worker's seccomp filter refuses, so a plugin calling
// exit() would turn into a LeakSanitizer failure. The worker itself always
// leaves with _exit.
extern "C" __attribute__((used)) const char* __lsan_default_options() { return "detect_leaks=0"; }

namespace {

constexpr int kChannelFd = 3;
constexpr int kImageFd = 4;
constexpr int kFirstLaneFd = 5;
constexpr unsigned kMaxLanes = 65;  // max_workers (at most 64) and the sanitizers' lane

void close_inherited(unsigned lanes) {
  // Whatever the server had open (sockets, keys, the task store) must not
  // reach the plugin. close_range may be missing on old kernels; then each
  // descriptor up to the limit is closed one by one.
  const unsigned first = kFirstLaneFd + 2 * lanes;
  if (syscall(SYS_close_range, first, ~0U, 0) == 0) return;
  const long limit = sysconf(_SC_OPEN_MAX);
  for (long fd = first; fd < limit; ++fd) close(static_cast<int>(fd));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace airlock;
  if (argc != 7) {
    std::fprintf(stderr, "airlock-worker: started by the airlock server, not by hand\n");
    return 2;
  }
  if (std::strtoul(argv[6], nullptr, 10) != isolation::kWireVersion) {
    std::fprintf(stderr,
                 "airlock-worker: this worker speaks wire version %u, the server %s: they come from different "
                 "builds (install airlock whole)\n",
                 isolation::kWireVersion, argv[6]);
    return 2;
  }
  const std::filesystem::path file = argv[1];
  const std::filesystem::path object = argv[2];
  const unsigned lanes = static_cast<unsigned>(std::strtoul(argv[5], nullptr, 10));
  if (lanes < 1 || lanes > kMaxLanes) {
    std::fprintf(stderr, "airlock-worker: %s is not a number of lanes\n", argv[5]);
    return 2;
  }
  if (!object.string().starts_with("/proc/self/fd/")) close(kImageFd);
  close_inherited(lanes);
  // A worker never outlives its server, even one killed with SIGKILL.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) return 0;
  std::signal(SIGPIPE, SIG_IGN);

  host::ConfinementPolicy policy;
  policy.read_only = host::default_library_paths();
  policy.read_only.push_back(file.parent_path());
  // A plugin reached through a symlink is read (and its $ORIGIN libraries
  // found) where the link points.
  std::error_code ec;
  if (const auto target = std::filesystem::canonical(file, ec); !ec && target.parent_path() != file.parent_path())
    policy.read_only.push_back(target.parent_path());
  policy.writable = argv[3];
  policy.memory_bytes = std::strtoull(argv[4], nullptr, 10) << 20;
  const host::ConfinementReport report = host::confine_self(policy);

  std::vector<int> lane_fds;
  std::vector<int> lane_memories;
  for (unsigned i = 0; i < lanes; ++i) {
    lane_fds.push_back(kFirstLaneFd + static_cast<int>(i));
    lane_memories.push_back(kFirstLaneFd + static_cast<int>(lanes + i));
  }
  isolation::WorkerChannel channel(kChannelFd, lane_fds, lane_memories);
  auto loaded = host::open_plugin_object(file.string(), object);
  if (!loaded) {
    isolation::WireWriter w;
    w.str(loaded.error().message);
    channel.send(isolation::Kind::load_failed, 0, w.body());
    _exit(1);
  }
  {
    isolation::WireWriter w;
    w.u32(loaded->abi_version).str(report.summary()).u8(report.complete());
    if (!channel.send(isolation::Kind::loaded, 0, w.body())) _exit(0);
  }

  isolation::WorkerPlugin plugin;
  isolation::HookRunner runner(channel, plugin);
  const airlock_host_api& api = isolation::remote_host_api(channel, plugin);
  static airlock_plugin_ctx ctx;
  // Init runs beside the reader: every host function it calls waits for a
  // reply that only the reader can take in.
  static std::atomic<bool> init_returned{false};
  std::thread([&] {
    const airlock_status status = loaded->init(&api, &ctx);
    init_returned.store(true, std::memory_order_release);
    isolation::WireWriter w;
    w.i32(status);
    if (!channel.send(isolation::Kind::done, 0, w.body())) _exit(0);
  }).detach();

  // The control socket: replies to the plugin's own host calls,
  // cancellations, the end. Hooks come on the lanes.
  isolation::Frame frame;
  std::string buffer;
  while (isolation::recv_frame(kChannelFd, frame, buffer) == isolation::Received::frame) {
    switch (frame.kind) {
      case isolation::Kind::reply: channel.deliver(frame.id, std::move(frame.body)); break;
      case isolation::Kind::cancel: runner.cancel(frame.id); break;
      case isolation::Kind::shutdown:
        // The server asks only once init and every hook have answered, but
        // that order runs through the server: these make it one this
        // process (and ThreadSanitizer) can see.
        if (!init_returned.load(std::memory_order_acquire)) _exit(0);
        channel.quiesce();
        if (plugin.on_destroy) plugin.on_destroy(plugin.plugin_data);
        _exit(0);
      default: _exit(3);  // the server does not send that here
    }
  }
  // The server is gone: nobody is left to serve, and a plugin must not run
  // on unsupervised. _exit, not exit: no plugin destructor runs either.
  _exit(0);
}
