// Tests for MCP over stdio, with pipes standing in for stdin and stdout: line
// framing on the way in (split reads, CRLF, blank lines, a last line without
// newline, oversized lines) and whole lines on the way out from many threads.
// The session behind the transport is real; `ping` is the message whose
// answer shows a line arrived whole.
// GCC 12 at -O3 reports a false -Wrestrict inside libstdc++ for string
// concatenations like "\n" + s (GCC bug 105329); this file builds many.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include "transport/stdio_transport.hpp"

#include "test_server.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace airlock::host {
namespace {

using namespace std::chrono_literals;
using testing::ElementsAre;
using testing::HasSubstr;

// Both ends of a pipe, closed on destruction unless closed before.
class Pipe {
 public:
  Pipe() {
    if (::pipe2(fds_, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  int read_end() const { return fds_[0]; }
  int write_end() const { return fds_[1]; }
  void close_read() { close_fd(fds_[0]); }
  void close_write() { close_fd(fds_[1]); }

  // Writes all of `bytes` (blocking while the pipe is full).
  void write_all(std::string_view bytes) const {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fds_[1], bytes.data(), bytes.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error("write to pipe failed");
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  // Reads until end of file.
  std::string read_all() const {
    std::string out;
    char buffer[16384];
    for (;;) {
      const ssize_t n = ::read(fds_[0], buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return out;
      out.append(buffer, static_cast<std::size_t>(n));
    }
  }

 private:
  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  int fds_[2] = {-1, -1};
};

// A session with no plugins, whose answers are collected in order.
class Harness {
 public:
  Session::Send sender() {
    return [this](std::string message, Outbound) {
      if (message.empty()) return;  // a request that will not be answered
      std::lock_guard lock(mutex_);
      sent_.push_back(boost::json::parse(message).as_object());
    };
  }
  std::vector<boost::json::object> sent() const {
    std::lock_guard lock(mutex_);
    return sent_;
  }
  // The ids of the answers, in the order they were sent.
  std::vector<std::string> answered_ids() const {
    std::vector<std::string> ids;
    for (const auto& m : sent()) ids.push_back(boost::json::serialize(m.at("id")));
    return ids;
  }

  // Feeds `input` (then end of file) to a transport limited to `max_bytes`
  // per line. A writer thread keeps the pipe fed, so input of any size works.
  void run(std::string_view input, std::size_t max_bytes = 4096) {
    run_pieces({std::string(input)}, max_bytes);
  }

  // As run(), writing each piece separately with a pause between them, so a
  // piece usually arrives in a read of its own.
  void run_pieces(const std::vector<std::string>& pieces, std::size_t max_bytes = 4096,
                  std::chrono::milliseconds pause = 0ms) {
    Pipe in;
    Pipe out;
    StdioTransport transport(in.read_end(), out.write_end(), max_bytes, server_.executor());
    std::thread writer([&] {
      for (const auto& piece : pieces) {
        in.write_all(piece);
        if (pause > 0ms) std::this_thread::sleep_for(pause);
      }
      in.close_write();
    });
    {
      Session session(server_.state(), sender());
      transport.run(session);
    }
    writer.join();
  }

 private:
  unit::TestServer server_{{.fixtures = {}, .workers = 1, .queue_capacity = 4}};
  mutable std::mutex mutex_;  // guards sent_
  std::vector<boost::json::object> sent_;
};

std::string ping(int id) { return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"ping"})"; }

// A ping of exactly `size` bytes, padded inside its (ignored) params.
std::string ping_of_size(int id, std::size_t size) {
  const std::string head = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"ping","params":{"pad":")";
  const std::string tail = R"("}})";
  if (size < head.size() + tail.size()) throw std::logic_error("ping_of_size: too small");
  return head + std::string(size - head.size() - tail.size(), 'x') + tail;
}

// --- reading

TEST(StdioTransport, DeliversEachLineAsOneMessage) {
  Harness h;
  h.run(ping(1) + "\n" + ping(2) + "\n" + ping(3) + "\n");
  EXPECT_THAT(h.answered_ids(), ElementsAre("1", "2", "3"));
  EXPECT_EQ(h.sent()[0].at("result"), boost::json::object{});
}

TEST(StdioTransport, JoinsALineSplitAcrossReads) {
  Harness h;
  const std::string line = ping(1);
  h.run_pieces({line.substr(0, 5), line.substr(5, 10), line.substr(15), "\n" + ping(2).substr(0, 3),
                ping(2).substr(3) + "\n"},
               4096, 10ms);
  EXPECT_THAT(h.answered_ids(), ElementsAre("1", "2"));
}

TEST(StdioTransport, JoinsLinesLongerThanOneRead) {
  // The transport reads 64 KiB at a time: these lines must span reads.
  Harness h;
  h.run(ping_of_size(1, 200000) + "\n" + ping_of_size(2, 70000) + "\n" + ping(3) + "\n", 1 << 20);
  EXPECT_THAT(h.answered_ids(), ElementsAre("1", "2", "3"));
}

TEST(StdioTransport, StripsTheCarriageReturnOfCrlf) {
  Harness h;
  h.run_pieces({ping(1) + "\r\n" + ping(2) + "\r", "\n" + ping(3) + "\r\n"}, 4096, 10ms);
  EXPECT_THAT(h.answered_ids(), ElementsAre("1", "2", "3"));
  for (const auto& m : h.sent()) EXPECT_FALSE(m.contains("error")) << boost::json::serialize(m);
}

TEST(StdioTransport, IgnoresBlankLines) {
  Harness h;
  h.run("\n\n   \n\t\n\r\n" + ping(1) + "\n\n \t \r\n" + ping(2) + "\n\n");
  EXPECT_THAT(h.answered_ids(), ElementsAre("1", "2"));
}

TEST(StdioTransport, DeliversALastLineWithoutNewline) {
  Harness h;
  h.run(ping(1) + "\n" + ping(2));
  EXPECT_THAT(h.answered_ids(), ElementsAre("1", "2"));
}

TEST(StdioTransport, AnswersAMalformedLineAndGoesOn) {
  Harness h;
  h.run("{not json\n" + ping(2) + "\n");
  const auto sent = h.sent();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].at("error").at("code"), -32700);
  EXPECT_EQ(sent[1].at("id"), 2);
}

TEST(StdioTransport, AcceptsALineOfExactlyTheLimit) {
  Harness h;
  h.run(ping_of_size(1, 500) + "\n", 500);
  EXPECT_THAT(h.answered_ids(), ElementsAre("1"));
  EXPECT_TRUE(h.sent()[0].contains("result"));
}

TEST(StdioTransport, RejectsAnOversizedLineAndHandlesTheNextOne) {
  Harness h;
  h.run(ping(1) + "\n" + ping_of_size(2, 501) + "\n" + ping(3) + "\n", 500);
  const auto sent = h.sent();
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[0].at("id"), 1);
  EXPECT_TRUE(sent[1].at("id").is_null());
  EXPECT_EQ(sent[1].at("error").at("code"), -32600);
  EXPECT_THAT(std::string(sent[1].at("error").at("message").as_string()), HasSubstr("500-byte limit"));
  EXPECT_EQ(sent[2].at("id"), 3);
  EXPECT_TRUE(sent[2].contains("result"));
}

