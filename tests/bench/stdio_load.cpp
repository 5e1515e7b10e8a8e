// Drives an MCP server over stdio with tools/call requests, K in flight, and
// prints the throughput and latency it saw, and the server's CPU time per
// call and peak RSS. Every response is checked: the right id, no error, the
// expected text; any failure exits non-zero.
//
//   stdio_load --server "CMD ARGS..." --calls N --inflight K --payload BYTES --tool NAME
//              [--payload-kind plain|dirty] [--max-seconds S]
//              [--warmup-calls W [--warmup-seconds S]]
//
// plain: letters the sanitizer chain passes unchanged, so every response's
// text must be the payload. dirty: text full of secrets, URLs, markup and
// control bytes (bench_support.hpp) that a chain rewrites, so every
// response's text must equal the first response's (a chain is
// deterministic); text_changed= says whether that text differs from what
// was sent. The run stops after N calls or once S seconds have passed
// (the calls in flight then are still awaited and counted).
//
// --warmup-calls W first makes W calls the same way (at most
// --warmup-seconds), checked but not measured: a JIT-compiled server (the
// TypeScript SDK's, on V8) is several times slower in its first thousands
// of calls than later, and a long-running server is measured warm.
//
// The server's figures: utime + stime from /proc/PID/stat, summed over the
// server and any process it started (an isolated plugin's worker), from
// the start of the measured calls to the last response, per call:
// cpu_us_per_call=. peak_rss_kib= is VmHWM over the same processes, read
// before stdin closes (the server's peak since it started, warm-up included).
//
// A writer thread sends while K permits allow, batching whatever is allowed
// into one write; the main thread reads, checks and returns a permit per
// response. Latency is from the write of a request
// to the read of its response.
#include "bench_support.hpp"
#include "subprocess.hpp"

#include <boost/json.hpp>

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <semaphore>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

struct Options {
  std::vector<std::string> server;
  std::int64_t calls = 10000;
  std::int64_t inflight = 32;
  std::size_t payload = 64;
  std::string tool = "example.echo";
  bool dirty = false;
  double max_seconds = 0;  // 0: no limit
  std::int64_t warmup_calls = 0;
  double warmup_seconds = 0;  // 0: no limit
  std::chrono::seconds stall_timeout{10};
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "stdio_load: " << why
            << "\nusage: stdio_load --server \"CMD ARGS...\" [--calls N] [--inflight K] "
               "[--payload BYTES] [--payload-kind plain|dirty] [--tool NAME] [--max-seconds S] "
               "[--warmup-calls W [--warmup-seconds S]] [--stall-timeout-s S]\n";
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage(flag + " needs a value");
    const std::string value = argv[++i];
    try {
      if (flag == "--server") {
        std::istringstream words(value);
        for (std::string w; words >> w;) o.server.push_back(w);
      } else if (flag == "--calls") {
        o.calls = std::stoll(value);
      } else if (flag == "--inflight") {
        o.inflight = std::stoll(value);
      } else if (flag == "--payload") {
        o.payload = std::stoull(value);
      } else if (flag == "--tool") {
        o.tool = value;
      } else if (flag == "--payload-kind") {
        if (value != "plain" && value != "dirty") usage("--payload-kind is plain or dirty");
        o.dirty = value == "dirty";
      } else if (flag == "--max-seconds") {
        o.max_seconds = std::stod(value);
      } else if (flag == "--warmup-calls") {
        o.warmup_calls = std::stoll(value);
      } else if (flag == "--warmup-seconds") {
        o.warmup_seconds = std::stod(value);
      } else if (flag == "--stall-timeout-s") {
        o.stall_timeout = std::chrono::seconds(std::stoll(value));
      } else {
        usage("unknown option " + flag);
      }
    } catch (const std::logic_error&) {
      usage("bad value for " + flag + ": " + value);
    }
  }
  if (o.server.empty()) usage("--server is required");
  if (o.calls < 1 || o.inflight < 1) usage("--calls and --inflight must be positive");
  if (o.max_seconds < 0 || o.warmup_calls < 0 || o.warmup_seconds < 0)
    usage("--max-seconds, --warmup-calls and --warmup-seconds must not be negative");
  return o;
}

