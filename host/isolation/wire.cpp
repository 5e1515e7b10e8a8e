// Frames on a stream socket: a 13-byte header (u32 body length, u8 kind,
// u64 id) and the body, written with one writev so a frame is never
// interleaved with another writer's, and read with as few reads as the
// kernel allows.
#include "isolation/wire.hpp"

#include <algorithm>
#include <cerrno>

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

namespace airlock::isolation {
namespace {

constexpr std::size_t kHeader = 4 + 1 + 8;

bool read_exact(int fd, char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t got = ::read(fd, p, n);
    if (got > 0) {
      p += got;
      n -= static_cast<std::size_t>(got);
    } else if (got == 0 || errno != EINTR) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool send_frame(int fd, Kind kind, std::uint64_t id, std::string_view body) {
  if (body.size() > kMaxBody) return false;
  char header[kHeader];
  const auto length = static_cast<std::uint32_t>(body.size());
  std::memcpy(header, &length, 4);
  header[4] = static_cast<char>(kind);
  std::memcpy(header + 5, &id, 8);
  iovec parts[2] = {{header, kHeader}, {const_cast<char*>(body.data()), body.size()}};
  int count = body.empty() ? 1 : 2;
  iovec* next = parts;
  while (count > 0) {
    // sendmsg, not writev: MSG_NOSIGNAL keeps a dead peer from raising
    // SIGPIPE in the writer.
    msghdr message{};
    message.msg_iov = next;
    message.msg_iovlen = static_cast<std::size_t>(count);
    const ssize_t sent = ::sendmsg(fd, &message, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    auto left = static_cast<std::size_t>(sent);
    while (count > 0 && left >= next->iov_len) {
      left -= next->iov_len;
      ++next;
      --count;
    }
    if (count > 0) {
      next->iov_base = static_cast<char*>(next->iov_base) + left;
      next->iov_len -= left;
    }
  }
  return true;
}

bool recv_frame(int fd, Frame& out) {
  char header[kHeader];
  if (!read_exact(fd, header, kHeader)) return false;
  std::uint32_t length = 0;
  std::memcpy(&length, header, 4);
  if (length > kMaxBody) return false;
  out.kind = static_cast<Kind>(static_cast<unsigned char>(header[4]));
  std::memcpy(&out.id, header + 5, 8);
  // Grown as the bytes come, a megabyte at a time: the header is the
  // peer's word, not yet a reason to allocate.
  constexpr std::size_t kStep = std::size_t{1} << 20;
  out.body.clear();
  while (out.body.size() < length) {
    const std::size_t at = out.body.size();
    const std::size_t step = std::min<std::size_t>(kStep, length - at);
    out.body.resize(at + step);
    if (!read_exact(fd, out.body.data() + at, step)) return false;
  }
  return true;
}

}  // namespace airlock::isolation
