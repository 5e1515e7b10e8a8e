// The three audit sinks. Each write is one system call for the whole record
// where the kernel allows it: a file opened O_APPEND gets the line and its
// newline in one write(), so another appender (logrotate's copytruncate, a
// second process by mistake) cannot land inside it.
#include "audit/audit_sink.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <system_error>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace airlock::host::audit {

namespace {

std::string errno_text(int error) { return std::generic_category().message(error); }

// Writes all of `bytes`; on an error returns errno and how much went.
std::pair<int, std::size_t> write_all(int fd, std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return {errno, done};
    done += static_cast<std::size_t>(n);
  }
  return {0, done};
}

class FileSink final : public Sink {
 public:
  explicit FileSink(std::filesystem::path path) : path_(std::move(path)) {}
  ~FileSink() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Result<void> open() {
    const int fd = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return Error{fmt::format("{}: cannot open the audit trail: {}", path_.string(), errno_text(errno))};
    auto tail = read_file_tail(fd, path_);
    if (!tail) {
      ::close(fd);
      return tail.error();
    }
    // A line without its newline is a write the process did not finish; a
    // record appended after it would be glued to it.
    if (tail->torn_bytes > 0 && ::ftruncate(fd, static_cast<off_t>(tail->complete_size)) != 0) {
      const int error = errno;
      ::close(fd);
      return Error{fmt::format("{}: cannot cut off a torn last line: {}", path_.string(), errno_text(error))};
    }
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
    tail_ = std::move(*tail);
    return {};
  }

  Result<void> write(std::string_view record, Severity) override {
    line_.assign(record);
    line_ += '\n';
    return write_lines(line_);
  }

  bool writes_lines() const override { return true; }

  Result<void> write_lines(std::string_view lines) override {
    if (fd_ < 0) {
      if (auto opened = open(); !opened) return opened.error();
    }
    const auto [error, written] = write_all(fd_, lines);
    if (error == 0) return {};
    // Take back the part that went, so the retry does not follow a torn line.
    if (written > 0) {
      struct stat info {};
      if (::fstat(fd_, &info) == 0 && static_cast<std::uint64_t>(info.st_size) >= written)
        (void)::ftruncate(fd_, info.st_size - static_cast<off_t>(written));
    }
    return Error{fmt::format("{}: cannot write the audit trail: {}", path_.string(), errno_text(error))};
  }

  Result<void> reopen() override { return open(); }
  FileTail tail() const override { return tail_; }
  std::string describe() const override { return path_.string(); }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  FileTail tail_;
  std::string line_;  // the record and its newline, reused
};

class StderrSink final : public Sink {
 public:
  Result<void> write(std::string_view record, Severity) override {
    line_.assign(record);
    line_ += '\n';
    return write_lines(line_);
  }

  bool writes_lines() const override { return true; }

  Result<void> write_lines(std::string_view lines) override {
    if (const auto [error, written] = write_all(STDERR_FILENO, lines); error != 0)
      return Error{fmt::format("stderr: cannot write the audit trail: {}", errno_text(error))};
    return {};
  }
  Result<void> reopen() override { return {}; }
  std::string describe() const override { return "stderr"; }

 private:
  std::string line_;
};

class SyslogSink final : public Sink {
 public:
  explicit SyslogSink(std::filesystem::path socket_path)
      : socket_path_(std::move(socket_path)), host_name_(host_name()), pid_(::getpid()) {}
  ~SyslogSink() override { disconnect(); }

  Result<void> connect() {
    disconnect();
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const std::string& path = socket_path_.native();
    if (path.size() >= sizeof address.sun_path)
      return Error{fmt::format("{}: the syslog socket path is too long", path)};
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return Error{fmt::format("{}: cannot create a socket: {}", path, errno_text(errno))};
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
      const int error = errno;
      ::close(fd);
      return Error{fmt::format("{}: cannot reach syslog: {}", path, errno_text(error))};
    }
    fd_ = fd;
    return {};
  }

  Result<void> write(std::string_view record, Severity severity) override {
    if (fd_ < 0) {
      if (auto connected = connect(); !connected) return connected.error();
    }
    message_ = syslog_header(severity, host_name_, pid_);
    message_ += record;
    while (true) {
      if (::send(fd_, message_.data(), message_.size(), MSG_NOSIGNAL) >= 0) return {};
      if (errno == EINTR) continue;
      const int error = errno;
      // syslogd restarted: its socket is a new one; connect again next time.
      disconnect();
      return Error{fmt::format("{}: cannot send to syslog: {}", socket_path_.string(), errno_text(error))};
    }
  }

  Result<void> reopen() override { return connect(); }
  std::string describe() const override { return socket_path_.string(); }

 private:
  void disconnect() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  std::filesystem::path socket_path_;
  std::string host_name_;
  long pid_;
  int fd_ = -1;
  std::string message_;  // reused
};

}  // namespace

Result<std::unique_ptr<Sink>> open_file_sink(const std::filesystem::path& path) {
  auto sink = std::make_unique<FileSink>(path);
  if (auto opened = sink->open(); !opened) return opened.error();
  return std::unique_ptr<Sink>(std::move(sink));
}

Result<std::unique_ptr<Sink>> open_stderr_sink() { return std::unique_ptr<Sink>(std::make_unique<StderrSink>()); }

Result<std::unique_ptr<Sink>> open_syslog_sink(const std::filesystem::path& socket_path) {
  auto sink = std::make_unique<SyslogSink>(socket_path);
  // Not there yet is not fatal: syslog may come up after airlock, and each
  // write tries again.
  (void)sink->connect();
  return std::unique_ptr<Sink>(std::move(sink));
}

Result<std::unique_ptr<Sink>> open_sink(const AuditConfig& config) {
  switch (config.sink) {
    case AuditSinkKind::file:
      if (config.file.empty()) return Error{"[audit]: sink = \"file\" needs a file"};
      return open_file_sink(config.file);
    case AuditSinkKind::stderr_stream:
      return open_stderr_sink();
    case AuditSinkKind::syslog:
      return open_syslog_sink(config.syslog_socket);
  }
  return Error{"[audit]: unknown sink"};
}

int syslog_severity(Severity severity) noexcept {
  switch (severity) {
    case Severity::informational:
      return 6;
    case Severity::low:
      return 5;
    case Severity::medium:
      return 4;
    case Severity::high:
      return 3;
  }
  return 6;
}

std::string syslog_header(Severity severity, std::string_view host_name, long pid) {
  constexpr int kAuthpriv = 10;
  const auto now = std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
  const auto seconds = std::chrono::time_point_cast<std::chrono::seconds>(now);
  const auto micros = (now - seconds).count();
  const std::time_t t = std::chrono::system_clock::to_time_t(seconds);
  std::tm utc{};
  ::gmtime_r(&t, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
  return fmt::format("<{}>1 {}.{:06}Z {} airlock {} audit - ", kAuthpriv * 8 + syslog_severity(severity), stamp,
                     micros, host_name.empty() ? "-" : host_name, pid);
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  std::string text(name);
  // RFC 5424 HOSTNAME is printable US-ASCII without spaces.
  for (char& c : text)
    if (c <= ' ' || c > '~') c = '-';
  return text;
}

}  // namespace airlock::host::audit
