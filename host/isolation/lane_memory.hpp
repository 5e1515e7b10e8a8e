// A lane's shared memory: one mailbox each way between a server thread and
// the worker, in a memfd both processes map, and a futex in each to sleep
// on. A frame that fits (kLaneInlineMax) is copied in and out of its mailbox;
// waking the other side is one futex call, and none at all when it is not
// asleep. A larger frame goes on the lane's socket (in a sealed memfd, see
// wire.hpp) and its mailbox carries a marker saying so, which keeps frames
// in order.
//
// The worker can write anything into the memory at any time. So the server
// copies a message out before it reads a byte of it, clamps the size it
// finds, takes any flag value but the two it writes as a broken worker, and
// never waits on the memory without a time limit.
#pragma once

#include "isolation/wire.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace airlock::isolation {

// The largest body a mailbox carries. A socket's frames stop at kInlineMax,
// which its buffer bounds; shared memory is bounded by nothing but its
// size, and a result of a few hundred KiB copied through it costs far less
// than a memfd made, filled, sealed, passed and read for it. Only the pages
// a frame touches become resident.
inline constexpr std::size_t kLaneInlineMax = std::size_t{1} << 20;

struct Mailbox {
  std::atomic<std::uint32_t> full{0};            // 0: empty, 1: holds a message
  std::atomic<std::uint32_t> reader_asleep{0};   // the reader waits for full = 1
  std::atomic<std::uint32_t> writer_asleep{0};   // a writer waits for full = 0
  std::uint32_t size = 0;                        // of the message in `data`
  char data[kHeaderSize + kLaneInlineMax];
};

struct LaneRegion {
  alignas(64) Mailbox to_worker;
  alignas(64) Mailbox to_server;
};

class LaneMemory {
 public:
  // A memfd sized for one region, for the server to map and hand the
  // worker; -1 and errno on failure.
  static int create();
  // Maps a region (the server's memfd, or the worker's copy of it); null
  // region() on failure. The descriptor is not kept.
  explicit LaneMemory(int memfd);
  ~LaneMemory();
  LaneMemory(LaneMemory&& other) noexcept : region_(other.region_) { other.region_ = nullptr; }
  LaneMemory(const LaneMemory&) = delete;
  LaneMemory& operator=(const LaneMemory&) = delete;

  LaneRegion* region() const { return region_; }

 private:
  LaneRegion* region_ = nullptr;
};

// Puts a frame in `box` (a large one on `socket`, with a marker in the box),
// waiting for the box to empty at most `limit` (forever when nothing).
// Returns timeout when it did not, closed when the socket refused a large
// frame, broken when the box holds a flag we never write.
Received post(Mailbox& box, int socket, Kind kind, std::uint64_t id, std::string_view body,
              std::optional<std::chrono::milliseconds> limit);

// Takes the next frame out of `box` (or off `socket`, for a marker), waiting
// at most `limit` for one (forever when nothing). `buffer` is the caller's,
// reused.
Received take(Mailbox& box, int socket, Frame& out, std::string& buffer,
              std::optional<std::chrono::milliseconds> limit);

}  // namespace airlock::isolation
