// The frames between the server and a worker: what one side writes the
// other reads back whole, inline or through a memfd, and what a hostile
// worker could send instead is refused without trusting a byte of it.
#include "isolation/wire.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

namespace airlock::isolation {
namespace {

struct SocketPair {
  int fd[2] = {-1, -1};
  SocketPair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fd), 0); }
  ~SocketPair() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
  void close_writer() {
    close(fd[0]);
    fd[0] = -1;
  }
};

// A message whose header claims `length`, sent with `fd` attached (or none).
bool send_raw(int socket, std::string_view bytes, int fd = -1) {
  iovec part{const_cast<char*>(bytes.data()), bytes.size()};
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&message);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  return sendmsg(socket, &message, 0) >= 0;
}

std::string header(std::uint32_t length, Kind kind = Kind::done, std::uint64_t id = 1) {
  std::string h(kHeaderSize, '\0');
  std::memcpy(h.data(), &length, 4);
  h[4] = static_cast<char>(kind);
  std::memcpy(h.data() + 5, &id, 8);
  return h;
}

int memfd_with(std::string_view bytes, int seals) {
  const int fd = memfd_create("wire-test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  EXPECT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  if (seals) {
    EXPECT_EQ(fcntl(fd, F_ADD_SEALS, seals), 0);
  }
  return fd;
}

TEST(WireTest, AFrameArrivesWithItsKindIdAndBody) {
  SocketPair pair;
  WireWriter w;
  w.u32(7).str("héllo").u8(1).i32(-4).u64(1ull << 40).f64(0.5);
  ASSERT_TRUE(send_frame(pair.fd[0], Kind::call_tool, 42, w.body()));
  Frame frame;
  std::string buffer;
  ASSERT_EQ(recv_frame(pair.fd[1], frame, buffer), Received::frame);
  EXPECT_EQ(frame.kind, Kind::call_tool);
  EXPECT_EQ(frame.id, 42u);
  WireReader r(frame.body);
  EXPECT_EQ(r.u32(), 7u);
  EXPECT_EQ(r.str(), "héllo");
  EXPECT_EQ(r.u8(), 1u);
  EXPECT_EQ(r.i32(), -4);
  EXPECT_EQ(r.u64(), 1ull << 40);
  EXPECT_EQ(r.f64(), 0.5);
  EXPECT_TRUE(r.at_end());
}

TEST(WireTest, BodiesOnEitherSideOfTheInlineLimitArriveWholeAndInOrder) {
  SocketPair pair;
  const std::string inline_body(kInlineMax, 'i');
  const std::string memfd_body(kInlineMax + 1, 'm');
  const std::string big(4 << 20, 'x');  // far past the socket's buffer
  ASSERT_TRUE(send_frame(pair.fd[0], Kind::done, 1, inline_body));
  ASSERT_TRUE(send_frame(pair.fd[0], Kind::done, 2, memfd_body));
  ASSERT_TRUE(send_frame(pair.fd[0], Kind::done, 3, big));
  ASSERT_TRUE(send_frame(pair.fd[0], Kind::done, 4, ""));
  Frame frame;
  std::string buffer;
  for (const auto& [id, body] : {std::pair<std::uint64_t, const std::string*>{1, &inline_body},
                                 {2, &memfd_body}, {3, &big}}) {
    ASSERT_EQ(recv_frame(pair.fd[1], frame, buffer), Received::frame);
    EXPECT_EQ(frame.id, id);
    EXPECT_EQ(frame.body, *body);
  }
  ASSERT_EQ(recv_frame(pair.fd[1], frame, buffer), Received::frame);
  EXPECT_EQ(frame.id, 4u);
  EXPECT_EQ(frame.body, "");
}

