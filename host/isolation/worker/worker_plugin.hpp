// The worker's side of airlock.h: the handles a plugin holds (each naming
// the server-side object it stands for by the id of the hook call), and the
// hooks the plugin registered, by the index the server knows each one by.
//
// Only the worker binary defines these structs; the server has its own
// definitions of the same opaque names (plugins/host_api.hpp), and the two
// never meet in one program.
#pragma once

#include "isolation/worker/worker_channel.hpp"

#include <airlock/airlock.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <list>
#include <mutex>
#include <string>
#include <vector>

struct airlock_plugin_ctx {
  int unused = 0;
};

// Strings the server lent a hook (a client's reply, a fetched body) stay
// here until the hook returns, as airlock.h promises. A list: it never
// moves them, and allocates nothing for the many calls that lend none.
struct airlock_worker_keep {
  std::mutex mutex;
  std::list<std::string> strings;
  airlock_str keep(std::string s) {
    std::lock_guard lock(mutex);
    strings.push_back(std::move(s));
    return airlock_str{strings.back().data(), strings.back().size()};
  }
};

struct airlock_call {
  std::uint64_t id = 0;
  std::atomic<bool> cancelled{false};
  std::string capabilities;  // for call_client_capabilities, sent with the call
  std::string meta;          // for call_request_meta
  airlock_worker_keep kept;
  // Result setters whose status the worker knows without the server
  // (result_add_text, result_set_error, and the JSON setters once their
  // argument parsed), sent with the call's done frame rather than one round
  // trip each. Only on on_call's thread, as airlock.h allows the setters.
  airlock::isolation::WireWriter deferred;
  std::uint32_t deferred_count = 0;
  bool structured_set = false;
};

struct airlock_text_writer {
  std::string out;
  bool written = false;
};

struct airlock_result_writer {
  std::string json;
  bool written = false;
};

struct airlock_resource_writer {
  std::uint64_t id = 0;
  airlock_worker_keep kept;
};

struct airlock_prompt_writer {
  std::uint64_t id = 0;
  airlock_worker_keep kept;
};

struct airlock_completion_writer {
  std::uint64_t id = 0;
};

namespace airlock::isolation {

struct ToolHooks {
  void* data;
  airlock_on_call_fn on_call;
};
struct SanitizerHooks {
  void* data;
  airlock_on_text_fn on_text;
  airlock_on_result_fn on_result;
};
struct ContentHooks {  // a resource, a template or a prompt
  void* data;
  airlock_on_read_fn on_read;
  airlock_on_get_fn on_get;
  airlock_on_complete_fn on_complete;
};

// Everything the plugin registered, in order: the server numbers them the
// same way when the registrations reach it. Deques, so a hook running on one
// thread keeps its entry while another thread registers more.
struct WorkerPlugin {
  std::mutex mutex;  // guards the deques (content may be registered from any thread)
  std::deque<ToolHooks> tools;
  std::deque<SanitizerHooks> sanitizers;
  std::deque<ContentHooks> resources;
  std::deque<ContentHooks> templates;
  std::deque<ContentHooks> prompts;
  void* plugin_data = nullptr;
  void (*on_destroy)(void*) = nullptr;
};

// The function table the plugin's init receives: every entry forwards to the
// server over `channel` (or answers locally what the call carried with it).
// Both must outlive every use of the table.
const airlock_host_api& remote_host_api(WorkerChannel& channel, WorkerPlugin& plugin);

}  // namespace airlock::isolation
