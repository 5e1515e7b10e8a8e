// Runs the hooks the server asks for, on the worker's own threads: a tool's
// on_call, a sanitizer's on_text or on_result, a read, a get, a completion.
// Each runs with a handle whose id is the server's id for the call, and its
// answer goes back as one `done` frame.
#pragma once

#include "isolation/worker/worker_plugin.hpp"

#include <condition_variable>
#include <deque>
#include <functional>
#include <thread>
#include <unordered_map>
#include <vector>

namespace airlock::isolation {

class HookRunner {
 public:
  // `threads` hooks run at once; more wait their turn.
  HookRunner(WorkerChannel& channel, WorkerPlugin& plugin, unsigned threads);
  HookRunner(const HookRunner&) = delete;
  HookRunner& operator=(const HookRunner&) = delete;

  // Queues the hook a server frame asks for (a sanitizer's runs at once, on
  // the calling thread). Returns false for a frame that is not a hook call.
  bool start(Frame frame);
  // The server cancelled hook call `id`: its is_cancelled turns true.
  void cancel(std::uint64_t id);

 private:
  void run(const Frame& frame);
  void call_tool(std::uint64_t id, WireReader& in, WireWriter& out);
  void sanitize_text(WireReader& in, WireWriter& out);
  void sanitize_result(WireReader& in, WireWriter& out);
  void read_resource(std::uint64_t id, WireReader& in, WireWriter& out);
  void get_prompt(std::uint64_t id, WireReader& in, WireWriter& out);
  void complete(std::uint64_t id, WireReader& in, WireWriter& out);

  WorkerChannel& channel_;
  WorkerPlugin& plugin_;

  std::mutex jobs_mutex_;  // guards jobs_
  std::condition_variable job_ready_;
  std::deque<Frame> jobs_;
  std::vector<std::thread> threads_;

  std::mutex calls_mutex_;  // guards calls_: the tool calls running now, for cancel()
  std::unordered_map<std::uint64_t, airlock_call*> calls_;
};

}  // namespace airlock::isolation
