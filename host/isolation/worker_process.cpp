// Starting a worker and reading what it says. The worker is exec'd, never
// forked from the server: a fork of a multi-threaded process copies locks
// held by threads that do not exist in the child, and every secret the
// server holds in memory.
#include "isolation/worker_process.hpp"

#include "audit/audit_trail.hpp"

#include <airlock/airlock.h>
#include <fmt/format.h>
#include <spdlog/logger.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace airlock::host {
namespace {

using isolation::Frame;
using isolation::Kind;

constexpr std::size_t kStderrLineMax = 1024;
constexpr unsigned kStderrLinesPerSecond = 50;

std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return fmt::format("signal {} (SIG{})", sig, abbrev ? abbrev : "?");
}

std::string exit_text(int status) {
  if (WIFSIGNALED(status)) return "was killed by " + signal_text(WTERMSIG(status));
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return "stopped";
}

// Where the worker finds its descriptors: the control socket, a pack
// object's bytes, then one socket per lane, then each lane's memory.
constexpr int kChildControl = 3;
constexpr int kChildImage = 4;
constexpr int kChildFirstLane = 5;

// How long a server thread waits on a lane's socket for a large frame its
// mailbox announced: the frame is sent before the marker, so a wait this
// long means a worker that sent a marker and nothing behind it.
constexpr timeval kLanePoll{0, 20'000};

// A copy of `fd` above every number the worker expects its descriptors at,
// close-on-exec: posix_spawn's dup2s then never overwrite a source before
// it is copied.
int high_fd(int fd, int above) { return fcntl(fd, F_DUPFD_CLOEXEC, above); }

struct SocketPair {
  int server = -1;
  int child = -1;
};

void close_all(const std::vector<int>& fds) {
  for (int fd : fds)
    if (fd >= 0) close(fd);
}

// What the worker's environment holds: its temp dir, the sanitizer options
// a test build runs under, and the allocator tuning the operator gave the
// server (a plugin's large results allocate as they would in-process).
// Nothing else of the server's (tokens, keys, database URLs) reaches a
// plugin.
std::vector<std::string> worker_environment(const std::filesystem::path& temp) {
  std::vector<std::string> env{"TMPDIR=" + temp.string(), "HOME=" + temp.string(), "LANG=C.UTF-8"};
  for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "GLIBC_TUNABLES"})
    if (const char* value = std::getenv(name)) env.push_back(std::string(name) + "=" + value);
  return env;
}

constexpr std::string_view kTempPrefix = "airlock-worker-";

// A server killed outright (SIGKILL, a crash) leaves its workers' temp
// directories behind. Each is named after the server's pid; once per
// process the directories of servers that no longer run are removed (only
// our own: a directory another user made is not ours to judge).
void sweep_stale_temp_dirs(const std::filesystem::path& temp) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(temp, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kTempPrefix)) continue;
    struct stat st {};
    if (lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) continue;
    const long pid = std::strtol(name.c_str() + kTempPrefix.size(), nullptr, 10);
    if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::filesystem::remove_all(entry.path(), ec);
  }
}

}  // namespace