TEST(WireTest, ABodyInAMemfdIsReadOnlyWhenSealedAndOfTheLengthItsHeaderClaims) {
  const std::string body(kInlineMax + 100, 'b');
  const int all = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
  struct Case {
    const char* what;
    int seals;
    std::uint32_t claimed;
    Received expected;
  };
  for (const Case& c : {Case{"sealed, right length", all, static_cast<std::uint32_t>(body.size()), Received::frame},
                        Case{"not sealed against writes", F_SEAL_SHRINK | F_SEAL_GROW,
                             static_cast<std::uint32_t>(body.size()), Received::broken},
                        Case{"not sealed at all", 0, static_cast<std::uint32_t>(body.size()), Received::broken},
                        Case{"claims more than it holds", all, static_cast<std::uint32_t>(body.size() + 1),
                             Received::broken},
                        Case{"claims what fits inline", all, 10, Received::broken}}) {
    SCOPED_TRACE(c.what);
    SocketPair pair;
    const int fd = memfd_with(body, c.seals);
    ASSERT_TRUE(send_raw(pair.fd[0], header(c.claimed), fd));
    close(fd);
    Frame frame;
    std::string buffer;
    EXPECT_EQ(recv_frame(pair.fd[1], frame, buffer), c.expected);
    if (c.expected == Received::frame) {
      EXPECT_EQ(frame.body, body);
    }
  }
}

TEST(WireTest, APipeInPlaceOfABodyIsRefusedWithoutBlocking) {
  SocketPair pair;
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  ASSERT_TRUE(send_raw(pair.fd[0], header(kInlineMax + 1), pipe_fds[0]));
  Frame frame;
  std::string buffer;
  EXPECT_EQ(recv_frame(pair.fd[1], frame, buffer), Received::broken);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

TEST(WireTest, AStringLongerThanItsBodyReadsEmptyAndMarksTheReaderBad) {
  WireWriter w;
  w.u32(1000);  // a length with no bytes behind it
  w.u8(1);
  WireReader r(w.body());
  EXPECT_EQ(r.str(), "");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.u32(), 0u);  // and stays bad
  EXPECT_FALSE(r.ok());
}

TEST(WireTest, AMessageWhoseLengthDisagreesWithItsHeaderIsRefused) {
  SocketPair pair;
  ASSERT_TRUE(send_raw(pair.fd[0], header(0xffffffffu) + "abc"));
  ASSERT_TRUE(send_raw(pair.fd[0], header(100) + "abc"));
  ASSERT_TRUE(send_raw(pair.fd[0], header(2) + "abc"));
  ASSERT_TRUE(send_raw(pair.fd[0], "short"));
  Frame frame;
  std::string buffer;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(recv_frame(pair.fd[1], frame, buffer), Received::broken) << i;
}

TEST(WireTest, AMessageLongerThanAnyWeSendIsRefusedNotCut) {
  SocketPair pair;
  const std::string body(kInlineMax + 1, 'x');
  ASSERT_TRUE(send_raw(pair.fd[0], header(static_cast<std::uint32_t>(body.size())) + body));
  Frame frame;
  std::string buffer;
  EXPECT_EQ(recv_frame(pair.fd[1], frame, buffer), Received::broken);
}

TEST(WireTest, APeerThatClosesReadsAsClosedAndATimeoutAsATimeout) {
  SocketPair pair;
  const timeval poll{0, 10'000};
  ASSERT_EQ(setsockopt(pair.fd[1], SOL_SOCKET, SO_RCVTIMEO, &poll, sizeof poll), 0);
  Frame frame;
  std::string buffer;
  EXPECT_EQ(recv_frame(pair.fd[1], frame, buffer), Received::timeout);
  pair.close_writer();
  EXPECT_EQ(recv_frame(pair.fd[1], frame, buffer), Received::closed);
}

TEST(WireTest, SendingToAClosedPeerFailsWithoutSigpipe) {
  SocketPair pair;
  close(pair.fd[1]);
  pair.fd[1] = -1;
  EXPECT_FALSE(send_frame(pair.fd[0], Kind::reply, 1, "x"));
}

}  // namespace
}  // namespace airlock::isolation
