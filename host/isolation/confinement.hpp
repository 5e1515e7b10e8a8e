// Confines the calling process before it maps a byte of a third-party plugin.
//
// The worker (host/isolation/worker) calls confine_self() once, while it is
// still single-threaded, and reports the result to the server. Each layer
// is applied when the running kernel offers it; a missing one is named with
// the reason, and the others still apply:
//
//   no_new_privs  PR_SET_NO_NEW_PRIVS: no set-user-ID or file capability
//                 ever gains privileges (and Landlock and seccomp need it)
//   seccomp       an allow-list: a refused call fails with EPERM (a plugin
//                 calling socket() gets an error, it is not killed)
//   netns         a network namespace of its own: no interface but a down
//                 loopback (in a user namespace when the kernel allows one)
//   landlock      read (and map) only the given paths, write only beneath
//                 the private temp dir; no TCP bind or connect; no abstract
//                 unix socket or signal outside the process
//   rlimits       address space, open files, no core files
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace airlock::host {

// What the confined process may still touch.
struct ConfinementPolicy {
  // Directories or files: read, and map executable (the plugin's directory,
  // the system libraries). Paths that do not exist are skipped.
  std::vector<std::filesystem::path> read_only;
  // The worker's private temp dir: full access beneath it. Empty: none.
  std::filesystem::path writable;
  // RLIMIT_AS; 0 leaves it as it is. Under AddressSanitizer or
  // ThreadSanitizer, whose shadow memory is already reserved, the cap is
  // what the process may map beyond what it has mapped when confined.
  std::uint64_t memory_bytes = 0;
  std::uint64_t open_files = 256;  // RLIMIT_NOFILE (never above the current hard limit)
  // unshare(CLONE_NEWUSER|CLONE_NEWNET), or CLONE_NEWNET alone when no user
  // namespace can be made (root on a kernel that forbids them).
  bool network_namespace = true;
};

// One layer and whether it is in effect; detail says what it does, or why
// it is missing (with the errno text).
struct ConfinementLayer {
  std::string name;
  bool in_effect = false;
  std::string detail;
};

struct ConfinementReport {
  // no_new_privs, seccomp, netns, landlock, rlimits: always all five, in
  // this order.
  std::vector<ConfinementLayer> layers;
  int landlock_abi = 0;  // the ABI the kernel reported; 0 without Landlock

  // One line: "no_new_privs, seccomp, netns, landlock(ABI 6), rlimits", then
  // "; missing: netns (why)" for each layer not in effect.
  std::string summary() const;
  // Every layer in effect (false for an empty report).
  bool complete() const;
};

// Applies every layer the running kernel offers to the calling process, in
// the order that works: namespaces (a user namespace needs a single-threaded
// caller), rlimits, no_new_privs, Landlock, seccomp last (it refuses the
// calls the others make). Never throws, never aborts. The caller must be
// single-threaded, and stays confined for good: nothing here can be undone.
ConfinementReport confine_self(const ConfinementPolicy& policy);

// What a plugin needs to read to be dlopen'ed after confinement: /lib,
// /lib64, /usr/lib, /usr/lib64, /usr/local/lib, /etc/ld.so.cache, /dev/null,
// /dev/urandom, /proc/self (glibc and the sanitizers read their own maps)
// and /sys/devices/system/cpu (glibc counts CPUs there), each where it
// exists. The worker adds them to ConfinementPolicy::read_only.
std::vector<std::filesystem::path> default_library_paths();

}  // namespace airlock::host