Result<std::shared_ptr<WorkerProcess>> WorkerProcess::spawn(const Options& options, Inbox& boot) {
  const std::string where = options.file.string();
  std::error_code ec;
  const std::filesystem::path temp_root = std::filesystem::temp_directory_path(ec);
  static std::once_flag swept;
  std::call_once(swept, [&] { sweep_stale_temp_dirs(temp_root); });
  std::string pattern = (temp_root / fmt::format("{}{}-XXXXXX", kTempPrefix, getpid())).string();
  if (!mkdtemp(pattern.data()))
    return Error{fmt::format("{}: cannot make the worker's temp directory: {}", where, std::strerror(errno))};
  const std::filesystem::path temp = pattern;

  // The control socket and one per lane (threads + 1: lane 0 is the
  // sanitizers'). The child's ends are moved above the numbers they will
  // take in the worker, then closed here once it has them.
  const unsigned lane_count = options.threads + 1;
  const int child_floor = kChildFirstLane + 2 * static_cast<int>(lane_count);
  std::vector<SocketPair> pairs;
  auto close_pairs = [&] {
    for (auto& p : pairs) {
      if (p.server >= 0) close(p.server);
      if (p.child >= 0) close(p.child);
    }
  };
  for (unsigned i = 0; i < 1 + lane_count; ++i) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
      close_pairs();
      return Error{fmt::format("{}: cannot make the worker's sockets: {}", where, std::strerror(errno))};
    }
    pairs.push_back({pair[0], high_fd(pair[1], child_floor)});
    close(pair[1]);
    if (pairs.back().child < 0) {
      close_pairs();
      return Error{fmt::format("{}: cannot make the worker's sockets: {}", where, std::strerror(errno))};
    }
  }
  for (unsigned i = 1; i < pairs.size(); ++i)
    setsockopt(pairs[i].server, SOL_SOCKET, SO_RCVTIMEO, &kLanePoll, sizeof kLanePoll);
  // Each lane's shared memory: mapped here, and the worker gets the memfd.
  std::vector<int> memories;
  std::vector<Lane> lanes;
  for (unsigned i = 0; i < lane_count; ++i) {
    const int memfd = isolation::LaneMemory::create();
    const int child = memfd >= 0 ? high_fd(memfd, child_floor) : -1;
    if (memfd >= 0) close(memfd);
    isolation::LaneMemory memory(child);
    if (child >= 0) memories.push_back(child);
    if (!memory.region()) {
      close_all(memories);
      close_pairs();
      return Error{fmt::format("{}: cannot make the worker's shared memory: {}", where, std::strerror(errno))};
    }
    lanes.push_back(Lane{std::move(memory), pairs[1 + i].server, {}});
  }
  int err[2];
  if (pipe2(err, O_CLOEXEC) != 0) {
    close_all(memories);
    close_pairs();
    return Error{fmt::format("{}: cannot make the worker's stderr pipe: {}", where, std::strerror(errno))};
  }
  const int child_image = options.image_fd >= 0 ? high_fd(options.image_fd, child_floor) : -1;

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawn_file_actions_adddup2(&actions, pairs[0].child, kChildControl);
  if (child_image >= 0) posix_spawn_file_actions_adddup2(&actions, child_image, kChildImage);
  for (unsigned i = 0; i < lane_count; ++i)
    posix_spawn_file_actions_adddup2(&actions, pairs[1 + i].child, kChildFirstLane + static_cast<int>(i));
  for (unsigned i = 0; i < lane_count; ++i)
    posix_spawn_file_actions_adddup2(&actions, memories[i],
                                     kChildFirstLane + static_cast<int>(lane_count + i));

  // Signals as a new process expects them: none blocked, none ignored.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  const std::string worker = options.worker.string();
  const std::string object = child_image >= 0 ? std::string("/proc/self/fd/4") : where;
  const std::string memory = std::to_string(options.memory_mb);
  const std::string threads = std::to_string(lane_count);
  const std::string temp_text = temp.string();
  const std::string wire = std::to_string(isolation::kWireVersion);
  std::vector<char*> argv{const_cast<char*>(worker.c_str()), const_cast<char*>(where.c_str()),
                          const_cast<char*>(object.c_str()), const_cast<char*>(temp_text.c_str()),
                          const_cast<char*>(memory.c_str()), const_cast<char*>(threads.c_str()),
                          const_cast<char*>(wire.c_str()),   nullptr};
  std::vector<std::string> env = worker_environment(temp);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, worker.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  for (auto& p : pairs) {
    close(p.child);
    p.child = -1;
  }
  if (child_image >= 0) close(child_image);
  close(err[1]);
  close_all(memories);
  if (spawned != 0) {
    close_pairs();
    close(err[0]);
    std::filesystem::remove_all(temp, ec);
    return Error{fmt::format("{}: cannot start the worker {}: {}", where, worker, std::strerror(spawned))};
  }

  std::shared_ptr<WorkerProcess> process(
      new WorkerProcess(pid, pairs[0].server, std::move(lanes), err[0], temp, options.logger));
  process->attach(0, boot);
  process->reader_ = std::thread([p = process.get()] { p->read_loop(); });
  return process;
}

WorkerProcess::WorkerProcess(pid_t pid, int channel, std::vector<Lane> lanes, int stderr_fd,
                             std::filesystem::path temp_dir, std::shared_ptr<spdlog::logger> logger)
    : pid_(pid),
      channel_(channel),
      stderr_fd_(stderr_fd),
      temp_dir_(std::move(temp_dir)),
      logger_(std::move(logger)),
      lanes_(std::move(lanes)) {
  lanes_free_.assign(lanes_.size(), true);
}

