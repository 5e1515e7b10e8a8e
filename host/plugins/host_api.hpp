// The host side of airlock.h: the definitions behind its opaque handles and
// the function table every plugin receives.
#pragma once

#include "plugins/plugin_types.hpp"

#include <airlock/airlock.h>
#include <spdlog/logger.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace airlock::host {
struct Config;

// The _meta key under which untrusted text is labelled (see airlock.h).
inline constexpr std::string_view kUntrustedMetaKey = "airlock/untrusted";

// [A-Za-z0-9._:@/-]{1,64}: what may name the source of untrusted text. The
// host writes the source into the frame it puts around that text, so nothing
// else may get there, however the label was set.
bool is_untrusted_source(std::string_view source);

// The function table handed to every plugin; lives as long as the process.
const airlock_host_api& host_api();

// A logger named after a plugin, writing where the host's default logger does.
std::shared_ptr<spdlog::logger> make_plugin_logger(const std::string& name);

// Copies an airlock_str into a std::string; {NULL, n} reads as empty.
inline std::string_view view(airlock_str s) { return s.ptr ? std::string_view(s.ptr, s.len) : std::string_view(); }
inline airlock_str borrow(std::string_view s) { return airlock_str{s.data(), s.size()}; }
}  // namespace airlock::host

// One plugin while it is loading and for as long as it stays loaded.
struct airlock_plugin_ctx {
  std::filesystem::path file;
  const airlock::host::Config* config = nullptr;  // read during init only
  bool in_init = true;

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
};

// One tool call while the plugin's on_call runs.
struct airlock_call {
  const std::atomic<bool>* cancelled = nullptr;
  airlock::host::ToolOutput output;
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
