// One thing the server did that a security team must be able to answer for
// afterwards: a tool call, an egress decision, a refused request, a plugin
// that crashed. An event holds only what the host knows of its own accord —
// names, counts, digests and its own fixed words — never a byte of a result,
// an argument value or a tool's or sanitizer's error text, so the audit trail
// is redacted by construction rather than by a filter that could miss.
#pragma once

#include "util/sha256.hpp"

#include <boost/json/object.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace airlock::host {
class JsonObjectWriter;
}

namespace airlock::host::audit {

enum class Kind : std::uint8_t {
  // A request's work, with its actor.
  tool_call,      // subject: tool
  resource_read,  // subject: the resource URI the client asked for
  prompt_get,     // subject: prompt name
  egress,         // subject: tool; destination/address: where it went
  task_created,   // subject: task id; detail.tool
  task_read,      // subject: task id (its result re-sanitized for the reader)
  task_cancelled,
  task_failed,
  // The HTTP front's refusals.
  auth_failed,      // 401: no token, an unknown one
  rate_limited,     // 429
  request_refused,  // Host or Origin not allowed (403), and other front-door refusals
  // Code and definitions.
  plugin_loaded,     // subject: plugin name; detail.sha256 of the object
  plugin_refused,    // reason: the host's word for why
  plugin_crashed,    // an isolated plugin's worker died
  plugin_restarted,  // ... and was started again
  pin_recorded,      // subject: tool; detail.sha256 of its definition
  pin_changed,       // a definition no longer matches its pin: the tool is withheld
  pin_accepted,      // an operator accepted the change
  pack_verified,
  pack_installed,
  pack_refused,
  config_loaded,  // subject: the config file; detail.sha256 of its bytes
  server_start,
  server_stop,
  // Written by the trail itself, never by a caller.
  checkpoint,       // a signed statement of the chain so far
  records_dropped,  // the queue was full; detail.dropped: how many records are missing here
  sink_reopened,    // SIGHUP: the file was reopened (logrotate)
};

// What a kind is called in records ("tool_call", "pin_changed", ...).
std::string_view kind_name(Kind kind) noexcept;

// The kind named `name`; nothing for a name no kind has.
std::optional<Kind> kind_from_name(std::string_view name) noexcept;

// A short title for people ("Tool call", "Definition pin changed"): CEF's
// Name field.
std::string_view kind_title(Kind kind) noexcept;

// Who acted, as the transport knows the client. Empty fields are unknown or
// do not apply (stdio has no session id, address or authenticated caller).
struct Actor {
  std::string caller;     // authenticated identity (a token's identity, an OAuth subject)
  std::string session;    // Mcp-Session-Id
  std::string request;    // the JSON-RPC id, as JSON text
  std::string protocol;   // the protocol revision the request spoke
  std::string transport;  // "stdio" | "http"
  std::string address;    // the peer's IP address (HTTP)
  std::string client;     // the OAuth client_id the caller's token was issued to
};

// What one of a call's digests covers, until the trail's writer hashes it.
// Hashing a 4 KiB call's arguments, result and response on the call's
// thread took as long as the rest of its pipeline; copying them takes a
// tenth of that. Below kHashAtOnce bytes the copy costs more than the hash,
// and the digest is computed at once. Nothing reads the bytes back but
// hash(): the writer settles every digest before a record is formatted,
// and drops the bytes.
class PendingDigest {
 public:
  static constexpr std::size_t kHashAtOnce = 1024;

  // SHA-256 of `bytes` as they are.
  static PendingDigest of_bytes(std::string_view bytes);
  // SHA-256 of `value`'s canonical JSON (util/json_canonical.hpp).
  static PendingDigest of_json(const boost::json::value& value);
  static PendingDigest of_json(const boost::json::object& value);

  Sha256Digest hash() const;
  // About how much memory the covered bytes take: what the trail bounds.
  std::size_t held_bytes() const noexcept;

