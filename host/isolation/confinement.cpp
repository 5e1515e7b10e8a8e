// The confinement a worker applies to itself before it loads a plugin.
//
// Each layer is a function that applies one mechanism and says whether it
// took; confine_self() runs them in the only order that works. Namespaces
// come first because unshare(CLONE_NEWUSER) wants a single-threaded caller
// and writes to /proc that Landlock would refuse later; rlimits and
// no_new_privs next; Landlock before seccomp because the seccomp allow-list
// refuses the landlock_* calls. Nothing fails hard: a layer the kernel lacks
// is reported with its errno text and the others still go on, since a
// partly confined worker beats none and the server logs which layers took.
//
// Landlock is called through syscall(2) with constants defined here: the
// Debian 12 headers stop at ABI 2, and the kernel that runs the worker may be
// far newer than the one it was built against. The ruleset handles every
// right of the ABI the kernel reports, so a right it does not grant is
// denied.
//
// seccomp is two filters: an allow-list (default EPERM) and a small
// deny-list of argument values (default ALLOW) for what the allow-list
// cannot express, since libseccomp compares an argument once per rule. The
// kernel runs both and keeps the stricter answer.
#include "isolation/confinement.hpp"

#include <seccomp.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace airlock::host {
namespace {

std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

// --- Landlock constants (include/uapi/linux/landlock.h) -----------------------

#ifndef __NR_landlock_create_ruleset
// The same numbers on every architecture: added after the syscall tables merged.
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

constexpr unsigned kCreateRulesetVersion = 1U << 0;
constexpr int kRulePathBeneath = 1;

// Filesystem rights, by the ABI that introduced them.
constexpr std::uint64_t kFsExecute = 1ULL << 0;
constexpr std::uint64_t kFsWriteFile = 1ULL << 1;
constexpr std::uint64_t kFsReadFile = 1ULL << 2;
constexpr std::uint64_t kFsReadDir = 1ULL << 3;
constexpr std::uint64_t kFsAbi1 = (1ULL << 13) - 1;  // EXECUTE .. MAKE_SYM
constexpr std::uint64_t kFsRefer = 1ULL << 13;       // ABI 2
constexpr std::uint64_t kFsTruncate = 1ULL << 14;    // ABI 3
constexpr std::uint64_t kFsIoctlDev = 1ULL << 15;    // ABI 5
// The only rights a rule on a file (not a directory) may carry; any other
// makes landlock_add_rule fail with EINVAL.
constexpr std::uint64_t kFsFileRights = kFsExecute | kFsWriteFile | kFsReadFile | kFsTruncate | kFsIoctlDev;

constexpr std::uint64_t kNetBindTcp = 1ULL << 0;     // ABI 4
constexpr std::uint64_t kNetConnectTcp = 1ULL << 1;  // ABI 4
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ULL << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ULL << 1;              // ABI 6

// struct landlock_ruleset_attr as of ABI 6. The kernel reads only the size
// it is given, so an older kernel gets the prefix it knows.
struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};

struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

std::uint64_t handled_fs(int abi) {
  std::uint64_t rights = kFsAbi1;
  if (abi >= 2) rights |= kFsRefer;
  if (abi >= 3) rights |= kFsTruncate;
  if (abi >= 5) rights |= kFsIoctlDev;
  return rights;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// --- netns --------------------------------------------------------------------

// Writes one short line to a /proc file: 0, or the errno.
int write_proc(const char* path, const std::string& text) {
  const Fd fd(::open(path, O_WRONLY | O_CLOEXEC));
  if (fd.get() < 0) return errno;
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) return errno;
  return 0;
}

// Maps the ids to themselves, so files the worker creates keep their owner
// and the ones it reads show theirs. setgroups must be denied before an
// unprivileged process may write gid_map (ENOENT: a kernel older than 3.19,
// which needs no such step). The reason when one write fails.
std::string map_ids_to_themselves(uid_t uid, gid_t gid) {
  const std::pair<const char*, std::string> writes[] = {
      {"/proc/self/setgroups", "deny"},
      {"/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1"},
      {"/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1"},
  };
  for (const auto& [path, text] : writes) {
    const int err = write_proc(path, text);
    if (err == ENOENT && text == "deny") continue;
    if (err != 0) return std::string(path) + ": " + errno_text(err);
  }
  return {};
}

