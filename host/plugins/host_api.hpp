// The host side of airlock.h: the definitions behind its opaque handles and
// the function table every plugin receives.
#pragma once

#include "plugins/abi_values.hpp"
#include "plugins/content_catalog.hpp"
#include "plugins/plugin_types.hpp"

#include <airlock/airlock.h>
// The logger is held and handed out, never called, here: fwd.h spares every
// includer fmt and spdlog's logger. Whoever logs includes spdlog itself.
#include <spdlog/fwd.h>

#include <boost/json/array.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host {

// Strings lent to a plugin until its callback returns: a list never moves
// what it holds, so every view the plugin was given stays valid, and an
// empty one allocates nothing (a deque allocates 576 bytes before its first
// element, on every call).
using LentStrings = std::list<std::string>;

struct Config;
class Metrics;
// A call points at these, never into them (egress/fetcher.hpp, audit/audit_event.hpp).
class EgressPolicy;
class Fetcher;
namespace audit {
struct Actor;
}

// The _meta key under which untrusted text is labelled (see airlock.h).
inline constexpr std::string_view kUntrustedMetaKey = "airlock/untrusted";
// The _meta key under which a result lists the destinations its call reached
// or was refused (see EGRESS in airlock.h).
inline constexpr std::string_view kEgressMetaKey = "airlock/egress";

// [A-Za-z0-9._:@/-]{1,64}: what may name the source of untrusted text. The
// host writes the source into the frame it puts around that text, so nothing
// else may get there, however the label was set.
bool is_untrusted_source(std::string_view source);

// What a running tool call may say to its client (ABI 1.2's call_*
// functions). The session implements one per call; host_api.cpp checks the
// plugin's arguments before it forwards them, so implementations get valid
// UTF-8, a known level and a finite progress. Any thread, while on_call runs.
class CallChannel {
 public:
  // The client's answer to a request: OK with its result, TOOL_ERROR with its
  // error object, or a status alone (UNSUPPORTED, TIMEOUT, CANCELLED).
  struct Reply {
    airlock_status status = AIRLOCK_STATUS_INTERNAL;
    std::string json;
  };

  virtual ~CallChannel() = default;
  // notifications/progress, if the request carried a progressToken; refuses
  // progress that does not increase. `total` <= 0 or NaN and an empty
  // message are left out.
  virtual airlock_status progress(double progress, double total, std::string_view message) = 0;
  // notifications/message, if `level` reaches the session's threshold.
  virtual airlock_status log(airlock_client_log_level level, std::string_view logger, std::string_view message) = 0;
  // A request to the client; blocks until its answer, `timeout`, or
  // cancellation. `params_json` is a JSON object, compact (one line).
  virtual Reply request(std::string_view method, std::string_view params_json, std::chrono::milliseconds timeout) = 0;
  // The same, for a question named `key` (call_input_request, ABI 1.5): in
  // a session the key is not sent and this is request(); in a 2026-07-28
  // request nothing blocks (the answer is there, or INPUT_REQUIRED).
  virtual Reply request_keyed(std::string_view key, std::string_view method, std::string_view params_json,
                              std::chrono::milliseconds timeout) {
    (void)key;
    return request(method, params_json, timeout);
  }
  // JSON objects, "{}" when absent; valid for the whole call.
  virtual std::string_view client_capabilities() const noexcept = 0;
  virtual std::string_view request_meta() const noexcept = 0;
  // Asks the transport to end the stream the call's messages travel on.
  virtual void end_stream() = 0;
  // call_start_task (ABI 1.5): OK when the call already runs as a task,
  // TASK_STARTED when it just became one, UNSUPPORTED when it cannot.
  virtual airlock_status start_task() { return AIRLOCK_STATUS_UNSUPPORTED; }
};

// The function table handed to every plugin; lives as long as the process.
const airlock_host_api& host_api();

// A logger named after a plugin, writing where the host's default logger does.
std::shared_ptr<spdlog::logger> make_plugin_logger(const std::string& name);

}  // namespace airlock::host

