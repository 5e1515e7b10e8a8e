// Runs the hooks the server asks for, one thread per lane: a tool's
// on_call, a sanitizer's on_text or on_result, a read, a get, a completion.
// Each runs with a handle whose id is the server's id for the call, and its
// answer goes back on its lane as one `done` frame.
#pragma once

#include "isolation/worker/worker_plugin.hpp"

#include <mutex>
#include <unordered_map>

namespace airlock::isolation {

class HookRunner {
 public:
  // Starts a thread on each of the channel's lanes.
  HookRunner(WorkerChannel& channel, WorkerPlugin& plugin);
  HookRunner(const HookRunner&) = delete;
  HookRunner& operator=(const HookRunner&) = delete;

  // The server cancelled hook call `id`: its is_cancelled turns true.
  void cancel(std::uint64_t id);

 private:
  void serve(LaneChannel& lane);
  void run(LaneChannel& lane, const Frame& frame);
  void call_tool(std::uint64_t id, WireReader& in, WireWriter& out);
  void sanitize_text(WireReader& in, WireWriter& out);
  void sanitize_result(WireReader& in, WireWriter& out);
  void read_resource(std::uint64_t id, WireReader& in, WireWriter& out);
  void get_prompt(std::uint64_t id, WireReader& in, WireWriter& out);
  void complete(std::uint64_t id, WireReader& in, WireWriter& out);

  WorkerChannel& channel_;
  WorkerPlugin& plugin_;

  std::mutex calls_mutex_;  // guards calls_: the tool calls running now, for cancel()
  std::unordered_map<std::uint64_t, airlock_call*> calls_;
};

}  // namespace airlock::isolation