// Splits a child's stdout into lines; waits at most `timeout` for each.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}

  enum class Got { bytes, nothing, eof };

  // Appends complete lines to `lines`; `nothing` after `timeout` without
  // any byte, `eof` at end of file or on an error.
  Got read_some(std::vector<std::string>& lines, std::chrono::milliseconds timeout) {
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
    if (ready < 0 && errno == EINTR) return Got::nothing;
    if (ready == 0) return Got::nothing;
    if (ready < 0) return Got::eof;
    const ssize_t n = ::read(fd_, chunk_, sizeof chunk_);
    if (n < 0 && errno == EINTR) return Got::nothing;
    if (n <= 0) return Got::eof;
    std::size_t start = 0;
    const std::string_view got(chunk_, static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = got.find('\n', start)) != std::string_view::npos; start = nl + 1) {
      partial_.append(got.substr(start, nl - start));
      lines.push_back(std::move(partial_));
      partial_.clear();
    }
    partial_.append(got.substr(start));
    return Got::bytes;
  }

 private:
  int fd_;
  std::string partial_;
  char chunk_[1 << 16];
};

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::int64_t percentile_us(std::vector<std::int64_t>& sorted_ns, double p) {
  if (sorted_ns.empty()) return 0;
  const auto i = static_cast<std::size_t>(p * static_cast<double>(sorted_ns.size() - 1));
  return sorted_ns[i] / 1000;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse_options(argc, argv);
  airlock::test::Subprocess server(opt.server);
  LineReader reader(server.stdout_fd());
  std::vector<std::string> lines;
  std::vector<std::string> failures;
  const auto fail = [&](std::string what) {
    if (failures.size() < 10) std::cerr << "stdio_load: " << what << "\n";
    failures.push_back(std::move(what));
  };

  // Handshake, synchronously.
  write_all(server.stdin_fd(),
            R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"stdio_load","version":"1"}}})"
            "\n");
  bool initialized = false;
  while (!initialized) {
    if (reader.read_some(lines, 10s) != LineReader::Got::bytes) {
      std::cerr << "stdio_load: no initialize response; server stderr:\n" << server.stderr_text();
      return 1;
    }
    for (const std::string& line : lines) {
      json::error_code ec;
      const json::value v = json::parse(line, ec);
      if (!ec && v.is_object() && v.as_object().contains("result")) initialized = true;
    }
    lines.clear();
  }
  write_all(server.stdin_fd(), R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n");

  std::string payload(opt.payload, ' ');
  if (opt.dirty)
    payload = airlock::bench::dirty_text(opt.payload);
  else
    for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>('a' + i % 26);
  const std::string prefix = R"({"jsonrpc":"2.0","id":)";
  const std::string suffix = R"(,"method":"tools/call","params":{"name":")" + opt.tool +
                             R"(","arguments":{"text":")" + airlock::bench::json_escape(payload) + "\"}}}\n";
  // What every response's text must be: the payload, or for dirty text
  // whatever the first response said.
  std::string expected = payload;
  bool have_expected = !opt.dirty;

  // One phase: calls with ids first..last, K in flight, until all are
  // answered or (once `deadline` passes) those sent are; latencies go to
  // `latency_ns`. Returns how many were answered; false in `complete` when
  // the server stalled or closed (then it has been killed).
  std::vector<std::int64_t> latency_ns;
  // Per id: when it was sent, and whether it was answered. calloc, not a
  // vector: a run bounded by --max-seconds may be given a huge --calls, and
  // calloc's fresh pages cost nothing until an id touches them, where a
  // vector would write every byte first.
  const auto ids = static_cast<std::size_t>(opt.calls + opt.warmup_calls) + 1;
  const std::unique_ptr<std::int64_t, decltype(&std::free)> sent_ns_memory(
      static_cast<std::int64_t*>(std::calloc(ids, sizeof(std::int64_t))), &std::free);
  const std::unique_ptr<char, decltype(&std::free)> seen_memory(static_cast<char*>(std::calloc(ids, 1)), &std::free);
  if (!sent_ns_memory || !seen_memory) {
    std::cerr << "stdio_load: cannot allocate for " << ids << " calls\n";
    return 2;
  }
  std::int64_t* const sent_ns = sent_ns_memory.get();  // written by the writer, read by the reader: atomic_ref
  char* const seen = seen_memory.get();                // the reader's alone
  bool text_changed = false;
  const auto start_all = Clock::now();
  const auto phase = [&](std::size_t first, std::size_t last, Clock::time_point deadline, bool& complete) {
    const std::size_t n = last - first + 1;
    latency_ns.clear();
    latency_ns.reserve(std::min<std::size_t>(n, 1 << 22));
    std::counting_semaphore<INT_MAX> permits(static_cast<std::ptrdiff_t>(opt.inflight));
    std::atomic<bool> stop{false};
    // The last id the writer sent, final once writer_done is set (it stops
    // early at the deadline).
    std::atomic<std::size_t> sent_last{first - 1};
    std::atomic<bool> writer_done{false};
    std::thread writer([&] {
      // Every permit available now goes into one write, as a pipelining client
      // would send them; one syscall per request would measure this process.
      std::string batch;
      const auto done = [&](std::size_t sent) {
        sent_last.store(sent);
        writer_done.store(true);
      };
      for (std::size_t id = first; id <= last;) {
        while (!permits.try_acquire_for(100ms))
          if (stop.load()) return done(id - 1);
        if (Clock::now() >= deadline) return done(id - 1);
        std::size_t count = 1;
        while (id + count <= last && count < 256 && permits.try_acquire()) ++count;
        batch.clear();
        const std::int64_t now_ns = (Clock::now() - start_all).count();
        for (std::size_t k = 0; k < count; ++k, ++id) {
          batch.append(prefix).append(std::to_string(id)).append(suffix);
          std::atomic_ref<std::int64_t>(sent_ns[id]).store(now_ns, std::memory_order_release);
        }
        sent_last.store(id - 1);
        if (!write_all(server.stdin_fd(), batch)) return done(id - 1);
      }
      done(last);
    });

    std::size_t received = 0;
    const auto all_answered = [&] {
      return received >= n || (writer_done.load() && received >= sent_last.load() + 1 - first);
    };
    auto last_progress = Clock::now();
    while (!all_answered()) {
      const auto got = reader.read_some(lines, 50ms);
      if (got == LineReader::Got::eof ||
          (got == LineReader::Got::nothing && Clock::now() - last_progress > opt.stall_timeout)) {
        fail("server stalled or closed stdout after " + std::to_string(received) + " of " +
             std::to_string(writer_done.load() ? sent_last.load() + 1 - first : n) + " responses");
        break;
      }
      if (got == LineReader::Got::nothing) continue;
      last_progress = Clock::now();
      const std::int64_t now_ns = (Clock::now() - start_all).count();
      for (const std::string& line : lines) {
        json::error_code ec;
        const json::value v = json::parse(line, ec);
        const json::object* o = ec ? nullptr : v.if_object();
        if (!o) {
          fail("not a JSON object: " + line.substr(0, 200));
          continue;
        }
        const json::value* id_value = o->if_contains("id");
        if (!id_value) continue;  // a notification
        const std::int64_t id = id_value->is_int64() ? id_value->as_int64() : -1;
        if (id < static_cast<std::int64_t>(first) || id > static_cast<std::int64_t>(last) ||
            seen[static_cast<std::size_t>(id)]) {
          fail("unexpected or repeated id: " + line.substr(0, 200));
          continue;
        }
        seen[static_cast<std::size_t>(id)] = 1;
        ++received;
        permits.release();
        const std::atomic_ref<std::int64_t> sent(sent_ns[static_cast<std::size_t>(id)]);
        latency_ns.push_back(now_ns - sent.load(std::memory_order_acquire));
        const json::value* text = v.find_pointer("/result/content/0/text", ec);
        const json::value* is_error = v.find_pointer("/result/isError", ec);
        if (o->contains("error") || (is_error && is_error->is_bool() && is_error->as_bool()))
          fail("error response: " + line.substr(0, 300));
        else if (!text || !text->is_string())
          fail("response " + std::to_string(id) + " has no text: " + line.substr(0, 200));
        else if (!have_expected) {
          expected = text->as_string();
          have_expected = true;
          text_changed = expected != payload;
        } else if (text->as_string() != expected) {
          fail("response " + std::to_string(id) + (opt.dirty ? " differs from the first response: "
                                                             : " does not echo the payload: ") +
               line.substr(0, 200));
        }
      }
      lines.clear();
    }
    complete = all_answered();
    stop.store(true);
    if (!complete) server.kill();  // unblocks a writer stuck on a full pipe
    writer.join();
    return received;
  };
  const auto after = [](Clock::time_point from, double seconds) {
    return seconds > 0 ? from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds))
                       : Clock::time_point::max();
  };

  bool complete = true;
  const auto warmup = static_cast<std::size_t>(opt.warmup_calls);
  if (warmup > 0) phase(1, warmup, after(Clock::now(), opt.warmup_seconds), complete);
  const auto n = static_cast<std::size_t>(opt.calls);
  std::size_t received = 0;
  airlock::bench::ServerUsage usage_before, usage_after;
  Clock::duration elapsed{};
  if (complete) {
    usage_before = airlock::bench::server_usage(server.pid());
    const auto start = Clock::now();
    received = phase(warmup + 1, warmup + n, after(start, opt.max_seconds), complete);
    elapsed = Clock::now() - start;
    // Before stdin closes: the server is still there to be read.
    usage_after = airlock::bench::server_usage(server.pid());
  }

  server.close_stdin();
  if (!server.wait_exit(5s)) {
    fail("server did not exit within 5 s of end of input");
    server.kill();
  }

  std::sort(latency_ns.begin(), latency_ns.end());
  const double seconds = std::max(1e-9, std::chrono::duration<double>(elapsed).count());
  const bool stopped_early = complete && received < n;
  std::printf("stdio_load: tool=%s payload=%zuB calls=%zu inflight=%lld calls/s=%.0f p50=%lldus p99=%lldus "
              "payload_kind=%s cpu_us_per_call=%.1f peak_rss_kib=%ld%s%s\n",
              opt.tool.c_str(), opt.payload, received, static_cast<long long>(opt.inflight),
              static_cast<double>(received) / seconds,
              static_cast<long long>(percentile_us(latency_ns, 0.50)),
              static_cast<long long>(percentile_us(latency_ns, 0.99)), opt.dirty ? "dirty" : "plain",
              (usage_after.cpu_us - usage_before.cpu_us) / static_cast<double>(std::max<std::size_t>(received, 1)),
              usage_after.peak_rss_kib, opt.dirty ? (text_changed ? " text_changed=1" : " text_changed=0") : "",
              stopped_early ? " (stopped at --max-seconds)" : "");
  if (received == 0) fail("no call completed");
  if (!failures.empty()) {
    std::fprintf(stderr, "stdio_load: %zu failures\n", failures.size());
    const std::string log = server.stderr_text();
    if (!log.empty()) std::fprintf(stderr, "server stderr (tail):\n%s\n", log.substr(log.size() > 2000 ? log.size() - 2000 : 0).c_str());
    return 1;
  }
  return 0;
}