WorkerProcess::~WorkerProcess() {
  kill();
  if (reader_.joinable()) reader_.join();
  close(channel_);
  for (const Lane& lane : lanes_) close(lane.fd);
  close(stderr_fd_);
  std::error_code ec;
  std::filesystem::remove_all(temp_dir_, ec);
}

void WorkerProcess::serve_plugin_calls(PluginCallHandler handler) {
  std::lock_guard lock(inboxes_mutex_);
  handler_ = std::move(handler);
  inboxes_.erase(0);  // the boot inbox: its frames are the caller's to drain now
}

void WorkerProcess::attach(std::uint64_t id, Inbox& inbox) {
  std::lock_guard lock(inboxes_mutex_);
  inboxes_[id] = &inbox;
  if (dead_.load()) {
    std::lock_guard inbox_lock(inbox.mutex);
    inbox.dead = true;
  }
}

void WorkerProcess::detach(std::uint64_t id) {
  std::lock_guard lock(inboxes_mutex_);
  inboxes_.erase(id);
}

bool WorkerProcess::send(Kind kind, std::uint64_t id, std::string_view body) {
  if (dead_.load()) return false;
  return isolation::send_frame(channel_, kind, id, body);
}

Lane* WorkerProcess::take_lane(bool sanitizer, std::chrono::milliseconds wait) {
  std::unique_lock lock(lanes_mutex_);
  Lane* taken = nullptr;
  const auto free_one = [&] {
    if (dead_.load()) return true;
    // Tools and content take lanes 1..n; a sanitizer takes its own lane 0,
    // or any other that happens to be free.
    for (std::size_t i = sanitizer ? 0 : 1; i < lanes_.size(); ++i) {
      if (lanes_free_[i]) {
        lanes_free_[i] = false;
        taken = &lanes_[i];
        return true;
      }
    }
    return false;
  };
  lane_freed_.wait_for(lock, wait, free_one);
  return taken;
}

void WorkerProcess::give_back(Lane* lane) {
  {
    std::lock_guard lock(lanes_mutex_);
    lanes_free_[static_cast<std::size_t>(lane - lanes_.data())] = true;
  }
  // Waiters want different lanes (lane 0 serves only sanitizers): wake all.
  lane_freed_.notify_all();
}

void WorkerProcess::wait_dead(std::chrono::milliseconds limit) {
  std::unique_lock lock(ending_mutex_);
  ended_.wait_for(lock, limit, [&] { return dead_.load(); });
}

std::string WorkerProcess::ending() const {
  std::lock_guard lock(ending_mutex_);
  return ending_;
}

void WorkerProcess::kill() {
  if (dead_.load()) return;
  killed_.store(true);
  ::kill(pid_, SIGKILL);
}

void WorkerProcess::stop(std::chrono::milliseconds grace) {
  if (dead_.load()) return;
  killed_.store(true);
  send(Kind::shutdown, 0, {});
  Inbox watch;  // woken when the worker is gone
  const std::uint64_t id = next_id();
  attach(id, watch);
  {
    std::unique_lock lock(watch.mutex);
    watch.ready.wait_for(lock, grace, [&] { return watch.dead; });
  }
  detach(id);
  kill();
}

void WorkerProcess::read_loop() {
  std::array<pollfd, 2> fds{pollfd{channel_, POLLIN, 0}, pollfd{stderr_fd_, POLLIN, 0}};
  for (;;) {
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents & (POLLIN | POLLHUP)) {
      char buffer[4096];
      const ssize_t got = read(stderr_fd_, buffer, sizeof buffer);
      if (got > 0)
        log_stderr(std::string_view(buffer, static_cast<std::size_t>(got)));
      else
        fds[1].fd = -1;  // closed: poll ignores a negative descriptor
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      Frame frame;
      const isolation::Received got = isolation::recv_frame(channel_, frame, buffer_);
      if (got == isolation::Received::timeout) continue;
      if (got != isolation::Received::frame) {
        if (got == isolation::Received::broken) {
          logger_->error("worker (pid {}) sent a malformed frame; stopping it", pid_);
          ::kill(pid_, SIGKILL);
        }
        break;
      }
      route(std::move(frame));
    }
  }
  // Whatever the worker still wrote to stderr belongs in the log too.
  if (fds[1].fd >= 0) {
    fcntl(stderr_fd_, F_SETFL, O_NONBLOCK);
    char buffer[4096];
    ssize_t got;
    while ((got = read(stderr_fd_, buffer, sizeof buffer)) > 0)
      log_stderr(std::string_view(buffer, static_cast<std::size_t>(got)));
  }
  died();
}