// One plugin while it is loading and for as long as it stays loaded.
struct airlock_plugin_ctx {
  std::filesystem::path file;
  const airlock::host::Config* config = nullptr;  // read during init only
  // Atomic: a plugin's own threads may register content (ABI 1.3) while
  // the loading thread ends init.
  std::atomic<bool> in_init{true};

  bool has_info = false;
  std::string name;
  std::string version;
  std::string description;
  void* plugin_data = nullptr;
  void (*on_destroy)(void*) = nullptr;

  std::string config_json;  // [plugin."<name>"] serialized; borrowed by get_config
  std::vector<airlock::host::Tool> tools;
  std::vector<airlock::host::Sanitizer> sanitizers;
  std::string init_error;          // set_init_error
  std::string registration_error;  // the first bad definition, said by the host
  std::shared_ptr<spdlog::logger> logger;

  std::mutex content_mutex;  // guards pending_content and catalog
  // Resources, templates and prompts registered before the registry took
  // the plugin; after, registrations go straight to `catalog`.
  airlock::host::PendingContent pending_content;
  std::weak_ptr<airlock::host::ContentCatalog> catalog;
};

// One tool call while the plugin's on_call runs.
struct airlock_call {
  const std::atomic<bool>* cancelled = nullptr;
  airlock::host::ToolOutput output;
  // The way to the client; null when the call has none (a test driving a
  // tool directly): then progress and logs go nowhere, requests are
  // UNSUPPORTED, and capabilities and _meta read as {}.
  airlock::host::CallChannel* channel = nullptr;

  std::mutex replies_mutex;  // guards replies
  // What call_client_request handed out, where the plugin was told it is,
  // until on_call returns.
  airlock::host::LentStrings replies;

  // Egress (ABI 1.4). The acting tool, for the audit log; its own policy
  // (null: it may reach nothing); the host's fetcher (null: no network here,
  // as in `airlock check`).
  std::string_view tool_name;
  const airlock::host::EgressPolicy* egress = nullptr;
  const airlock::host::Fetcher* fetcher = nullptr;
  // Who the call runs for, for the audit trail's egress records (null:
  // none recorded); where egress decisions are counted (null: nowhere).
  const airlock::host::audit::Actor* request = nullptr;
  airlock::host::Metrics* metrics = nullptr;
  std::mutex fetch_mutex;  // guards fetched and output.egress: call_fetch may run on a tool's own threads
  airlock::host::LentStrings fetched;  // what call_fetch lent out, kept until on_call returns
};

// The output of one text sanitizer step.
struct airlock_text_writer {
  std::string* out = nullptr;
  bool written = false;
};

// The output of one result sanitizer step.
struct airlock_result_writer {
  std::string json;
  bool written = false;
};

// The contents one on_read writes (ABI 1.3).
struct airlock_resource_writer {
  std::string_view uri;        // the URI read: what an empty uri stands for
  std::string_view mime_type;  // the resource's own: what an empty mime_type stands for
  boost::json::array contents;
  // Where resource_input_request asks (ABI 1.5); null: nobody to ask.
  airlock::host::CallChannel* channel = nullptr;
  airlock::host::LentStrings replies;  // what resource_input_request handed out
};

// The messages one on_get writes (ABI 1.3).
struct airlock_prompt_writer {
  std::optional<std::string> description;
  boost::json::array messages;
  // Where prompt_input_request asks (ABI 1.5); null: nobody to ask.
  airlock::host::CallChannel* channel = nullptr;
  airlock::host::LentStrings replies;  // what prompt_input_request handed out
};

// The candidates one on_complete writes (ABI 1.3). Only the first
// kMaxCompletionValues are kept; the rest are counted.
struct airlock_completion_writer {
  static constexpr std::size_t kMaxCompletionValues = 100;
  std::vector<std::string> values;
  std::uint64_t added = 0;
  std::optional<std::uint64_t> total;
};
