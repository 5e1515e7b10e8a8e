#include "pins/pin_check.hpp"

#include "pins/tool_definition.hpp"

#include "audit/audit_trail.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <set>

namespace airlock::host {
namespace json = boost::json;

namespace {

std::vector<std::string> changed_members(const json::object& before, const json::object& now) {
  std::set<std::string> keys;
  for (const auto& member : before) keys.emplace(member.key());
  for (const auto& member : now) keys.emplace(member.key());
  std::vector<std::string> changed;
  for (const auto& key : keys) {
    const auto* a = before.if_contains(key);
    const auto* b = now.if_contains(key);
    if (!a || !b || canonical_json(*a) != canonical_json(*b)) changed.push_back(key);
  }
  return changed;
}

}  // namespace

std::vector<PinFinding> compare_pins(const PinStore& store, const PluginRegistry& registry) {
  std::vector<PinFinding> findings;
  for (const Tool* tool : registry.tools()) {
    const json::object definition = tool_definition(*tool);
    PinFinding finding{tool->name, PinState::added, definition_digest(definition), store.find(tool->name), {}};
    if (finding.pin) {
      if (finding.pin->sha256 == finding.digest) {
        finding.state = PinState::pinned;
      } else {
        finding.state = PinState::changed;
        finding.changed_members = changed_members(finding.pin->definition, definition);
      }
    }
    findings.push_back(std::move(finding));
  }
  return findings;
}

void pin_tool(PinStore& store, const Tool& tool) {
  json::object definition = tool_definition(tool);
  std::string digest = definition_digest(definition);
  store.set(tool.name, Pin{std::move(digest), PluginRegistry::file_of(tool.owner), utc_now_text(),
                           std::move(definition)});
}

std::string changed_members_text(const PinFinding& finding) {
  std::string text;
  for (const auto& member : finding.changed_members) text += (text.empty() ? "" : ", ") + member;
  return text;
}

void audit_pin(audit::Kind kind, const PinFinding& finding, std::string reason) {
  if (!audit::enabled()) return;
  audit::Event event;
  event.kind = kind;
  event.failed = kind == audit::Kind::pin_changed;
  event.outcome = kind == audit::Kind::pin_recorded ? "recorded" : kind == audit::Kind::pin_accepted ? "accepted"
                                                                                                      : "changed";
  event.subject = finding.tool;
  event.reason = std::move(reason);
  event.detail["sha256"] = finding.digest;
  if (finding.pin) event.detail["pinned_sha256"] = finding.pin->sha256;
  if (!finding.changed_members.empty()) {
    boost::json::array members;
    for (const auto& member : finding.changed_members) members.emplace_back(member);
    event.detail["changed"] = std::move(members);
  }
  audit::record(std::move(event));
}

Result<void> enforce_pins(const PinningConfig& pinning, PluginRegistry& registry) {
  if (!pinning.file) return {};
  auto store = PinStore::load(*pinning.file);
  if (!store) return store.error();

  bool added = false;
  std::vector<std::string> refused;
  for (const auto& finding : compare_pins(*store, registry)) {
    if (finding.state == PinState::added) {
      pin_tool(*store, *registry.find_tool(finding.tool));
      audit_pin(audit::Kind::pin_recorded, finding, {});
      spdlog::info("pinned tool {} (definition sha256 {}) in {}", finding.tool, finding.digest.substr(0, 16),
                   pinning.file->string());
      added = true;
    } else if (finding.state == PinState::changed) {
      const bool refuse = pinning.on_definition_change == OnDefinitionChange::refuse;
      const std::string message = fmt::format(
          "tool {} from {}: its definition changed since it was pinned on {} ({} changed; sha256 {} now, {} "
          "pinned); {} (pinning.on_definition_change = \"{}\"); to accept it: airlock pin -c <config> --accept {}",
          finding.tool, PluginRegistry::file_of(registry.find_tool(finding.tool)->owner), finding.pin->pinned_at,
          changed_members_text(finding), finding.digest.substr(0, 16), finding.pin->sha256.substr(0, 16),
          refuse ? "refused, not served" : "served anyway", refuse ? "refuse" : "warn", finding.tool);
      audit_pin(audit::Kind::pin_changed, finding, refuse ? "refused, not served" : "served anyway");
      if (refuse) {
        spdlog::error("{}", message);
        refused.push_back(finding.tool);
      } else {
        spdlog::warn("{}", message);
      }
    }
  }
  for (const auto& name : refused) registry.withdraw_tool(name);
  if (added) return store->save();
  return {};
}

}  // namespace airlock::host
