// Drives an MCP server over stdio with tools/call requests, K in flight, and
// prints the throughput and latency it saw. Every response is checked: the
// right id, no error, the payload echoed back; any failure exits non-zero.
//
//   stdio_load --server "CMD ARGS..." --calls N --inflight K --payload BYTES --tool NAME
//
// A writer thread sends while K permits allow, batching whatever is allowed
// into one write; the main thread reads, checks and returns a permit per
// response. Latency is from the write of a request
// to the read of its response.
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
  std::chrono::seconds stall_timeout{10};
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "stdio_load: " << why
            << "\nusage: stdio_load --server \"CMD ARGS...\" [--calls N] [--inflight K] "
               "[--payload BYTES] [--tool NAME] [--stall-timeout-s S]\n";
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
  return o;
}

// Splits a child's stdout into lines; waits at most `timeout` for each.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}

  // Appends complete lines to `lines`; false on EOF or after `timeout`
  // without any byte.
  bool read_some(std::vector<std::string>& lines, std::chrono::milliseconds timeout) {
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
    if (ready < 0 && errno == EINTR) return true;
    if (ready <= 0) return false;
    const ssize_t n = ::read(fd_, chunk_, sizeof chunk_);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) return false;
    std::size_t start = 0;
    const std::string_view got(chunk_, static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = got.find('\n', start)) != std::string_view::npos; start = nl + 1) {
      partial_.append(got.substr(start, nl - start));
      lines.push_back(std::move(partial_));
      partial_.clear();
    }
    partial_.append(got.substr(start));
    return true;
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
    if (!reader.read_some(lines, 10s)) {
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
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>('a' + i % 26);
  const std::string prefix = R"({"jsonrpc":"2.0","id":)";
  const std::string suffix = R"(,"method":"tools/call","params":{"name":")" + opt.tool +
                             R"(","arguments":{"text":")" + payload + "\"}}}\n";

  const auto n = static_cast<std::size_t>(opt.calls);
  std::vector<std::atomic<std::int64_t>> sent_ns(n + 1);
  std::vector<char> seen(n + 1, 0);
  std::vector<std::int64_t> latency_ns;
  latency_ns.reserve(n);
  std::counting_semaphore<INT_MAX> permits(static_cast<std::ptrdiff_t>(opt.inflight));
  std::atomic<bool> stop{false};

  const auto start = Clock::now();
  std::thread writer([&] {
    // Every permit available now goes into one write, as a pipelining client
    // would send them; one syscall per request would measure this process.
    std::string batch;
    for (std::size_t id = 1; id <= n;) {
      while (!permits.try_acquire_for(100ms))
        if (stop.load()) return;
      std::size_t count = 1;
      while (id + count <= n && count < 256 && permits.try_acquire()) ++count;
      batch.clear();
      const std::int64_t now_ns = (Clock::now() - start).count();
      for (std::size_t k = 0; k < count; ++k, ++id) {
        batch.append(prefix).append(std::to_string(id)).append(suffix);
        sent_ns[id].store(now_ns, std::memory_order_release);
      }
      if (!write_all(server.stdin_fd(), batch)) return;
    }
  });

  std::size_t received = 0;
  while (received < n) {
    if (!reader.read_some(lines, opt.stall_timeout)) {
      fail("server stalled or closed stdout after " + std::to_string(received) + " of " +
           std::to_string(n) + " responses");
      break;
    }
    const std::int64_t now_ns = (Clock::now() - start).count();
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
      if (id < 1 || static_cast<std::size_t>(id) > n || seen[static_cast<std::size_t>(id)]) {
        fail("unexpected or repeated id: " + line.substr(0, 200));
        continue;
      }
      seen[static_cast<std::size_t>(id)] = 1;
      ++received;
      permits.release();
      latency_ns.push_back(now_ns - sent_ns[static_cast<std::size_t>(id)].load(std::memory_order_acquire));
      const json::value* text = v.find_pointer("/result/content/0/text", ec);
      const json::value* is_error = v.find_pointer("/result/isError", ec);
      if (o->contains("error") || (is_error && is_error->is_bool() && is_error->as_bool()))
        fail("error response: " + line.substr(0, 300));
      else if (!text || !text->is_string() || text->as_string() != payload)
        fail("response " + std::to_string(id) + " does not echo the payload: " + line.substr(0, 200));
    }
    lines.clear();
  }
  const auto elapsed = Clock::now() - start;
  stop.store(true);
  if (received < n) server.kill();  // unblocks a writer stuck on a full pipe
  writer.join();

  server.close_stdin();
  if (!server.wait_exit(5s)) {
    fail("server did not exit within 5 s of end of input");
    server.kill();
  }

  std::sort(latency_ns.begin(), latency_ns.end());
  const double seconds = std::chrono::duration<double>(elapsed).count();
  std::printf("stdio_load: tool=%s payload=%zuB calls=%zu inflight=%lld calls/s=%.0f p50=%lldus p99=%lldus\n",
              opt.tool.c_str(), opt.payload, n, static_cast<long long>(opt.inflight),
              static_cast<double>(received) / seconds,
              static_cast<long long>(percentile_us(latency_ns, 0.50)),
              static_cast<long long>(percentile_us(latency_ns, 0.99)));
  if (!failures.empty()) {
    std::fprintf(stderr, "stdio_load: %zu failures\n", failures.size());
    const std::string log = server.stderr_text();
    if (!log.empty()) std::fprintf(stderr, "server stderr (tail):\n%s\n", log.substr(log.size() > 2000 ? log.size() - 2000 : 0).c_str());
    return 1;
  }
  return 0;
}
