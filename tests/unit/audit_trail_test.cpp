// The trail's queue and writer: a stuck sink never stalls record(), a full
// queue is counted and stated where the gap is, SIGHUP moves the trail to a
// new file without breaking the chain, and syslog gets RFC 5424 messages.
#include "audit/audit_chain.hpp"
#include "audit/audit_sink.hpp"
#include "audit/audit_trail.hpp"
#include "audit/audit_verify.hpp"
#include "metrics/metrics.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace airlock::host::audit {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using ::testing::HasSubstr;

class AuditTrail : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "airlock-audit-trail-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  AuditConfig config() const {
    AuditConfig c;
    c.enabled = true;
    c.file = dir_ / "audit.log";
    c.replica = "r1";
    c.checkpoint_interval_s = 3600;
    return c;
  }

  static Event call(int i, std::size_t subject_bytes = 8) {
    Event event;
    event.kind = Kind::tool_call;
    event.outcome = "delivered";
    event.subject = "tool_" + std::to_string(i) + std::string(subject_bytes, 'x');
    return event;
  }

  static std::vector<std::string> lines_of(std::string_view text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (auto end = text.find('\n'); end != std::string_view::npos; end = text.find('\n', start)) {
      out.emplace_back(text.substr(start, end - start));
      start = end + 1;
    }
    return out;
  }
  static std::vector<std::string> lines(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return lines_of(text.str());
  }

  fs::path dir_;
};

TEST_F(AuditTrail, RecordReturnsAtOnceWhileTheSinkIsStuckAndAFullQueueIsCountedWhereTheGapIs) {
  // A FIFO nobody reads: the writer blocks once the pipe's buffer is full.
  const fs::path fifo = dir_ / "audit.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  AuditConfig c = config();
  c.file = fifo;
  c.queue = 16;
  Metrics metrics({}, {});
  auto trail = Trail::open(c, &metrics);
  ASSERT_TRUE(trail) << trail.error().message;

  constexpr int kEvents = 2000;  // ~2 MB of records: far more than a pipe holds
  // The first is written before the others come, so the gap has a record
  // before it (the pipe's buffer takes it): where the gap is can be seen.
  (*trail)->record(call(0, 1000));
  (*trail)->flush();
  auto slowest = std::chrono::steady_clock::duration::zero();
  for (int i = 1; i < kEvents; ++i) {
    const auto start = std::chrono::steady_clock::now();
    (*trail)->record(call(i, 1000));
    slowest = std::max(slowest, std::chrono::steady_clock::now() - start);
  }
  EXPECT_LT(slowest, 50ms);  // a push, never a wait for the sink

  // Now read: the writer drains the queue, states the gap, and stops.
  std::string text;
  std::thread reader([&] {
    const int fd = ::open(fifo.c_str(), O_RDONLY | O_CLOEXEC);
    char buffer[65536];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
    ::close(fd);
  });
  (*trail)->flush();
  trail->reset();  // the last checkpoint; the FIFO's last writer closes, the reader sees EOF
  reader.join();

  std::uint64_t calls = 0;
  std::uint64_t stated = 0;
  std::size_t first_gap = 0;
  const auto records = lines_of(text);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto record = parse_record(records[i]);
    ASSERT_TRUE(record) << records[i];
    if (record->kind == "tool_call") ++calls;
    if (record->kind == "records_dropped") {
      stated += record->detail.at("dropped").as_int64();
      if (first_gap == 0) first_gap = i;
    }
  }
  EXPECT_GT(stated, 0u);
  EXPECT_GT(first_gap, 0u);
  EXPECT_EQ(calls + stated, static_cast<std::uint64_t>(kEvents));
  const std::string rendered = metrics.render();
  EXPECT_THAT(rendered, HasSubstr("airlock_audit_dropped_total " + std::to_string(stated) + "\n"));
  EXPECT_THAT(rendered, HasSubstr("airlock_audit_records_total " + std::to_string(records.size()) + "\n"));

  // What the FIFO carried is one verifiable chain.
  const fs::path copy = dir_ / "copy.log";
  std::ofstream(copy, std::ios::binary) << text;
  const auto report = verify_trail({copy}, {});
  ASSERT_TRUE(report);
  EXPECT_FALSE(report->failure) << render_report(*report);
}

