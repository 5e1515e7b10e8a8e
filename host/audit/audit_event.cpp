// The names, titles and severities of audit event kinds: the words every
// format shares, so OCSF, CEF and syslog never disagree about a record.
#include "audit/audit_event.hpp"

#include <array>

namespace airlock::host::audit {

namespace {

struct KindWords {
  Kind kind;
  std::string_view name;
  std::string_view title;
};

// In the order of the enum, so a kind's words are at its own index.
constexpr std::array kKinds{
    KindWords{Kind::tool_call, "tool_call", "Tool call"},
    KindWords{Kind::resource_read, "resource_read", "Resource read"},
    KindWords{Kind::prompt_get, "prompt_get", "Prompt get"},
    KindWords{Kind::egress, "egress", "Egress decision"},
    KindWords{Kind::task_created, "task_created", "Task created"},
    KindWords{Kind::task_read, "task_read", "Task read"},
    KindWords{Kind::task_cancelled, "task_cancelled", "Task cancelled"},
    KindWords{Kind::task_failed, "task_failed", "Task failed"},
    KindWords{Kind::auth_failed, "auth_failed", "Authentication failed"},
    KindWords{Kind::rate_limited, "rate_limited", "Rate limited"},
    KindWords{Kind::request_refused, "request_refused", "Request refused"},
    KindWords{Kind::plugin_loaded, "plugin_loaded", "Plugin loaded"},
    KindWords{Kind::plugin_refused, "plugin_refused", "Plugin refused"},
    KindWords{Kind::plugin_crashed, "plugin_crashed", "Plugin crashed"},
    KindWords{Kind::plugin_restarted, "plugin_restarted", "Plugin restarted"},
    KindWords{Kind::pin_recorded, "pin_recorded", "Definition pin recorded"},
    KindWords{Kind::pin_changed, "pin_changed", "Definition pin changed"},
    KindWords{Kind::pin_accepted, "pin_accepted", "Definition pin accepted"},
    KindWords{Kind::pack_verified, "pack_verified", "Pack verified"},
    KindWords{Kind::pack_installed, "pack_installed", "Pack installed"},
    KindWords{Kind::pack_refused, "pack_refused", "Pack refused"},
    KindWords{Kind::config_loaded, "config_loaded", "Config loaded"},
    KindWords{Kind::server_start, "server_start", "Server start"},
    KindWords{Kind::server_stop, "server_stop", "Server stop"},
    KindWords{Kind::checkpoint, "checkpoint", "Audit checkpoint"},
    KindWords{Kind::records_dropped, "records_dropped", "Audit records dropped"},
    KindWords{Kind::sink_reopened, "sink_reopened", "Audit sink reopened"},
};

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < kKinds.size(); ++i)
    if (static_cast<std::size_t>(kKinds[i].kind) != i) return false;
  return true;
}
static_assert(in_enum_order(), "kKinds must list every Kind in the order of the enum");
static_assert(kKinds.back().kind == Kind::sink_reopened, "a Kind added to the enum needs its words here");

const KindWords* words_of(Kind kind) noexcept {
  const auto index = static_cast<std::size_t>(kind);
  return index < kKinds.size() ? &kKinds[index] : nullptr;
}

}  // namespace

std::string_view kind_name(Kind kind) noexcept {
  const KindWords* words = words_of(kind);
  return words ? words->name : "unknown";
}

std::optional<Kind> kind_from_name(std::string_view name) noexcept {
  for (const KindWords& words : kKinds)
    if (words.name == name) return words.kind;
  return std::nullopt;
}

std::string_view kind_title(Kind kind) noexcept {
  const KindWords* words = words_of(kind);
  return words ? words->title : "Unknown";
}

Severity severity_of(const Event& event) noexcept {
  switch (event.kind) {
    case Kind::plugin_crashed:
    case Kind::records_dropped:
      return Severity::high;
    case Kind::auth_failed:
    case Kind::pin_changed:
    case Kind::pack_refused:
    case Kind::plugin_refused:
      return Severity::medium;
    case Kind::rate_limited:
    case Kind::request_refused:
      return Severity::low;
    default:
      return event.failed ? Severity::low : Severity::informational;
  }
}

std::string_view severity_name(Severity severity) noexcept {
  switch (severity) {
    case Severity::informational:
      return "Informational";
    case Severity::low:
      return "Low";
    case Severity::medium:
      return "Medium";
    case Severity::high:
      return "High";
  }
  return "Unknown";
}

std::string describe(const Event& event) {
  std::string text(kind_name(event.kind));
  if (!event.subject.empty()) {
    text += ' ';
    text += event.subject;
  }
  if (!event.destination.empty()) {
    text += " to ";
    text += event.destination;
  }
  if (!event.outcome.empty()) {
    text += ": ";
    text += event.outcome;
  }
  if (!event.reason.empty()) {
    text += " (";
    text += event.reason;
    text += ')';
  }
  return text;
}

}  // namespace airlock::host::audit
