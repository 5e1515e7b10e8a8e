// A lane's mailboxes: frames cross whole and in order between two processes
// (inline, and on the socket when too large), a sleeping side is woken, and
// what a hostile worker can write into the shared memory (a flag we never
// write, a size past the mailbox, a marker with nothing behind it) ends in
// a broken lane or a time-out, never a hang or a read past the box.
#include "isolation/lane_memory.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace airlock::isolation {
namespace {

using std::chrono::milliseconds;

struct Lane {
  int memfd = LaneMemory::create();
  LaneMemory server{memfd};
  int sockets[2] = {-1, -1};
  Lane() {
    EXPECT_GE(memfd, 0);
    EXPECT_NE(server.region(), nullptr);
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sockets), 0);
    const timeval poll{0, 20'000};
    setsockopt(sockets[0], SOL_SOCKET, SO_RCVTIMEO, &poll, sizeof poll);
  }
  ~Lane() {
    close(memfd);
    close(sockets[0]);
    close(sockets[1]);
  }
  LaneRegion& region() { return *server.region(); }
};

TEST(LaneMemoryTest, FramesCrossToAnotherProcessWholeAndInOrderInlineOrOnTheSocket) {
  Lane lane;
  const std::string small = "ping";
  const std::string inline_large(kLaneInlineMax, 'I');
  const std::string large(kLaneInlineMax + 1, 'L');
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The worker's side, in its own mapping of the memfd: echo each frame
    // back with id + 1, then stop at an empty one.
    LaneMemory worker(lane.memfd);
    Frame frame;
    std::string buffer;
    for (;;) {
      if (take(worker.region()->to_worker, lane.sockets[1], frame, buffer, std::nullopt) != Received::frame) _exit(2);
      if (frame.body.empty()) _exit(0);
      if (post(worker.region()->to_server, lane.sockets[1], Kind::done, frame.id + 1, frame.body, std::nullopt) !=
          Received::frame)
        _exit(3);
    }
  }
  std::string buffer;
  for (std::uint64_t id = 1; id <= 200; ++id) {
    const std::string& body = id % 50 == 0 ? large : id % 50 == 25 ? inline_large : small;
    ASSERT_EQ(post(lane.region().to_worker, lane.sockets[0], Kind::call_tool, id, body, milliseconds(1000)),
              Received::frame);
    Frame answer;
    ASSERT_EQ(take(lane.region().to_server, lane.sockets[0], answer, buffer, milliseconds(5000)), Received::frame)
        << id;
    EXPECT_EQ(answer.kind, Kind::done);
    EXPECT_EQ(answer.id, id + 1);
    EXPECT_EQ(answer.body, body);
  }
  ASSERT_EQ(post(lane.region().to_worker, lane.sockets[0], Kind::call_tool, 0, "", milliseconds(1000)),
            Received::frame);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(LaneMemoryTest, AnEmptyMailboxTimesOutAndAFullOneRefusesAnotherFrameUntilTaken) {
  Lane lane;
  Frame frame;
  std::string buffer;
  EXPECT_EQ(take(lane.region().to_server, lane.sockets[0], frame, buffer, milliseconds(20)), Received::timeout);
  ASSERT_EQ(post(lane.region().to_worker, lane.sockets[0], Kind::reply, 1, "a", milliseconds(20)), Received::frame);
  EXPECT_EQ(post(lane.region().to_worker, lane.sockets[0], Kind::reply, 2, "b", milliseconds(20)), Received::timeout);
  ASSERT_EQ(take(lane.region().to_worker, lane.sockets[1], frame, buffer, milliseconds(20)), Received::frame);
  EXPECT_EQ(frame.body, "a");
}

TEST(LaneMemoryTest, ASleepingReaderIsWokenByTheFrameNotByItsTimeout) {
  Lane lane;
  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds(50));
    post(lane.region().to_server, lane.sockets[1], Kind::done, 7, "late", std::nullopt);
  });
  Frame frame;
  std::string buffer;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(take(lane.region().to_server, lane.sockets[0], frame, buffer, milliseconds(10'000)), Received::frame);
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(5'000));
  EXPECT_EQ(frame.body, "late");
  writer.join();
}

TEST(LaneMemoryTest, WhatAHostileWorkerWritesIntoTheMemoryBreaksTheLaneAndNothingElse) {
  Frame frame;
  std::string buffer;
  {
    SCOPED_TRACE("a flag we never write");
    Lane lane;
    lane.region().to_server.full.store(7);
    EXPECT_EQ(take(lane.region().to_server, lane.sockets[0], frame, buffer, milliseconds(20)), Received::broken);
    EXPECT_EQ(post(lane.region().to_server, lane.sockets[0], Kind::done, 1, "x", milliseconds(20)),
              Received::broken);
  }
  {
    SCOPED_TRACE("a size past the mailbox, with a header that claims it");
    Lane lane;
    Mailbox& box = lane.region().to_server;
    encode_header(box.data, Kind::done, 1, 0xffffffffu);
    box.size = 0xffffffffu;
    box.full.store(1);
    EXPECT_EQ(take(box, lane.sockets[0], frame, buffer, milliseconds(20)), Received::broken);
    EXPECT_EQ(box.full.load(), 0u) << "taken, so a later frame can come";
  }
  {
    SCOPED_TRACE("a marker with nothing on the socket");
    Lane lane;
    Mailbox& box = lane.region().to_server;
    encode_header(box.data, Kind::on_socket, 1, 0);
    box.size = kHeaderSize;
    box.full.store(1);
    EXPECT_EQ(take(box, lane.sockets[0], frame, buffer, milliseconds(20)), Received::broken);
  }
}

}  // namespace
}  // namespace airlock::isolation
