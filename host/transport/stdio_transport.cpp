#include "transport/stdio_transport.hpp"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <sys/uio.h>
#include <unistd.h>

namespace airlock::host {

StdioTransport::StdioTransport(int in_fd, int out_fd, std::size_t max_message_bytes)
    : in_fd_(in_fd), out_fd_(out_fd), max_message_bytes_(max_message_bytes) {}

void StdioTransport::run(Session& session) {
  std::string line;     // the message being assembled
  bool skipping = false;  // inside an oversized line: drop bytes until '\n'
  char buffer[64 * 1024];

  auto deliver = [&] {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // Blank lines are not messages; some clients send them as keep-alives.
    if (line.find_first_not_of(" \t") != std::string::npos) session.handle(line);
    line.clear();
  };

  for (;;) {
    const ssize_t n = ::read(in_fd_, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      spdlog::error("stdin: read failed: {}", std::strerror(errno));
      break;
    }
    std::string_view chunk(buffer, static_cast<std::size_t>(n));
    while (!chunk.empty()) {
      const auto newline = chunk.find('\n');
      const std::string_view piece = chunk.substr(0, newline);
      if (!skipping) {
        if (line.size() + piece.size() > max_message_bytes_) {
          skipping = true;
          line.clear();
          line.shrink_to_fit();
          session.reject_oversized(max_message_bytes_);
        } else {
          line.append(piece);
        }
      }
      if (newline == std::string_view::npos) break;
      if (skipping) {
        skipping = false;
      } else {
        deliver();
      }
      chunk.remove_prefix(newline + 1);
    }
  }
  // A last message without its newline still counts.
  if (!skipping && !line.empty()) deliver();
}

void StdioTransport::write(std::string_view message) {
  std::lock_guard lock(write_mutex_);
  char newline = '\n';
  iovec parts[2] = {{const_cast<char*>(message.data()), message.size()}, {&newline, 1}};
  int count = 2;
  iovec* part = parts;
  while (count > 0) {
    const ssize_t n = ::writev(out_fd_, part, count);
    if (n < 0) {
      if (errno == EINTR) continue;
      // The client closed stdout; there is nobody left to answer.
      return;
    }
    auto left = static_cast<std::size_t>(n);
    while (count > 0 && left >= part->iov_len) {
      left -= part->iov_len;
      ++part;
      --count;
    }
    if (count > 0) {
      part->iov_base = static_cast<char*>(part->iov_base) + left;
      part->iov_len -= left;
    }
  }
}

}  // namespace airlock::host
