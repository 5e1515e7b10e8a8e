// A plugin that runs in a worker process of its own, behind the same C ABI.
//
// To the rest of the server an isolated plugin is an ordinary one: its init
// registers tools, sanitizers, resources and prompts through the host's
// function table into the plugin's context, as an in-process init would.
// What it registers are proxies: each hook forwards its call to the worker,
// then serves, on the calling thread, every host function the plugin calls
// while the hook runs, against the real call or writer. So every host
// function behaves exactly as it does in-process, and the session, task and
// pipeline code never learn which way a plugin runs.
//
// Faults stay inside the worker: a call whose worker dies gets the fixed
// error kPluginStopped (through the tool's chain like any result), a
// sanitizer whose worker dies fails, which withholds the result. The next
// call starts a new worker, at once after one crash, then after a back-off
// that doubles with each crash in a row. A call that goes on past its
// cancellation by more than the grace gets its worker killed.
#pragma once

#include "isolation/wire.hpp"
#include "util/error.hpp"

#include <airlock/airlock.h>
#include <spdlog/fwd.h>  // the logger is held here, called in the .cpp

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

struct airlock_plugin_ctx;

namespace airlock::host {

class WorkerProcess;
struct Inbox;

// What a tool call whose plugin died answers, and all the client learns.
inline constexpr std::string_view kPluginStopped = "the tool's plugin stopped unexpectedly";

struct IsolationSettings {
  std::filesystem::path worker;  // the airlock-worker binary
  std::uint64_t memory_mb = 1024;
  unsigned max_workers = 4;  // hooks one worker runs at once
  std::chrono::milliseconds cancel_grace{1000};
  std::chrono::milliseconds max_backoff{30'000};
  // A sanitizer step that runs longer has its worker killed (the chain
  // withholds the result either way).
  std::chrono::milliseconds sanitizer_timeout{1000};
  std::chrono::milliseconds init_timeout{30'000};
};

class IsolatedPlugin {
 public:
  struct Started {
    std::unique_ptr<IsolatedPlugin> plugin;
    std::uint32_t abi_version = 0;
    airlock_status init_status = AIRLOCK_STATUS_INTERNAL;  // what the plugin's init returned
  };
  // Starts a worker for `file` (mapping `image_fd`, a pack object's sealed
  // bytes, when it is not -1; it must stay open while the plugin is loaded)
  // and runs the plugin's init through it into `ctx`. Errors are load errors
  // ("<file>: <why>", as in-process); an init that fails is a Started whose
  // init_status says so.
  static Result<Started> start(const std::filesystem::path& file, int image_fd, airlock_plugin_ctx& ctx,
                               const IsolationSettings& settings);

  ~IsolatedPlugin();
  IsolatedPlugin(const IsolatedPlugin&) = delete;
  IsolatedPlugin& operator=(const IsolatedPlugin&) = delete;

  // The confinement the first worker reported, one line; and whether every
  // layer was in effect.
  const std::string& confinement() const { return confinement_; }
  bool fully_confined() const { return fully_confined_; }
  const IsolationSettings& settings() const { return settings_; }
  // Workers started after the first (crashes, kills).
  std::uint64_t restarts() const { return restarts_.load(); }

  // Runs the plugin's on_destroy in the worker and ends it (bounded).
  void stop();
  // Kills the running worker (a hook that will not return); its calls fail
  // and the next one starts a new worker.
  void kill();
  // Workers that died under a hook, and how the last one ended ("was killed
  // by signal 11 (SIGSEGV)"), for the contract checks.
  std::uint64_t deaths() const { return deaths_.load(); }
  std::string last_death() const;

  // What each proxy hook stands for (the registration's index in the worker).
  enum class EntryKind { tool, sanitizer, resource, resource_template, prompt };
  struct Entry {
    IsolatedPlugin* plugin;
    EntryKind kind;
    std::uint32_t index;
    std::string name;
  };

  // How a run of text steps failed, for the chain to report.
  struct TextRunFailure {
    std::size_t step = 0;  // which of the steps
    airlock_status status = AIRLOCK_STATUS_INTERNAL;
    bool wrote_unchanged = false;  // it wrote output and returned UNCHANGED
    bool died = false;             // the worker stopped (or was killed) first
    std::string written;           // what the failing step wrote, if anything
    bool broke_utf8 = false;       // it turned valid UTF-8 into bytes that are not
  };
  // Runs text sanitizer `steps` (this plugin's, in order) over every text in
  // one round trip. On success out[i] is the new text, or nothing when the
  // steps left texts[i] as it was.
  std::optional<TextRunFailure> sanitize_texts(const std::vector<const Entry*>& steps,
                                              const std::vector<std::string_view>& texts,
                                              std::vector<std::optional<std::string>>& out);
  // The entry behind a sanitizer's data when the sanitizer is an isolated
  // plugin's text step; null otherwise.
  static const Entry* text_step_entry(airlock_on_text_fn on_text, void* data);

  // The proxies' bodies (isolated_hooks.cpp).
  airlock_status call_tool(const Entry& entry, airlock_call* call, airlock_str arguments);
  airlock_status sanitize_text(const Entry& entry, airlock_str text, airlock_text_writer* out);
  airlock_status sanitize_result(const Entry& entry, const airlock_request_context* context, airlock_str tool,
                                 airlock_str arguments, airlock_str result, airlock_result_writer* out);
  airlock_status read(const Entry& entry, const airlock_request_context* context, airlock_str uri,
                      airlock_str variables, airlock_resource_writer* out);
  airlock_status get(const Entry& entry, const airlock_request_context* context, airlock_str name,
                     airlock_str arguments, airlock_prompt_writer* out);
  airlock_status complete(const Entry& entry, const airlock_request_context* context, airlock_str argument,
                          airlock_str value, airlock_str arguments, airlock_completion_writer* out);

  // What a host call acts on: the plugin, or the hook it came from.
  struct Target {
    airlock_call* call = nullptr;
    airlock_resource_writer* resource = nullptr;
    airlock_prompt_writer* prompt = nullptr;
    airlock_completion_writer* completion = nullptr;
  };

 private:
  IsolatedPlugin(std::filesystem::path file, int image_fd, airlock_plugin_ctx& ctx, IsolationSettings settings);

  // Starts a worker and runs init through it. The first boot registers into
  // the context; a restart only checks the plugin registers the same tools
  // and sanitizers again.
  Result<std::shared_ptr<WorkerProcess>> boot(bool first, airlock_status* init_status, std::uint32_t* abi);
  // A running worker for a hook, starting one if the last died and its
  // back-off has passed; null while backed off or when it cannot start.
  std::shared_ptr<WorkerProcess> acquire();

  struct Outcome {
    bool died = false;  // the worker died (or was killed) before the hook returned
    airlock_status status = AIRLOCK_STATUS_INTERNAL;
    std::string rest;  // the done frame after its status
  };
  // Sends one hook call and serves the host calls it makes until it is done.
  Outcome run(WorkerProcess& worker, isolation::Kind kind, std::string_view body, const Target& target,
              const std::atomic<bool>* cancelled, std::optional<std::chrono::milliseconds> limit);

  // Host calls (isolated_host_calls.cpp): one the plugin made in a hook, or
  // for the plugin as a whole; the reply body.
  std::string hook_call(isolation::Fn fn, isolation::WireReader& in, const Target& target);
  std::string plugin_call(isolation::Fn fn, isolation::WireReader& in, bool booting, bool first);
  // Makes the proxy registration the plugin asked for.
  airlock_status register_entry(isolation::Fn fn, isolation::WireReader& in, bool replay);

  const std::filesystem::path file_;
  const int image_fd_;
  airlock_plugin_ctx& ctx_;
  const IsolationSettings settings_;
  std::shared_ptr<spdlog::logger> logger_;

  std::mutex entries_mutex_;  // guards entries_, expected_ and replayed_
  std::deque<Entry> entries_;  // the proxies' data: stable addresses
  std::vector<std::string> expected_;  // the tools and sanitizers of the first init, in order
  std::size_t replayed_ = 0;  // how many of them a restarting worker registered again
  bool replay_diverged_ = false;
  std::string config_json_;  // what get_config answered the first init

  std::mutex start_mutex_;  // guards current_, failures_, next_start_, stopped_
  std::shared_ptr<WorkerProcess> current_;
  unsigned failures_ = 0;  // deaths in a row without a hook that returned
  std::chrono::steady_clock::time_point next_start_{};
  bool stopped_ = false;
  std::atomic<std::uint64_t> restarts_{0};

  std::string confinement_;
  bool fully_confined_ = false;
  std::atomic<std::uint64_t> deaths_{0};
  mutable std::mutex death_mutex_;  // guards last_death_
  std::string last_death_;
};

}  // namespace airlock::host
