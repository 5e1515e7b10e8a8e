// One thing the server did that a security team must be able to answer for
// afterwards: a tool call, an egress decision, a refused request, a plugin
// that crashed. An event holds only what the host knows of its own accord —
// names, counts, digests and its own fixed words — never a byte of a result,
// an argument value or a tool's or sanitizer's error text, so the audit trail
// is redacted by construction rather than by a filter that could miss.
#pragma once

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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
  // Everything else, host-made: digests ("arguments_sha256", ...), the
  // chain and its steps, counts. Formats map the keys they know and keep the
  // rest beside the record (OCSF: `unmapped`).
  boost::json::object detail;
};

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

}  // namespace airlock::host::audit
