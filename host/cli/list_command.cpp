#include "cli/commands.hpp"
#include "cli/startup.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace airlock::host {
namespace {

std::string chain_text(const SanitizerChain* chain) {
  if (!chain) return "none";
  std::string steps;
  for (const Sanitizer* s : chain->steps()) steps += (steps.empty() ? "" : " -> ") + s->name;
  return fmt::format("{} ({})", chain->name(), steps.empty() ? "no steps" : steps);
}

}  // namespace

int list_command(const std::filesystem::path& config_file) {
  auto loaded = load_everything(config_file);
  if (!loaded) {
    fmt::print(stderr, "airlock: {}\n", loaded.error().message);
    return 1;
  }
  const auto& registry = *loaded->registry;
  const auto& routes = *loaded->routes;

  fmt::print("plugins:\n");
  for (const auto& plugin : registry.plugins()) {
    const auto& ctx = plugin->ctx();
    fmt::print("  {}  {} {}  {}\n", plugin->file().string(), ctx.name, ctx.version.empty() ? "-" : ctx.version,
               abi_text(plugin->abi_version()));
  }
  fmt::print("tools:\n");
  for (const ToolRoute* route : routes.sorted()) {
    const Tool& t = *route->tool;
    fmt::print("  {}  from {}  chain: {}{}{}\n    egress: {}\n", t.name, PluginRegistry::file_of(t.owner).c_str(),
               chain_text(route->chain), t.reentrant() ? "" : "  (serialized)",
               route->timeout_ms ? fmt::format("  timeout: {} ms", *route->timeout_ms) : "",
               describe_egress(*route->egress));
  }
  fmt::print("sanitizers:\n");
  for (const auto& s : registry.sanitizers())
    fmt::print("  {}  ({})  from {}\n", s.name, s.kind == SanitizerKind::text ? "text" : "result",
               PluginRegistry::file_of(s.owner));
  fmt::print("chains:\n");
  for (const auto& [name, chain] : routes.chains()) fmt::print("  {}\n", chain_text(&chain));
  return 0;
}

}  // namespace airlock::host