ConfinementLayer apply_network_namespace(const ConfinementPolicy& policy) {
  ConfinementLayer layer{"netns", false, {}};
  if (!policy.network_namespace) {
    layer.detail = "not asked for by the policy";
    return layer;
  }
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) {
    // The network namespace exists whatever the mapping does.
    const std::string failed = map_ids_to_themselves(uid, gid);
    layer.in_effect = true;
    layer.detail = "user+net namespaces: no interface but a down loopback";
    if (failed.empty())
      layer.detail += "; uid " + std::to_string(uid) + " and gid " + std::to_string(gid) + " mapped to themselves";
    else
      layer.detail += "; ids unmapped (" + failed + ")";
    return layer;
  }
  const std::string user_failed = "unshare(CLONE_NEWUSER|CLONE_NEWNET): " + errno_text(errno);
  if (::unshare(CLONE_NEWNET) == 0) {
    layer.in_effect = true;
    layer.detail = "net namespace: no interface but a down loopback; no user namespace (" + user_failed + ")";
    return layer;
  }
  layer.detail = user_failed + "; unshare(CLONE_NEWNET): " + errno_text(errno);
  return layer;
}

// --- rlimits ------------------------------------------------------------------

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kShadowSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kShadowSanitizer = true;
#else
constexpr bool kShadowSanitizer = false;
#endif
#else
constexpr bool kShadowSanitizer = false;
#endif

