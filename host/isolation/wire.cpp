// Frames as messages: a 13-byte header (u32 body length, u8 kind, u64 id)
// and the body in one sendmsg, or the header alone with the body in a
// sealed memfd riding along as SCM_RIGHTS.
#include "isolation/wire.hpp"

#include <cerrno>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace airlock::isolation {
namespace {

// What a body's memfd must be sealed against before its reader trusts the
// length it checked: neither grown, shrunk nor written again.
constexpr int kBodySeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;

bool send_message(int fd, msghdr& message) {
  for (;;) {
    // MSG_NOSIGNAL: a dead peer is an error to return, not a SIGPIPE.
    if (::sendmsg(fd, &message, MSG_NOSIGNAL) >= 0) return true;
    if (errno != EINTR) return false;
  }
}

// A memfd holding `body`, sealed; -1 when one cannot be made.
int sealed_body(std::string_view body) {
  const int fd = memfd_create("airlock-frame", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return -1;
  std::size_t done = 0;
  while (done < body.size()) {
    const ssize_t n = ::write(fd, body.data() + done, body.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      return -1;
    }
    done += static_cast<std::size_t>(n);
  }
  if (fcntl(fd, F_ADD_SEALS, kBodySeals | F_SEAL_SEAL) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// The body of a frame that came as a memfd: only a sealed one of exactly
// the announced length is read, so the sender can change nothing after
// the check and a pipe or socket cannot make the reader block.
bool read_sealed_body(int fd, std::uint32_t length, std::string& body) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const int seals = fcntl(fd, F_GET_SEALS);
  if (seals < 0 || (seals & kBodySeals) != kBodySeals) return false;
  if (st.st_size != static_cast<off_t>(length)) return false;
  body.resize(length);
  std::size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd, body.data() + done, length - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// A message's kind and id into `out`; returns the body length it claims.
std::uint32_t decode_header(const char* header, Frame& out) {
  std::uint32_t length = 0;
  std::memcpy(&length, header, 4);
  out.kind = static_cast<Kind>(static_cast<unsigned char>(header[4]));
  std::memcpy(&out.id, header + 5, 8);
  return length;
}

}  // namespace

void encode_header(char* out, Kind kind, std::uint64_t id, std::size_t length) {
  const auto n = static_cast<std::uint32_t>(length);
  std::memcpy(out, &n, 4);
  out[4] = static_cast<char>(kind);
  std::memcpy(out + 5, &id, 8);
}

Received decode_message(std::string_view message, Frame& out, std::size_t max_body) {
  if (message.size() < kHeaderSize) return Received::broken;
  const std::uint32_t length = decode_header(message.data(), out);
  if (length > max_body || message.size() != kHeaderSize + length) return Received::broken;
  out.body.assign(message.data() + kHeaderSize, length);
  return Received::frame;
}

bool send_frame(int fd, Kind kind, std::uint64_t id, std::string_view body) {
  if (body.size() > kMaxBody) return false;
  char header[kHeaderSize];
  encode_header(header, kind, id, body.size());
  msghdr message{};
  if (body.size() <= kInlineMax) {
    iovec parts[2] = {{header, kHeaderSize}, {const_cast<char*>(body.data()), body.size()}};
    message.msg_iov = parts;
    message.msg_iovlen = body.empty() ? 1 : 2;
    return send_message(fd, message);
  }
  const int body_fd = sealed_body(body);
  if (body_fd < 0) return false;
  iovec part{header, kHeaderSize};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&message);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &body_fd, sizeof body_fd);
  const bool sent = send_message(fd, message);
  close(body_fd);
  return sent;
}

Received recv_frame(int fd, Frame& out, std::string& buffer) {
  // One byte over the largest message we send, so a longer one is seen
  // as truncated rather than taken for whole.
  if (buffer.size() < kHeaderSize + kInlineMax + 1) buffer.resize(kHeaderSize + kInlineMax + 1);
  iovec part{buffer.data(), buffer.size()};
  // Room for one descriptor; the kernel closes any more and says so.
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t got;
  do {
    got = ::recvmsg(fd, &message, MSG_CMSG_CLOEXEC);
  } while (got < 0 && errno == EINTR);
  if (got < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? Received::timeout : Received::closed;

  int body_fd = -1;
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int received;
      std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof received);
      if (body_fd < 0)
        body_fd = received;
      else
        close(received);  // more than one: broken, below
    }
  }
  struct CloseBody {
    int fd;
    ~CloseBody() {
      if (fd >= 0) close(fd);
    }
  } close_body{body_fd};

  if (got == 0 && body_fd < 0) return Received::closed;
  const auto size = static_cast<std::size_t>(got);
  if (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) return Received::broken;
  if (body_fd < 0) return decode_message(std::string_view(buffer.data(), size), out);
  if (size != kHeaderSize) return Received::broken;
  const std::uint32_t length = decode_header(buffer.data(), out);
  // A body in a memfd is never one that would have fitted in the message.
  if (length <= kInlineMax || length > kMaxBody) return Received::broken;
  return read_sealed_body(body_fd, length, out.body) ? Received::frame : Received::broken;
}

}  // namespace airlock::isolation
