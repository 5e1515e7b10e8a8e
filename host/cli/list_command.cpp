#include "cli/commands.hpp"
#include "cli/startup.hpp"

#include "isolation/isolated_plugin.hpp"
#include "pins/pin_check.hpp"
#include "plugins/plugin_library.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <string>

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
  auto loaded = load_everything(config_file, LoadFor::inspecting);
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
    if (const IsolatedPlugin* worker = plugin->isolated())
      fmt::print("    isolation: process ({}; memory {} MiB, {} calls at once){}\n", worker->confinement(),
                 worker->settings().memory_mb, worker->settings().max_workers,
                 worker->fully_confined() ? "" : "; some layers unavailable on this kernel");
    else
      fmt::print("    isolation: in-process ({})\n", plugin->isolation());
    if (const PackOrigin* pack = plugin->pack())
      fmt::print("    pack: {} {} from {}, {}\n", pack->name, pack->version, pack->vendor,
                 pack->signer == "unsigned" ? "unsigned" : "signed by " + pack->signer);
  }
  // With [pinning], each tool's standing against its pin, read-only.
  std::map<std::string, std::string> pin_notes;
  if (const auto& pin_file = loaded->config.pinning.file) {
    auto store = PinStore::load(*pin_file);
    if (!store) {
      fmt::print(stderr, "airlock: {}\n", store.error().message);
      return 1;
    }
    for (const auto& finding : compare_pins(*store, registry)) {
      pin_notes[finding.tool] =
          finding.state == PinState::pinned  ? "\n    pin: as pinned"
          : finding.state == PinState::added ? "\n    pin: not pinned yet (the server pins it at start)"
                                             : fmt::format("\n    pin: CHANGED ({}); refused or warned per "
                                                           "[pinning] on_definition_change",
                                                           changed_members_text(finding));
    }
  }
  fmt::print("tools:\n");
  for (const ToolRoute* route : routes.sorted()) {
    const Tool& t = *route->tool;
    fmt::print("  {}  from {}  chain: {}{}{}\n    egress: {}{}\n", t.name, PluginRegistry::file_of(t.owner).c_str(),
               chain_text(route->chain), t.reentrant() ? "" : "  (serialized)",
               route->timeout_ms ? fmt::format("  timeout: {} ms", *route->timeout_ms) : "",
               describe_egress(*route->egress), pin_notes[t.name]);
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
