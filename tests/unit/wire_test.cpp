// The frames between the server and a worker: what one side writes the
// other reads back whole, and what a hostile worker could send instead is
// refused without reading past the bytes that arrived.
#include "isolation/wire.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include <sys/socket.h>
#include <unistd.h>

namespace airlock::isolation {
namespace {

struct SocketPair {
  int fd[2] = {-1, -1};
  SocketPair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0); }
  ~SocketPair() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
  void close_writer() {
    close(fd[0]);
    fd[0] = -1;
  }
};

TEST(WireTest, AFrameArrivesWithItsKindIdAndBody) {
  SocketPair pair;
  WireWriter w;
  w.u32(7).str("héllo").u8(1).i32(-4).u64(1ull << 40).f64(0.5);
  ASSERT_TRUE(send_frame(pair.fd[0], Kind::call_tool, 42, w.body()));
  Frame frame;
  ASSERT_TRUE(recv_frame(pair.fd[1], frame));
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

TEST(WireTest, ABodyLargerThanTheSocketBufferArrivesWhole) {
  SocketPair pair;
  const std::string big(4 << 20, 'x');
  std::thread writer([&] {
    WireWriter w;
    w.str(big);
    EXPECT_TRUE(send_frame(pair.fd[0], Kind::done, 1, w.body()));
  });
  Frame frame;
  ASSERT_TRUE(recv_frame(pair.fd[1], frame));
  writer.join();
  WireReader r(frame.body);
  EXPECT_EQ(r.str().size(), big.size());
  EXPECT_TRUE(r.at_end());
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

TEST(WireTest, AFrameAnnouncingMoreThanTheLimitIsRefusedUnread) {
  SocketPair pair;
  char header[13] = {};
  const std::uint32_t length = 0xffffffffu;
  std::memcpy(header, &length, 4);
  header[4] = static_cast<char>(Kind::done);
  ASSERT_EQ(write(pair.fd[0], header, sizeof header), static_cast<ssize_t>(sizeof header));
  Frame frame;
  EXPECT_FALSE(recv_frame(pair.fd[1], frame));
}

TEST(WireTest, AFrameCutShortByTheWriterDyingIsNotDelivered) {
  SocketPair pair;
  char header[13] = {};
  const std::uint32_t length = 100;
  std::memcpy(header, &length, 4);
  ASSERT_EQ(write(pair.fd[0], header, sizeof header), static_cast<ssize_t>(sizeof header));
  ASSERT_EQ(write(pair.fd[0], "abc", 3), 3);
  pair.close_writer();
  Frame frame;
  EXPECT_FALSE(recv_frame(pair.fd[1], frame));
}

TEST(WireTest, SendingToAClosedPeerFailsWithoutSigpipe) {
  SocketPair pair;
  close(pair.fd[1]);
  pair.fd[1] = -1;
  EXPECT_FALSE(send_frame(pair.fd[0], Kind::reply, 1, "x"));
}

}  // namespace
}  // namespace airlock::isolation
