// What every command does first: read the config, set up logging, load the
// plugins, bind the tools. Errors are already in the house form, ready to
// print after "airlock: ".
#pragma once

#include "config/host_config.hpp"
#include "pipeline/tool_routes.hpp"
#include "plugins/plugin_registry.hpp"
#include "util/error.hpp"

#include <filesystem>
#include <memory>

namespace airlock::host {

struct Loaded {
  Config config;
  std::unique_ptr<PluginRegistry> registry;
  std::unique_ptr<ToolRoutes> routes;
};

// Logs go to stderr only: over stdio, stdout belongs to the protocol.
void init_logging();

// What the loading is for. Only a server holds tools to their pins (and
// records new ones); commands that look without serving change nothing.
enum class LoadFor { serving, inspecting };

Result<Loaded> load_everything(const std::filesystem::path& config_file, LoadFor purpose = LoadFor::serving);

// "abi 1.0"
std::string abi_text(std::uint32_t abi);

}  // namespace airlock::host
