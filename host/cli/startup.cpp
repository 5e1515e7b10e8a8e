#include "cli/startup.hpp"

#include "check/plugin_check.hpp"
#include "pins/pin_check.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace airlock::host {

void init_logging() {
  auto logger = spdlog::stderr_color_mt("airlock");
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [%n] %v");
  spdlog::set_default_logger(logger);
}

std::string abi_text(std::uint32_t abi) { return fmt::format("abi {}.{}", abi >> 16, abi & 0xffffu); }

Result<Loaded> load_everything(const std::filesystem::path& config_file, LoadFor purpose) {
  Loaded loaded;
  auto config = load_config(config_file);
  if (!config) return config.error();
  loaded.config = std::move(*config);
  spdlog::set_level(spdlog::level::from_str(loaded.config.server.log_level));

  // require_check: every sanitizer passes the contract checks' fast subset
  // before anything of its plugin is registered, or the plugin is refused.
  const PluginVetter vet = loaded.config.plugins.require_check ? PluginVetter(check::vet_sanitizers) : PluginVetter();
  auto registry = PluginRegistry::load(loaded.config, vet);
  if (!registry) return registry.error();
  loaded.registry = std::move(*registry);

  // Before routes: a refused tool gets none, so it is neither listed nor called.
  if (purpose == LoadFor::serving)
    if (auto pinned = enforce_pins(loaded.config.pinning, *loaded.registry); !pinned) return pinned.error();

  auto routes = ToolRoutes::build(loaded.config, *loaded.registry);
  if (!routes) return routes.error();
  loaded.routes = std::move(*routes);
  return loaded;
}

}  // namespace airlock::host