// The address space mapped now, from /proc/self/statm (its first field, in pages).
std::uint64_t mapped_bytes() {
  const Fd fd(::open("/proc/self/statm", O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return 0;
  char text[128] = {};
  if (::read(fd.get(), text, sizeof text - 1) <= 0) return 0;
  const long page = ::sysconf(_SC_PAGESIZE);
  return std::strtoull(text, nullptr, 10) * static_cast<std::uint64_t>(page > 0 ? page : 4096);
}

std::string size_text(std::uint64_t bytes) {
  if (bytes >= (10ULL << 40)) return std::to_string(bytes >> 40) + " TiB";
  if (bytes >= (10ULL << 30)) return std::to_string(bytes >> 30) + " GiB";
  return std::to_string(bytes >> 20) + " MiB";
}

// Lowers soft and hard limit together: a plugin must not raise it back.
// Never above the current hard limit, which only privilege could raise.
std::string set_limit(int resource, const char* name, std::uint64_t value) {
  rlimit current{};
  if (::getrlimit(resource, &current) != 0) return std::string(name) + ": " + errno_text(errno);
  const rlim_t cap = std::min(static_cast<rlim_t>(value), current.rlim_max);
  const rlimit next{cap, cap};
  if (::setrlimit(resource, &next) != 0) return std::string(name) + ": " + errno_text(errno);
  return {};
}

ConfinementLayer apply_rlimits(const ConfinementPolicy& policy) {
  ConfinementLayer layer{"rlimits", false, {}};
  std::vector<std::string> done;
  std::vector<std::string> failed;
  auto apply = [&](int resource, const char* name, std::uint64_t value, std::string said) {
    std::string error = set_limit(resource, name, value);
    if (error.empty())
      done.push_back(std::move(said));
    else
      failed.push_back(std::move(error));
  };
  if (policy.memory_bytes != 0) {
    if (kShadowSanitizer) {
      // The sanitizer's shadow is reserved at start (terabytes of address
      // space): a cap below that would fail every later mmap, so the cap
      // counts from what is mapped now.
      const std::uint64_t base = mapped_bytes();
      apply(RLIMIT_AS, "RLIMIT_AS", base + policy.memory_bytes,
            "address space " + size_text(policy.memory_bytes) + " beyond the " + size_text(base) + " the sanitizer reserved");
    } else {
      apply(RLIMIT_AS, "RLIMIT_AS", policy.memory_bytes, "address space " + size_text(policy.memory_bytes));
    }
  }
  apply(RLIMIT_NOFILE, "RLIMIT_NOFILE", policy.open_files, std::to_string(policy.open_files) + " open files");
  apply(RLIMIT_CORE, "RLIMIT_CORE", 0, "no core files");
  // RLIMIT_NPROC is left alone: root ignores it and it counts threads; fork
  // is refused by seccomp instead.
  layer.in_effect = failed.empty();
  for (const std::string& part : done) layer.detail += (layer.detail.empty() ? "" : ", ") + part;
  for (const std::string& part : failed) layer.detail += (layer.detail.empty() ? "" : "; ") + part;
  return layer;
}

// --- no_new_privs -------------------------------------------------------------

ConfinementLayer apply_no_new_privs() {
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return {"no_new_privs", false, "prctl(PR_SET_NO_NEW_PRIVS): " + errno_text(errno)};
  return {"no_new_privs", ::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1, "no privilege gained through exec"};
}

// --- landlock -----------------------------------------------------------------

ConfinementLayer apply_landlock(const ConfinementPolicy& policy, int& abi_out) {
  ConfinementLayer layer{"landlock", false, {}};
  const long abi = ::syscall(__NR_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  if (abi < 1) {
    const int err = errno;
    layer.detail = err == EOPNOTSUPP ? "Landlock is built in but disabled at boot (" + errno_text(err) + ")"
                   : err == ENOSYS   ? "the kernel has no Landlock (" + errno_text(err) + ")"
                                     : "landlock_create_ruleset: " + errno_text(err);
    return layer;
  }
  abi_out = static_cast<int>(abi);

  RulesetAttr attr{};
  attr.handled_access_fs = handled_fs(abi_out);
  std::size_t attr_size = sizeof attr.handled_access_fs;
  if (abi_out >= 4) {
    // No port rule is ever added: every TCP bind and connect is denied.
    attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
    attr_size += sizeof attr.handled_access_net;
  }
  if (abi_out >= 6) {
    attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    attr_size += sizeof attr.scoped;
  }
  const Fd ruleset(static_cast<int>(::syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0U)));
  if (ruleset.get() < 0) {
    layer.detail = "landlock_create_ruleset: " + errno_text(errno);
    return layer;
  }

  // A path that cannot be opened or added is only left out: the ruleset is
  // then stricter than asked, never looser.
  std::vector<std::string> skipped;
  std::size_t granted = 0;
  auto allow = [&](const std::filesystem::path& path, std::uint64_t rights) {
    const Fd fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
    struct stat st {};
    if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) {
      skipped.push_back(path.string() + ": " + errno_text(errno));
      return false;
    }
    if (!S_ISDIR(st.st_mode)) rights &= kFsFileRights;
    const PathBeneathAttr rule{rights & attr.handled_access_fs, fd.get()};
    if (::syscall(__NR_landlock_add_rule, ruleset.get(), kRulePathBeneath, &rule, 0U) != 0) {
      skipped.push_back(path.string() + ": " + errno_text(errno));
      return false;
    }
    return true;
  };
  for (const std::filesystem::path& path : policy.read_only)
    if (allow(path, kFsReadFile | kFsReadDir | kFsExecute)) ++granted;
  const bool writable = !policy.writable.empty() && allow(policy.writable, attr.handled_access_fs);

  if (::syscall(__NR_landlock_restrict_self, ruleset.get(), 0U) != 0) {
    layer.detail = "landlock_restrict_self: " + errno_text(errno);
    return layer;
  }
  layer.in_effect = true;
  layer.detail = "ABI " + std::to_string(abi_out) + ": fs read-only " + std::to_string(granted) + " paths, " +
                 (writable ? "temp dir writable" : "nothing writable");
  layer.detail += abi_out >= 4 ? "; tcp bind/connect denied" : "; tcp not restricted (ABI < 4)";
  layer.detail += abi_out >= 6 ? "; abstract unix + signal scoped" : "; ipc not scoped (ABI < 6)";
  for (const std::string& skip : skipped) layer.detail += "; skipped " + skip;
  return layer;
}

// --- seccomp ------------------------------------------------------------------

// What a multi-threaded C, C++ or Rust program built against glibc (also
// under ASan and UBSan) calls to compute, allocate, use paths (Landlock
// decides which) and the descriptors it already holds. Names an
// architecture lacks are skipped.
//
// Refused (left to the default EPERM), among others: socket, socketpair,
// connect, bind, listen, accept, accept4, execve, execveat, fork, vfork,
// ptrace, process_vm_readv, process_vm_writev, mount, umount2, pivot_root,
// chroot, unshare, setns, keyctl, add_key, request_key, bpf,
// perf_event_open, init_module, finit_module, kexec_load,
// kexec_file_load, reboot, swapon, userfaultfd, io_uring_setup,
// io_uring_enter, io_uring_register; the pidfd_* calls; SysV IPC; setuid
// and friends; setrlimit; landlock_* and seccomp. Also every call that
// changes a file's metadata (chmod, fchmod, chown, utimensat, setxattr, the
// *at and f* forms): Landlock cannot restrict metadata, and a worker running
// as root would otherwise chmod system libraries.
constexpr const char* kAllowed[] = {
    // memory
    "brk", "mmap", "mmap2", "munmap", "mremap", "mprotect", "pkey_mprotect", "pkey_alloc", "pkey_free",
    "madvise", "msync", "mincore", "mlock", "mlock2", "munlock", "mlockall", "munlockall", "membarrier",
    "memfd_create", "get_mempolicy", "set_mempolicy", "mbind", "mseal",
    // threads and synchronisation (clone is added with its flags checked)
    "futex", "futex_time64", "futex_waitv", "set_robust_list", "set_tid_address", "rseq", "gettid",
    "sched_yield", "sched_getaffinity", "sched_getparam", "sched_getscheduler", "sched_getattr",
    "sched_get_priority_max", "sched_get_priority_min", "sched_rr_get_interval", "sched_rr_get_interval_time64",
    "getcpu", "arch_prctl", "prctl",
    // signals (the calls that target a process are added with their pid checked)
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigreturn", "rt_sigpending", "rt_sigsuspend",
    "rt_sigtimedwait", "rt_sigtimedwait_time64", "sigaltstack", "signalfd", "signalfd4", "pause",
    // time
    "clock_gettime", "clock_gettime64", "clock_getres", "clock_getres_time64", "clock_nanosleep",
    "clock_nanosleep_time64", "nanosleep", "gettimeofday", "time", "times", "alarm", "getitimer", "setitimer",
    "timer_create", "timer_settime", "timer_settime64", "timer_gettime", "timer_gettime64", "timer_getoverrun",
    "timer_delete", "timerfd_create", "timerfd_settime", "timerfd_settime64", "timerfd_gettime",
    "timerfd_gettime64",
    // identity and the machine
    "getpid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid", "getgroups",
    "getuid32", "geteuid32", "getgid32", "getegid32", "getresuid32", "getresgid32", "getgroups32", "getpgrp",
    "getpgid", "getsid", "uname", "sysinfo", "getrusage", "getrlimit", "ugetrlimit", "capget", "getpriority",
    "getrandom",
    // the end of a thread or process
    "exit", "exit_group", "restart_syscall", "wait4", "waitid",
    // descriptors already open, or made here without a path (ioctl and
    // fcntl narrowed by the argument filter below)
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2", "pwritev2",
    "lseek", "_llseek", "close", "close_range", "dup", "dup2", "dup3", "fcntl", "fcntl64", "ioctl", "pipe", "pipe2",
    "eventfd", "eventfd2", "poll", "ppoll", "ppoll_time64", "select", "_newselect", "pselect6",
    "pselect6_time64", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
    "epoll_pwait2", "sendfile", "sendfile64", "copy_file_range", "splice", "tee", "fstat", "fstat64",
    "fstatfs", "fstatfs64", "ftruncate", "ftruncate64", "fallocate", "fsync", "fdatasync", "sync_file_range",
    "fadvise64", "fadvise64_64", "readahead", "flock", "fgetxattr", "flistxattr", "getdents", "getdents64",
    // sockets already open (the channel to the server); no new ones
    "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "recvmmsg_time64", "sendto", "recvfrom", "shutdown",
    "getsockopt", "setsockopt", "getsockname", "getpeername",
    // paths: Landlock decides which
    "open", "openat", "openat2", "creat", "stat", "lstat", "stat64", "lstat64", "newfstatat", "fstatat64",
    "statx", "statfs", "statfs64", "access", "faccessat", "faccessat2", "readlink", "readlinkat", "getcwd",
    "chdir", "fchdir", "getxattr", "lgetxattr", "listxattr", "llistxattr", "mkdir", "mkdirat", "rmdir",
    "unlink", "unlinkat", "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat",
    "umask",
};

// One libseccomp filter being built. A name the architecture lacks is
// skipped; a rule libseccomp refuses is named in the report, since it
// leaves the call refused where it was meant to be allowed.
class Filter {
 public:
  explicit Filter(std::uint32_t default_action) : ctx_(::seccomp_init(default_action)) {}
  Filter(const Filter&) = delete;
  Filter& operator=(const Filter&) = delete;
  ~Filter() {
    if (ctx_ != nullptr) ::seccomp_release(ctx_);
  }

  bool created() const { return ctx_ != nullptr; }
  void add(std::uint32_t action, const char* name, std::initializer_list<scmp_arg_cmp> args = {}) {
    const int nr = ::seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR || nr < 0) return;  // not a call of this architecture
    if (::seccomp_rule_add_array(ctx_, action, nr, static_cast<unsigned>(args.size()), args.begin()) != 0)
      refused_.push_back(name);
    else if (action == SCMP_ACT_ALLOW)
      allowed_.insert(nr);
  }
  // 0, or the errno.
  int load() { return -::seccomp_load(ctx_); }
  std::size_t allowed() const { return allowed_.size(); }
  const std::vector<std::string>& refused() const { return refused_; }

 private:
  scmp_filter_ctx ctx_;
  std::set<int> allowed_;
  std::vector<std::string> refused_;
};