 private:
  PendingDigest() = default;
  template <class Json>
  static PendingDigest of_tree(const Json& value);

  std::optional<Sha256Digest> hashed_;
  std::string bytes_;
  std::optional<boost::json::value> value_;
};

struct Event {
  Kind kind = Kind::server_start;
  std::chrono::system_clock::time_point time = std::chrono::system_clock::now();
  bool failed = false;  // the action did not happen as asked (denied, withheld, refused, crashed)
  // One host word for how it ended: "delivered", "withheld", "tool_error",
  // "timeout", "cancelled", "allowed", "denied", "loaded", "refused", ...
  std::string outcome;
  Actor actor;
  std::string subject;  // what was acted on; see Kind
  // The host's own words for why (a pipeline stage, an egress rule, a
  // refusal's name). Never text from a plugin or a client.
  std::string reason;
  std::optional<std::chrono::microseconds> duration;
  std::optional<std::uint64_t> bytes;  // bytes sent to the client (or fetched, for egress)
  // Egress: "scheme://host:port" (never a path or query: those may carry
  // argument values), and the address it resolved to and connected to.
  std::string destination;
  std::string address;
  // An HTTP front refusal: the request line's method and path, and the status sent.
  std::string http_method;
  std::string http_path;
  unsigned http_status = 0;
  // A tool call's digests (of its arguments, of its result before the
  // chain, of the result as sent) and its chain by name, kept typed so the
  // call's thread writes no text for them: a record is built for every
  // call. Formats write them first in detail, the digests as 64 hex digits
  // under arguments_sha256, result_sha256 and delivered_sha256.
  std::optional<Sha256Digest> arguments_sha256;
  std::optional<Sha256Digest> result_sha256;
  std::optional<Sha256Digest> delivered_sha256;
  std::string chain;
  // The same digests while they are still to be computed: settle_digests
  // (on the writer, or on the caller's thread when the writer is behind)
  // turns each into its field above.
  struct {
    std::optional<PendingDigest> arguments;
    std::optional<PendingDigest> result;
    std::optional<PendingDigest> delivered;
  } pending{};
  // Everything else, host-made: digests, counts, names. Formats map the keys
  // they know and keep the rest beside the record (OCSF: `unmapped`).
  boost::json::object detail;
};

// Computes `event`'s pending digests into their fields. Throws only when
// memory runs out (a canonical form is written to be hashed).
void settle_digests(Event& event);

// How much memory `event`'s pending digests hold.
std::size_t held_bytes(const Event& event) noexcept;

// Whether a record of `event` holds a detail object (see write_detail).
bool has_detail(const Event& event) noexcept;

// The members of the record's detail object: the typed digests and the
// chain, then `event.detail`'s members in their order.
void write_detail(JsonObjectWriter& out, const Event& event);

// How much a record matters to whoever reads the trail, in OCSF's words;
// CEF and syslog map it onto their own scales.
enum class Severity : std::uint8_t { informational = 1, low = 2, medium = 3, high = 4 };

// Informational for an ordinary success; low for a request that was denied,
// withheld or refused; medium for failed authentication and for code or
// definitions the host would not trust; high for a crash and for lost records.
Severity severity_of(const Event& event) noexcept;

std::string_view severity_name(Severity severity) noexcept;

// One sentence of host words for the record, built only from the event's
// host-made fields: "tool_call get_forecast: delivered".
std::string describe(const Event& event);

// The same sentence as the pieces it is joined from, for a writer that
// escapes them straight into a record without building it first.
struct DescriptionParts {
  std::array<std::string_view, 10> parts;  // kind, subject, destination, outcome, reason and their words
  std::size_t count = 0;
  std::span<const std::string_view> view() const noexcept { return {parts.data(), count}; }
};
DescriptionParts description_parts(const Event& event) noexcept;

}  // namespace airlock::host::audit
