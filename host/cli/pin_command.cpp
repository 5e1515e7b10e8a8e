// `airlock pin`: shows each tool against its pin, records tools never seen,
// and moves the pin of a changed tool only when the operator accepts it.
#include "cli/commands.hpp"
#include "cli/startup.hpp"

#include "pins/pin_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace airlock::host {

int pin_command(const PinCommandArgs& args) {
  auto loaded = load_everything(args.config_file, LoadFor::inspecting);
  if (!loaded) {
    fmt::print(stderr, "airlock: {}\n", loaded.error().message);
    return 2;
  }
  const auto& pinning = loaded->config.pinning;
  if (!pinning.file) {
    fmt::print(stderr, "airlock: {}: no [pinning] file is set, so there is nothing to pin to\n",
               args.config_file.string());
    return 2;
  }
  const auto& registry = *loaded->registry;
  for (const auto& name : args.accept) {
    if (!registry.find_tool(name)) {
      fmt::print(stderr, "airlock: --accept {}: no loaded tool has that name\n", name);
      return 2;
    }
  }
  auto store = PinStore::load(*pinning.file);
  if (!store) {
    fmt::print(stderr, "airlock: {}\n", store.error().message);
    return 2;
  }

  // An accepted change is a decision a security team must be able to find:
  // recorded under this command's own chain (the server keeps its own).
  auto trail = open_audit_trail(loaded->config, ".pin");
  if (!trail) {
    fmt::print(stderr, "airlock: {}\n", trail.error().message);
    return 2;
  }

  fmt::print("pins: {}\n", pinning.file->string());
  bool changed_left = false;
  bool dirty = false;
  for (const auto& finding : compare_pins(*store, registry)) {
    const std::string digest = finding.digest.substr(0, 16);
    const bool accepted = args.accept_all || std::find(args.accept.begin(), args.accept.end(), finding.tool) !=
                                                 args.accept.end();
    switch (finding.state) {
      case PinState::pinned:
        fmt::print("  pinned    {}  {}\n", finding.tool, digest);
        break;
      case PinState::added:
        pin_tool(*store, *registry.find_tool(finding.tool));
        dirty = true;
        audit_pin(audit::Kind::pin_recorded, finding, "airlock pin");
        fmt::print("  added     {}  {}  (first seen: pinned now)\n", finding.tool, digest);
        break;
      case PinState::changed:
        if (accepted) {
          pin_tool(*store, *registry.find_tool(finding.tool));
          dirty = true;
          audit_pin(audit::Kind::pin_accepted, finding, "airlock pin --accept");
          fmt::print("  accepted  {}  {}  ({} changed; was {} since {})\n", finding.tool, digest,
                     changed_members_text(finding), finding.pin->sha256.substr(0, 16), finding.pin->pinned_at);
        } else {
          changed_left = true;
          fmt::print("  changed   {}  {}  ({} changed since {}; pinned {}; accept with --accept {})\n", finding.tool,
                     digest, changed_members_text(finding), finding.pin->pinned_at,
                     finding.pin->sha256.substr(0, 16), finding.tool);
        }
        break;
    }
  }
  if (dirty) {
    if (auto saved = store->save(); !saved) {
      fmt::print(stderr, "airlock: {}\n", saved.error().message);
      return 2;
    }
  }
  return changed_left ? 1 : 0;
}

}  // namespace airlock::host