// libseccomp compares whole 64-bit arguments, one comparison per argument
// and rule, where these calls read a 32-bit int the kernel truncates to.
constexpr std::uint64_t kLow32 = 0xffffffffULL;
scmp_arg_cmp arg_eq(unsigned index, std::uint64_t value) { return scmp_arg_cmp{index, SCMP_CMP_EQ, value, 0}; }
scmp_arg_cmp arg_low32_eq(unsigned index, std::uint64_t value) {
  return scmp_arg_cmp{index, SCMP_CMP_MASKED_EQ, kLow32, value};
}

// The allow-list: every call in kAllowed, and a few more only with the
// arguments that keep them to the process itself.
void add_allow_list(Filter& filter, int landlock_abi) {
  for (const char* name : kAllowed) filter.add(SCMP_ACT_ALLOW, name);

  // Threads only: clone must carry CLONE_THREAD and no new namespace (the
  // worker may hold every capability inside its user namespace). fork(),
  // posix_spawn and vfork-style clones lack CLONE_THREAD.
  constexpr std::uint64_t kCloneChecked = CLONE_THREAD | CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS |
                                          CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET;
  filter.add(SCMP_ACT_ALLOW, "clone", {scmp_arg_cmp{0, SCMP_CMP_MASKED_EQ, kCloneChecked, CLONE_THREAD}});
  // clone3 passes its flags in memory a filter cannot read: ENOSYS makes
  // glibc fall back to clone, where they are checked.
  filter.add(SCMP_ACT_ERRNO(ENOSYS), "clone3");

  // Signals only to itself (raise, abort, pthread_kill): the pid must be
  // this process's. Landlock ABI 6 scopes signals too; this holds on older
  // kernels.
  const auto self = static_cast<std::uint64_t>(::getpid());
  for (const char* name : {"kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"})
    filter.add(SCMP_ACT_ALLOW, name, {arg_eq(0, self)});
  // Scheduling: its own threads (0, or the process's pid), never another
  // process of the same user.
  for (const char* name : {"sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr"}) {
    filter.add(SCMP_ACT_ALLOW, name, {arg_eq(0, 0)});
    filter.add(SCMP_ACT_ALLOW, name, {arg_eq(0, self)});
  }
  filter.add(SCMP_ACT_ALLOW, "setpriority", {arg_eq(0, static_cast<std::uint64_t>(PRIO_PROCESS)), arg_eq(1, 0)});
  // Read limits, never set them: prlimit64's new_limit must be NULL.
  filter.add(SCMP_ACT_ALLOW, "prlimit64", {arg_eq(2, 0)});
  // truncate(2) by path: Landlock restricts it from ABI 3 only.
  if (landlock_abi >= 3) {
    filter.add(SCMP_ACT_ALLOW, "truncate");
    filter.add(SCMP_ACT_ALLOW, "truncate64");
  }
}