// Hands a frame to the call it belongs to. Anything else from the worker
// is a broken or hostile worker, and ends it.
void WorkerProcess::route(Frame frame) {
  std::uint64_t scope = frame.id;
  if (frame.kind == Kind::host_call) {
    isolation::WireReader r(frame.body);
    scope = r.u64();
    if (!r.ok()) return kill();
  } else if (frame.kind != Kind::done && frame.kind != Kind::loaded && frame.kind != Kind::load_failed) {
    logger_->error("worker (pid {}) sent a frame of unknown kind {}; stopping it", pid_,
                   static_cast<int>(frame.kind));
    return kill();
  }

  PluginCallHandler handler;
  {
    std::lock_guard lock(inboxes_mutex_);
    auto it = inboxes_.find(scope);
    if (it != inboxes_.end()) {
      Inbox& inbox = *it->second;
      {
        std::lock_guard inbox_lock(inbox.mutex);
        inbox.frames.push_back(std::move(frame));
      }
      inbox.ready.notify_one();
      return;
    }
    handler = handler_;
  }
  if (frame.kind != Kind::host_call) return;  // a late answer for a call given up on
  std::string reply;
  if (scope == 0 && handler) {
    isolation::WireReader r(frame.body);
    r.u64();
    const auto fn = static_cast<isolation::Fn>(r.u32());
    reply = handler(fn, r);
  } else {
    // A host call for a hook the server stopped waiting for (it timed out):
    // the plugin thread gets an error rather than waiting forever.
    isolation::WireWriter w;
    w.i32(AIRLOCK_STATUS_CANCELLED);
    reply = w.take();
  }
  if (frame.id != 0) send(Kind::reply, frame.id, reply);
}

void WorkerProcess::log_stderr(std::string_view chunk) {
  for (char c : chunk) {
    if (c != '\n') {
      if (stderr_line_.size() < kStderrLineMax) stderr_line_.push_back(c);
      continue;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - stderr_window_ >= std::chrono::seconds(1)) {
      if (stderr_dropped_ > 0) logger_->warn("stderr: {} more lines dropped (over {} a second)", stderr_dropped_,
                                             kStderrLinesPerSecond);
      stderr_window_ = now;
      stderr_lines_ = 0;
      stderr_dropped_ = 0;
    }
    if (++stderr_lines_ <= kStderrLinesPerSecond)
      logger_->warn("stderr: {}", stderr_line_);
    else
      ++stderr_dropped_;
    stderr_line_.clear();
  }
}

void WorkerProcess::died() {
  // The socket closed: the worker exited, crashed, or closed it itself and
  // is of no more use. Give an exiting worker a moment, then make sure.
  int status = 0;
  pid_t reaped = 0;
  for (int i = 0; i < 50 && (reaped = waitpid(pid_, &status, WNOHANG)) == 0; ++i) usleep(2000);
  const bool was_killed = killed_.load();
  if (reaped == 0) {
    ::kill(pid_, SIGKILL);
    reaped = waitpid(pid_, &status, 0);
  }
  const std::string ending = reaped == pid_ ? exit_text(status) : std::string("closed its socket");
  {
    std::lock_guard lock(ending_mutex_);
    ending_ = ending;
    dead_.store(true);
  }
  ended_.notify_all();
  {
    // A thread waiting for a lane learns there will be none.
    std::lock_guard lock(lanes_mutex_);
  }
  lane_freed_.notify_all();
  // A thread waiting on a lane's mailbox sees it at its next look (each
  // wait is at most 20 ms).
  if (!was_killed) {
    logger_->error("worker (pid {}) {}; the calls it was running fail, and it restarts on the next call", pid_,
                   ending);
    if (audit::enabled()) {
      audit::Event event;
      event.kind = audit::Kind::plugin_crashed;
      event.failed = true;
      event.outcome = "crashed";
      event.subject = logger_->name();
      event.reason = ending;
      event.detail["pid"] = pid_;
      audit::record(std::move(event));
    }
  }
  else
    logger_->debug("worker (pid {}) stopped ({})", pid_, ending);

  std::lock_guard lock(inboxes_mutex_);
  for (auto& [id, inbox] : inboxes_) {
    {
      std::lock_guard inbox_lock(inbox->mutex);
      inbox->dead = true;
    }
    inbox->ready.notify_all();
  }
}

}  // namespace airlock::host