TEST_F(AuditTrail, SighupAfterARenameWritesToTheNewFileAndTheChainGoesOn) {
  const AuditConfig c = config();
  const fs::path rotated = dir_ / "audit.log.1";
  {
    auto trail = Trail::open(c, nullptr);
    ASSERT_TRUE(trail) << trail.error().message;
    for (int i = 0; i < 3; ++i) (*trail)->record(call(i));
    (*trail)->flush();
    fs::rename(c.file, rotated);  // what logrotate does
    ASSERT_EQ(std::raise(SIGHUP), 0);
    for (int i = 3; i < 5; ++i) (*trail)->record(call(i));
    (*trail)->flush();
  }
  const auto old_lines = lines(rotated);
  const auto new_lines = lines(c.file);
  ASSERT_EQ(old_lines.size(), 3u);
  ASSERT_EQ(new_lines.size(), 4u);  // sink_reopened, two calls, the checkpoint
  const auto reopened = parse_record(new_lines[0]);
  ASSERT_TRUE(reopened);
  EXPECT_EQ(reopened->kind, "sink_reopened");
  EXPECT_EQ(reopened->link.seq, 4u);
  EXPECT_EQ(reopened->link.prev, line_hash(old_lines.back()));

  struct stat info {};
  ASSERT_EQ(::stat(c.file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);

  const auto both = verify_trail({rotated, c.file}, {});
  ASSERT_TRUE(both);
  EXPECT_FALSE(both->failure) << render_report(*both);
  EXPECT_TRUE(both->notes.empty()) << render_report(*both);
  EXPECT_EQ(both->records, 7u);
}

TEST_F(AuditTrail, WritesACheckpointWhenTheIntervalHasPassed) {
  AuditConfig c = config();
  c.checkpoint_interval_s = 1;
  auto trail = Trail::open(c, nullptr);
  ASSERT_TRUE(trail);
  (*trail)->record(call(1));
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  bool seen = false;
  while (!seen && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(50ms);
    for (const auto& line : lines(c.file))
      if (const auto record = parse_record(line); record && record->kind == "checkpoint") seen = true;
  }
  EXPECT_TRUE(seen);
}

TEST_F(AuditTrail, TheInstalledTrailIsTheOneRecordReaches) {
  auto trail = Trail::open(config(), nullptr);
  ASSERT_TRUE(trail);
  EXPECT_FALSE(enabled());
  record(call(0));  // nowhere: nothing is installed
  install(trail->get());
  EXPECT_TRUE(enabled());
  record(call(1));
  (*trail)->flush();
  install(nullptr);
  EXPECT_FALSE(enabled());
  const auto content = lines(config().file);
  ASSERT_EQ(content.size(), 1u);
  EXPECT_THAT(content[0], HasSubstr("tool_1"));
}

TEST_F(AuditTrail, SyslogGetsRfc5424MessagesOnItsSocket) {
  const fs::path socket_path = dir_ / "log.sock";
  const int server = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(server, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(socket_path.native().size(), sizeof address.sun_path);
  std::strcpy(address.sun_path, socket_path.c_str());
  ASSERT_EQ(::bind(server, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);

  AuditConfig c = config();
  c.sink = AuditSinkKind::syslog;
  c.syslog_socket = socket_path;
  auto trail = Trail::open(c, nullptr);
  ASSERT_TRUE(trail) << trail.error().message;
  (*trail)->record(call(1));
  Event auth;
  auth.kind = Kind::auth_failed;
  auth.failed = true;
  (*trail)->record(std::move(auth));
  (*trail)->flush();

  std::vector<std::string> messages;
  for (int i = 0; i < 2; ++i) {
    pollfd pfd{server, POLLIN, 0};
    ASSERT_EQ(::poll(&pfd, 1, 5000), 1);
    char buffer[65536];
    const ssize_t n = ::recv(server, buffer, sizeof buffer, 0);
    ASSERT_GT(n, 0);
    messages.emplace_back(buffer, static_cast<std::size_t>(n));
  }
  trail->reset();  // its last checkpoint is sent while the socket is still there
  ::close(server);

  const std::regex header(R"(^<(\d+)>1 \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z (\S+) airlock (\d+) audit - (\{.*\})$)");
  std::smatch match;
  ASSERT_TRUE(std::regex_match(messages[0], match, header)) << messages[0];
  EXPECT_EQ(match[1], "86");  // authpriv (10) * 8 + informational (6)
  EXPECT_EQ(match[2], host_name());
  EXPECT_EQ(match[3], std::to_string(::getpid()));
  EXPECT_TRUE(parse_record(match[4].str()));
  ASSERT_TRUE(std::regex_match(messages[1], match, header)) << messages[1];
  EXPECT_EQ(match[1], "84");  // warning: a failed authentication
}

TEST_F(AuditTrail, MetricsGivenLaterCountWhatCameBeforeExactlyOnce) {
  auto trail = Trail::open(config(), nullptr);
  ASSERT_TRUE(trail);
  for (int i = 0; i < 3; ++i) (*trail)->record(call(i));
  (*trail)->flush();
  Metrics metrics({}, {});
  (*trail)->count_in(&metrics);
  (*trail)->count_in(&metrics);  // given twice: still counted once
  EXPECT_THAT(metrics.render(), HasSubstr("airlock_audit_records_total 3\n"));
  (*trail)->record(call(3));
  (*trail)->flush();
  EXPECT_THAT(metrics.render(), HasSubstr("airlock_audit_records_total 4\n"));
  (*trail)->count_in(nullptr);
  (*trail)->record(call(4));
  (*trail)->flush();
  EXPECT_THAT(metrics.render(), HasSubstr("airlock_audit_records_total 4\n"));
}

TEST_F(AuditTrail, AnUnopenableFileIsAnErrorThatNamesIt) {
  AuditConfig c = config();
  c.file = dir_ / "no-such-dir" / "audit.log";
  auto trail = Trail::open(c, nullptr);
  ASSERT_FALSE(trail);
  EXPECT_THAT(trail.error().message, HasSubstr("no-such-dir/audit.log: cannot open the audit trail"));
}

}  // namespace
}  // namespace airlock::host::audit
