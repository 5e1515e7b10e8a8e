// What every command does first: read the config, set up logging, load the
// plugins, bind the tools. Errors are already in the house form, ready to
// print after "airlock: ".
#pragma once

#include "audit/audit_trail.hpp"
#include "config/host_config.hpp"
#include "pipeline/tool_routes.hpp"
#include "plugins/plugin_registry.hpp"
#include "util/error.hpp"

#include <filesystem>
#include <memory>

namespace airlock::host {

// The audit trail while it is the process's: installed when made, and taken
// out (after everything queued is written) before it is destroyed.
class InstalledTrail {
 public:
  InstalledTrail() = default;
  explicit InstalledTrail(std::unique_ptr<audit::Trail> trail);
  InstalledTrail(InstalledTrail&&) noexcept = default;
  InstalledTrail& operator=(InstalledTrail&&) noexcept;
  ~InstalledTrail();
  audit::Trail* get() const { return trail_.get(); }

 private:
  std::unique_ptr<audit::Trail> trail_;
};

// Opens [audit]'s trail and installs it; nothing when the config has none.
// `replica_suffix` tells a command's records from the server's (".pin").
Result<InstalledTrail> open_audit_trail(const Config& config, std::string_view replica_suffix = {});

struct Loaded {
  // First, so it is destroyed last: plugins unloading may still report.
  InstalledTrail trail;
  Config config;
  std::unique_ptr<PluginRegistry> registry;
  std::unique_ptr<ToolRoutes> routes;
};

// Logs go to stderr only: over stdio, stdout belongs to the protocol.
void init_logging();

// What the loading is for. Only a server holds tools to their pins (and
// records new ones), and opens the audit trail before anything loads;
// commands that look without serving change nothing.
enum class LoadFor { serving, inspecting };

Result<Loaded> load_everything(const std::filesystem::path& config_file, LoadFor purpose = LoadFor::serving);

// "abi 1.0"
std::string abi_text(std::uint32_t abi);

}  // namespace airlock::host
