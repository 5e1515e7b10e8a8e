// Which plugins run isolated, and with what limits: the decision the
// registry asks for every plugin it loads, from [isolation] and the
// AIRLOCK_ISOLATION environment variable.
//
// airlock's own plugin directory (the installed one and the build tree's)
// runs in-process: that code ships with the server and is as trusted as the
// server. Everything else runs in a worker unless the operator opted its
// directory or pack into in-process. AIRLOCK_ISOLATION=process or
// in-process overrides every decision, first-party plugins included: the
// test suite runs once each way, and an operator can isolate everything.
#pragma once

#include "config/host_config.hpp"
#include "isolation/isolated_plugin.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host {

struct IsolationDecision {
  bool isolated = true;
  std::string reason;  // why, for the log and `airlock list`
};

class IsolationPolicy {
 public:
  explicit IsolationPolicy(const Config& config);

  // For a plugin found in `dir` (as configured), from pack `pack` (empty for
  // a loose .so).
  IsolationDecision decide(const std::filesystem::path& dir, std::string_view pack) const;
  const IsolationSettings& settings() const { return settings_; }
  // The settings for one plugin file: the defaults, with its own
  // [isolation.plugins."<file name>"] limits.
  IsolationSettings settings_for(const std::filesystem::path& file) const;
  // Set when AIRLOCK_ISOLATION forces a mode.
  const std::optional<IsolationMode>& forced() const { return forced_; }

 private:
  const IsolationConfig& config_;
  IsolationSettings settings_;
  std::optional<IsolationMode> forced_;
};

// The airlock-worker binary: beside the running executable (a build tree,
// or a relocated install), else the build tree's (for test binaries that
// load plugins), else where the package installs it.
std::filesystem::path worker_binary();

// airlock's own plugin directories: where the package installs its plugins,
// and the build tree's plugins/.
bool is_first_party_dir(const std::filesystem::path& dir);

}  // namespace airlock::host
