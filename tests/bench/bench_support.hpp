// What the load drivers (stdio_load, http_load) share: the dirty payload, a
// JSON string escaper for it, and the server's CPU time and peak RSS read
// from /proc. Header-only; Linux only, like the drivers.
#pragma once

#include <dirent.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::bench {

// --payload-kind dirty: text the four first-party sanitizers all act on, so
// the chain does real work instead of scanning clean text. One sentence,
// repeated and cut to the requested size (bytes of text, before JSON
// escaping), with
//   - a URL with a query token, and a www link inside Markdown link syntax
//     (airlock.inert-urls defangs both: hxxps://ci[.]example[.]com);
//   - an AWS access key id, a GitHub token and a JWT after "Bearer"
//     (airlock.redact-secrets replaces each with [REDACTED]);
//   - <script> and [text](url) (airlock.escape-markup: &lt;script&gt;, \[open\]);
//   - BEL and an ANSI colour sequence (airlock.strip-control removes them);
//     they travel as \u0007 and \u001b in the request's JSON.
// ASCII only, so a cut never splits a UTF-8 sequence; a cut inside a
// sequence or a token is fine, the chain's answer is deterministic either way.
inline std::string dirty_text(std::size_t size) {
  static constexpr std::string_view kSentence =
      "Build 7 failed: see https://ci.example.com/run/42?token=Zq81fK2mB7 (key AKIAIOSFODNN7EXAMPLE, "
      "token ghp_0123456789abcdefghijABCDEFGHIJ012345, Authorization: Bearer "
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl) <script>alert(1)</script> **urgent** "
      "[open](http://www.example.org/x) \x07\x1b[31mred\x1b[0m done.\n";
  std::string text;
  text.reserve(size + kSentence.size());
  while (text.size() < size) text.append(kSentence);
  text.resize(size);
  return text;
}

// `text` as the inside of a JSON string: quote, backslash and control bytes
// escaped, everything else as it is.
inline std::string json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out.append("\\n");
    } else if (b < 0x20 || b == 0x7F) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", b);
      out.append(escaped);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// The processes a server is made of: `pid` and everything it started (an
// isolated plugin's airlock-worker), found through /proc/PID/task/TID/children.
inline std::vector<pid_t> process_tree(pid_t pid) {
  std::vector<pid_t> tree{pid};
  for (std::size_t i = 0; i < tree.size(); ++i) {
    const std::string task_dir = "/proc/" + std::to_string(tree[i]) + "/task/";
    DIR* tasks = ::opendir(task_dir.c_str());
    if (!tasks) continue;  // it has exited
    while (const dirent* entry = ::readdir(tasks)) {
      if (entry->d_name[0] == '.') continue;
      std::ifstream children(task_dir + entry->d_name + "/children");
      for (long child; children >> child;) tree.push_back(static_cast<pid_t>(child));
    }
    ::closedir(tasks);
  }
  return tree;
}

// utime + stime of one process, all its threads, in clock ticks; -1 if gone.
inline std::int64_t cpu_ticks(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  // The command name may hold spaces and parentheses: fields are counted
  // from the last ')'. After it come state (field 3) ... utime (14), stime (15).
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  std::int64_t utime = 0, stime = 0;
  for (int n = 3; n <= 15 && fields >> field; ++n) {
    if (n == 14) utime = std::strtoll(field.c_str(), nullptr, 10);
    if (n == 15) stime = std::strtoll(field.c_str(), nullptr, 10);
  }
  return utime + stime;
}

// A /proc/PID/status value in KiB (VmHWM, VmRSS), or -1.
inline long status_kib(pid_t pid, std::string_view key) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with(key) && line.size() > key.size() && line[key.size()] == ':')
      return std::strtol(line.c_str() + key.size() + 1, nullptr, 10);
  return -1;
}

// The server's CPU time (µs) and peak RSS (KiB), each summed over its process
// tree: a worker's cycles and pages are the server's too.
struct ServerUsage {
  double cpu_us = 0;
  long peak_rss_kib = 0;
};

inline ServerUsage server_usage(pid_t pid) {
  static const double us_per_tick = 1e6 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  ServerUsage usage;
  for (const pid_t p : process_tree(pid)) {
    const std::int64_t ticks = cpu_ticks(p);
    if (ticks > 0) usage.cpu_us += static_cast<double>(ticks) * us_per_tick;
    const long hwm = status_kib(p, "VmHWM");
    if (hwm > 0) usage.peak_rss_kib += hwm;
  }
  return usage;
}

}  // namespace airlock::bench
