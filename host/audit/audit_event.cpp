// The names, titles and severities of audit event kinds: the words every
// format shares, so OCSF, CEF and syslog never disagree about a record.
#include "audit/audit_event.hpp"

#include "util/json_canonical.hpp"
#include "util/json_writer.hpp"

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

namespace {

// About how much memory a copy of a JSON value takes: its strings and a
// node per value.
constexpr std::size_t kNode = sizeof(boost::json::value);
std::size_t footprint(const boost::json::value& value) noexcept;

std::size_t footprint(const boost::json::object& object) noexcept {
  std::size_t total = kNode;
  for (const auto& member : object) total += member.key().size() + footprint(member.value());
  return total;
}

std::size_t footprint(const boost::json::value& value) noexcept {
  if (const auto* string = value.if_string()) return kNode + string->size();
  if (const auto* array = value.if_array()) {
    std::size_t total = kNode;
    for (const auto& item : *array) total += footprint(item);
    return total;
  }
  if (const auto* object = value.if_object()) return footprint(*object);
  return kNode;
}

}  // namespace

PendingDigest PendingDigest::of_bytes(std::string_view bytes) {
  PendingDigest digest;
  if (bytes.size() < kHashAtOnce)
    digest.hashed_ = sha256(bytes);
  else
    digest.bytes_ = bytes;
  return digest;
}

template <class Json>
PendingDigest PendingDigest::of_tree(const Json& value) {
  PendingDigest digest;
  if (footprint(value) < kHashAtOnce)
    digest.hashed_ = sha256(canonical_json(value));
  else
    digest.value_ = boost::json::value(value);
  return digest;
}

PendingDigest PendingDigest::of_json(const boost::json::value& value) { return of_tree(value); }
PendingDigest PendingDigest::of_json(const boost::json::object& value) { return of_tree(value); }

Sha256Digest PendingDigest::hash() const {
  if (hashed_) return *hashed_;
  return value_ ? sha256(canonical_json(*value_)) : sha256(bytes_);
}

std::size_t PendingDigest::held_bytes() const noexcept {
  if (hashed_) return 0;
  return value_ ? footprint(*value_) : bytes_.size();
}

void settle_digests(Event& event) {
  const auto settle = [](std::optional<PendingDigest>& pending, std::optional<Sha256Digest>& digest) {
    if (!pending) return;
    digest = pending->hash();
    pending.reset();
  };
  settle(event.pending.arguments, event.arguments_sha256);
  settle(event.pending.result, event.result_sha256);
  settle(event.pending.delivered, event.delivered_sha256);
}

std::size_t held_bytes(const Event& event) noexcept {
  std::size_t total = 0;
  for (const auto* pending : {&event.pending.arguments, &event.pending.result, &event.pending.delivered})
    if (*pending) total += (*pending)->held_bytes();
  return total;
}

bool has_detail(const Event& event) noexcept {
  return event.arguments_sha256 || event.result_sha256 || event.delivered_sha256 || !event.chain.empty() ||
         !event.detail.empty();
}

void write_detail(JsonObjectWriter& out, const Event& event) {
  const auto digest = [&](std::string_view name, const std::optional<Sha256Digest>& value) {
    if (!value) return;
    static constexpr char kHex[] = "0123456789abcdef";
    char hex[2 * std::tuple_size_v<Sha256Digest>];
    for (std::size_t i = 0; i < value->size(); ++i) {
      hex[2 * i] = kHex[(*value)[i] >> 4];
      hex[2 * i + 1] = kHex[(*value)[i] & 0xf];
    }
    out.string(name, std::string_view(hex, sizeof hex));
  };
  digest("arguments_sha256", event.arguments_sha256);
  if (!event.chain.empty()) out.string("chain", event.chain);
  digest("result_sha256", event.result_sha256);
  digest("delivered_sha256", event.delivered_sha256);
  for (const auto& [key, value] : event.detail) out.member(key, value);
}

DescriptionParts description_parts(const Event& event) noexcept {
  DescriptionParts out;
  const auto add = [&](std::string_view part) { out.parts[out.count++] = part; };
  add(kind_name(event.kind));
  if (!event.subject.empty()) {
    add(" ");
    add(event.subject);
  }
  if (!event.destination.empty()) {
    add(" to ");
    add(event.destination);
  }
  if (!event.outcome.empty()) {
    add(": ");
    add(event.outcome);
  }
  if (!event.reason.empty()) {
    add(" (");
    add(event.reason);
    add(")");
  }
  return out;
}

std::string describe(const Event& event) {
  const DescriptionParts described = description_parts(event);  // outlives the loop over its parts
  std::string text;
  for (const std::string_view part : described.view()) text += part;
  return text;
}

}  // namespace airlock::host::audit