TEST(StdioTransport, RejectsAnOversizedLineSpanningManyReadsOnce) {
  Harness h;
  h.run(ping_of_size(1, 300000) + "\n" + ping(2) + "\n", 1000);
  const auto sent = h.sent();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].at("error").at("code"), -32600);
  EXPECT_EQ(sent[1].at("id"), 2);
}

TEST(StdioTransport, RejectsAnOversizedLastLineWithoutNewline) {
  Harness h;
  h.run(ping(1) + "\n" + ping_of_size(2, 2000), 1000);
  const auto sent = h.sent();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].at("id"), 1);
  EXPECT_EQ(sent[1].at("error").at("code"), -32600);
}

// --- writing

TEST(StdioTransport, WritesEachMessageFollowedByANewline) {
  Pipe out;
  Executor executor(1, 1);
  StdioTransport transport(-1, out.write_end(), 4096, executor);
  transport.write(R"({"a":1})");
  transport.write("");
  transport.write(R"({"b":2})");
  out.close_write();
  EXPECT_EQ(out.read_all(), "{\"a\":1}\n\n{\"b\":2}\n");
}

TEST(StdioTransport, WritesWholeLinesFromManyThreadsAtOnce) {
  constexpr int kThreads = 4;
  constexpr int kMessages = 12;
  constexpr std::size_t kSize = 100000;  // larger than a pipe holds: writes are partial
  Pipe out;
  Executor executor(1, 1);
  StdioTransport transport(-1, out.write_end(), 4096, executor);
  std::string received;
  std::thread reader([&] { received = out.read_all(); });
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&transport, t] {
      for (int i = 0; i < kMessages; ++i) {
        const std::string head = std::to_string(t) + ":" + std::to_string(i) + ":";
        transport.write(head + std::string(kSize - head.size(), static_cast<char>('a' + t)));
      }
    });
  }
  for (auto& w : writers) w.join();
  out.close_write();
  reader.join();

  std::vector<int> next(kThreads, 0);  // each thread's lines arrive in its order
  std::size_t lines = 0, at = 0;
  while (at < received.size()) {
    const std::size_t end = received.find('\n', at);
    ASSERT_NE(end, std::string::npos) << "output ends inside a line";
    const std::string_view line(received.data() + at, end - at);
    ASSERT_EQ(line.size(), kSize) << "line " << lines << " is not one whole message";
    const int t = line[0] - '0';
    ASSERT_TRUE(t >= 0 && t < kThreads);
    const std::string head = std::to_string(t) + ":" + std::to_string(next[t]) + ":";
    ASSERT_EQ(line.substr(0, head.size()), head);
    ASSERT_EQ(line.find_first_not_of(static_cast<char>('a' + t), head.size()), std::string_view::npos)
        << "line " << lines << " holds bytes of another message";
    ++next[t];
    ++lines;
    at = end + 1;
  }
  EXPECT_EQ(lines, std::size_t{kThreads * kMessages});
}