// A second filter, default ALLOW, for what an allow-list cannot say ("any
// value but these two": one rule may compare an argument once). The kernel
// runs every filter and keeps the strictest answer, so this one only
// narrows calls the allow-list lets through.
void add_argument_denials(Filter& filter) {
  // TIOCSTI and TIOCLINUX push input into a terminal the process can reach.
  for (const std::uint64_t request : {std::uint64_t{TIOCSTI}, std::uint64_t{TIOCLINUX}})
    filter.add(SCMP_ACT_ERRNO(EPERM), "ioctl", {arg_low32_eq(1, request)});
  // F_SETOWN and friends make the kernel signal another process (SIGIO
  // kills by default) when the descriptor becomes ready.
  for (const char* name : {"fcntl", "fcntl64"})
    for (const std::uint64_t command : {std::uint64_t{F_SETOWN}, std::uint64_t{F_SETOWN_EX}, std::uint64_t{F_SETSIG}})
      filter.add(SCMP_ACT_ERRNO(EPERM), name, {arg_low32_eq(1, command)});
}

ConfinementLayer apply_seccomp(int landlock_abi) {
  ConfinementLayer layer{"seccomp", false, {}};
  // Refused calls fail with EPERM, not a kill: a plugin that tries
  // socket() gets an error it can report.
  Filter allow(SCMP_ACT_ERRNO(EPERM));
  Filter deny(SCMP_ACT_ALLOW);
  if (!allow.created() || !deny.created()) {
    layer.detail = "seccomp_init failed";
    return layer;
  }
  add_allow_list(allow, landlock_abi);
  add_argument_denials(deny);
  // The argument filter first: once the allow-list is loaded it refuses
  // the seccomp(2) call that would load another.
  const int deny_err = deny.load();
  const int allow_err = allow.load();
  if (allow_err != 0) {
    layer.detail = "seccomp_load: " + errno_text(allow_err);
    return layer;
  }
  layer.in_effect = true;
  layer.detail = "allow-list of " + std::to_string(allow.allowed()) +
                 " calls, others fail with EPERM; clone for threads only, clone3 ENOSYS; no TIOCSTI, no F_SETOWN";
  if (deny_err != 0) layer.detail += "; argument filter (ioctl, fcntl) not loaded: " + errno_text(deny_err);
  std::vector<std::string> refused = allow.refused();
  refused.insert(refused.end(), deny.refused().begin(), deny.refused().end());
  for (std::size_t i = 0; i < refused.size(); ++i)
    layer.detail += (i == 0 ? "; rules libseccomp refused: " : ", ") + refused[i];
  return layer;
}

}  // namespace

