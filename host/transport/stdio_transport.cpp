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
  std::unique_lock lock(write_mutex_);
  if (closed_) return;
  if (writing_) {
    pending_.append(message).push_back('\n');
    return;
  }
  writing_ = true;
  lock.unlock();

  // The common case writes straight from the caller's buffer, no copy.
  char newline = '\n';
  iovec parts[2] = {{const_cast<char*>(message.data()), message.size()}, {&newline, 1}};
  bool open = write_all(parts, 2);

  // Then whatever queued up meanwhile, in batches, until nothing is left.
  std::string batch;
  lock.lock();
  while (open && !pending_.empty()) {
    batch.clear();
    batch.swap(pending_);
    lock.unlock();
    iovec part{batch.data(), batch.size()};
    open = write_all(&part, 1);
    lock.lock();
  }
  if (!open) {
    closed_ = true;
    pending_.clear();
  }
  writing_ = false;
}

bool StdioTransport::write_all(iovec* part, int count) {
  while (count > 0) {
    const ssize_t n = ::writev(out_fd_, part, count);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;  // the client closed stdout; there is nobody left to answer
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
  return true;
}

}  // namespace airlock::host
