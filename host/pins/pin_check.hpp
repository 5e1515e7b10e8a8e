// Holding the loaded tools to their pins: which are as pinned, which are new,
// which changed; and what the server does about it at start.
#pragma once

#include "audit/audit_event.hpp"
#include "config/host_config.hpp"
#include "pins/pin_store.hpp"
#include "plugins/plugin_registry.hpp"
#include "util/error.hpp"

#include <string>
#include <vector>

namespace airlock::host {

enum class PinState { pinned, added, changed };

struct PinFinding {
  std::string tool;
  PinState state = PinState::pinned;
  std::string digest;         // the definition now
  const Pin* pin = nullptr;   // the pin it was compared with; null when added
  // Top-level members of the definition that differ from the pin
  // ("description", "inputSchema", ...), for a message an operator can act on.
  std::vector<std::string> changed_members;
};

// Every registered tool against `store`, in tools/list order.
std::vector<PinFinding> compare_pins(const PinStore& store, const PluginRegistry& registry);

// Records the current definition of `tool` as its pin.
void pin_tool(PinStore& store, const Tool& tool);

// What `airlock serve` does at start when [pinning] names a file: pins every
// tool seen for the first time (and saves the file), and takes each changed
// tool out of service (refuse) or serves it with a warning (warn). The pin of
// a changed tool is never moved by the server: only `airlock pin --accept`
// does that. Errors: a pin file that cannot be read or written.
// Records a pin event (recorded, changed, accepted) for `finding` in the
// audit trail, when one is installed.
void audit_pin(audit::Kind kind, const PinFinding& finding, std::string reason);

Result<void> enforce_pins(const PinningConfig& pinning, PluginRegistry& registry);

// "description, inputSchema"
std::string changed_members_text(const PinFinding& finding);

}  // namespace airlock::host
