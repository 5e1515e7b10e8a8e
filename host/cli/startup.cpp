#include "cli/startup.hpp"

#include "check/plugin_check.hpp"
#include "pins/pin_check.hpp"
#include "util/sha256.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <iterator>

#include <unistd.h>

namespace airlock::host {

void init_logging() {
  auto logger = spdlog::stderr_color_mt("airlock");
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [%n] %v");
  spdlog::set_default_logger(logger);
}

std::string abi_text(std::uint32_t abi) { return fmt::format("abi {}.{}", abi >> 16, abi & 0xffffu); }

InstalledTrail::InstalledTrail(std::unique_ptr<audit::Trail> trail) : trail_(std::move(trail)) {
  audit::install(trail_.get());
}

InstalledTrail& InstalledTrail::operator=(InstalledTrail&& other) noexcept {
  if (this != &other) {
    if (trail_) audit::install(nullptr);
    trail_ = std::move(other.trail_);
  }
  return *this;
}

InstalledTrail::~InstalledTrail() {
  if (!trail_) return;
  audit::install(nullptr);
  trail_.reset();  // writes what is queued and a last checkpoint
}

Result<InstalledTrail> open_audit_trail(const Config& config, std::string_view replica_suffix) {
  if (!config.audit.enabled) return InstalledTrail();
  AuditConfig settings = config.audit;
  if (!replica_suffix.empty()) {
    if (settings.replica.empty()) {
      char host[256] = {};
      gethostname(host, sizeof host - 1);
      settings.replica = host;
    }
    settings.replica += replica_suffix;
  }
  auto trail = audit::Trail::open(settings, nullptr);
  if (!trail) return trail.error();
  InstalledTrail installed(std::move(*trail));

  // What this process runs under: the config's own bytes, digested.
  audit::Event loaded;
  loaded.kind = audit::Kind::config_loaded;
  loaded.outcome = "loaded";
  loaded.subject = config.file.string();
  std::ifstream in(config.file, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  loaded.detail["sha256"] = sha256_hex(sha256(bytes));
  audit::record(std::move(loaded));
  return installed;
}

Result<Loaded> load_everything(const std::filesystem::path& config_file, LoadFor purpose) {
  Loaded loaded;
  auto config = load_config(config_file);
  if (!config) return config.error();
  loaded.config = std::move(*config);
  spdlog::set_level(spdlog::level::from_str(loaded.config.server.log_level));

  // Before any plugin loads: what loads, and what is refused, is recorded.
  if (purpose == LoadFor::serving) {
    auto trail = open_audit_trail(loaded.config);
    if (!trail) return trail.error();
    loaded.trail = std::move(*trail);
  }

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