std::string ConfinementReport::summary() const {
  std::string on;
  std::string missing;
  for (const ConfinementLayer& layer : layers) {
    if (layer.in_effect) {
      if (!on.empty()) on += ", ";
      on += layer.name;
      if (layer.name == "landlock" && landlock_abi > 0) on += "(ABI " + std::to_string(landlock_abi) + ")";
    } else {
      missing += (missing.empty() ? "; missing: " : ", ") + layer.name + " (" + layer.detail + ")";
    }
  }
  return (on.empty() ? std::string("none") : on) + missing;
}

bool ConfinementReport::complete() const {
  return !layers.empty() &&
         std::all_of(layers.begin(), layers.end(), [](const ConfinementLayer& layer) { return layer.in_effect; });
}

ConfinementReport confine_self(const ConfinementPolicy& policy) {
  ConfinementReport report;
  const std::string_view names[] = {"no_new_privs", "seccomp", "netns", "landlock", "rlimits"};
  for (std::string_view name : names) report.layers.push_back({std::string(name), false, "not applied"});
  auto store = [&report](ConfinementLayer layer) {
    for (ConfinementLayer& slot : report.layers)
      if (slot.name == layer.name) slot = std::move(layer);
  };
  // Only allocation can throw here; a layer cut short stays "not applied".
  try {
    store(apply_network_namespace(policy));
    store(apply_rlimits(policy));
    store(apply_no_new_privs());
    store(apply_landlock(policy, report.landlock_abi));
    store(apply_seccomp(report.landlock_abi));
  } catch (const std::exception& e) {
    report.layers.push_back({"internal", false, e.what()});
  }
  return report;
}

std::vector<std::filesystem::path> default_library_paths() {
  std::vector<std::filesystem::path> paths;
  for (const char* path : {"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache",
                           "/dev/null", "/dev/urandom", "/proc/self", "/sys/devices/system/cpu"}) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) paths.emplace_back(path);
  }
  return paths;
}

}  // namespace airlock::host