// Messages that queue up behind a blocked writer are written, in order, by
// that writer once the client reads again: more of them than one writev()
// takes (IOV_MAX parts, two per message), so the queue goes out in pieces.
TEST(StdioTransport, WritesAQueueLongerThanOneWritevTakesInOrder) {
  Pipe out;
  Executor executor(1, 1);
  StdioTransport transport(-1, out.write_end(), 4096, executor);
  const int capacity = ::fcntl(out.write_end(), F_GETPIPE_SZ);
  ASSERT_GT(capacity, 0);
  const std::string big(static_cast<std::size_t>(capacity) * 2, 'b');
  std::thread blocked([&] { transport.write(big); });
  // Wait until the first writer has filled the pipe: it is inside writev
  // now, and every later message queues behind it.
  for (int n = 0; n < capacity;) {
    std::this_thread::sleep_for(1ms);
    ASSERT_EQ(::ioctl(out.read_end(), FIONREAD, &n), 0);
  }
  constexpr int kQueued = 3000;
  for (int i = 0; i < kQueued; ++i) transport.write(std::to_string(i));
  std::string received;
  std::thread reader([&] { received = out.read_all(); });
  blocked.join();
  out.close_write();
  reader.join();

  std::string expected = big + "\n";
  for (int i = 0; i < kQueued; ++i) expected += std::to_string(i) + "\n";
  ASSERT_EQ(received.size(), expected.size());
  EXPECT_TRUE(received == expected) << "the queue came out of order or torn";
}

}  // namespace
}  // namespace airlock::host
