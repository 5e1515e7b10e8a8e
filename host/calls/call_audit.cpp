#include "calls/call_audit.hpp"

#include "audit/audit_trail.hpp"
#include "util/json_canonical.hpp"
#include "util/sha256.hpp"

#include <redact_secrets.hpp>

#include <boost/json/parse.hpp>

#include <atomic>

namespace airlock::host {
namespace {

std::atomic<const plugins::SecretRedactor*> argument_redactor{nullptr};

// Every string of `value`, keys included, through the redactor: a key can
// carry a secret as well as a value can.
void redact(boost::json::value& value, const plugins::SecretRedactor& redactor) {
  if (auto* text = value.if_string()) {
    if (auto redacted = redactor(*text)) *text = *redacted;
  } else if (auto* array = value.if_array()) {
    for (auto& item : *array) redact(item, redactor);
  } else if (auto* object = value.if_object()) {
    boost::json::object out;
    for (auto& [key, item] : *object) {
      redact(item, redactor);
      auto name = redactor(key);
      out[name ? *name : std::string(key)] = std::move(item);
    }
    *object = std::move(out);
  }
}

std::string_view outcome_word(CallEnd end, const PipelineVerdict* verdict) {
  switch (end) {
    case CallEnd::cancelled: return "cancelled";
    case CallEnd::timed_out: return "timeout";
    case CallEnd::invalid_arguments: return "invalid_arguments";
    case CallEnd::ran: break;
  }
  if (!verdict) return "cancelled";
  if (!verdict->withheld.empty()) return "withheld";
  return verdict->error ? "tool_error" : "delivered";
}

}  // namespace

audit::Actor audit_actor(const RequestContext& context) {
  return audit::Actor{std::string(context.caller),
                      std::string(context.session_id),
                      std::string(context.request_id),
                      std::string(context.protocol_version),
                      std::string(context.transport.empty() ? "stdio" : context.transport),
                      std::string(context.peer_address),
                      std::string(context.client)};
}

Sha256Digest arguments_sha256(std::string_view arguments) {
  boost::system::error_code ec;
  const auto value = boost::json::parse(arguments, ec);
  return sha256(ec ? arguments : std::string_view(canonical_json(value)));
}

std::string arguments_digest(std::string_view arguments) { return sha256_hex(arguments_sha256(arguments)); }

void audit_tool_call(const ToolRoute& route, const RequestContext& context, std::string_view raw_arguments,
                     CallEnd end, PipelineVerdict* verdict, std::chrono::nanoseconds took,
                     std::string_view delivered, std::size_t bytes) {
  if (!audit::enabled()) return;
  audit::Event event;
  event.kind = audit::Kind::tool_call;
  event.outcome = outcome_word(end, verdict);
  event.failed = event.outcome != "delivered";
  event.actor = audit_actor(context);
  event.subject = route.tool->name;
  if (verdict && !verdict->withheld.empty())
    event.reason = verdict->step.empty() ? std::string(verdict->withheld)
                                         : std::string(verdict->withheld) + ": " + verdict->step;
  event.duration = std::chrono::duration_cast<std::chrono::microseconds>(took);
  if (end != CallEnd::cancelled) event.bytes = bytes;

  // The digests are computed by the trail's writer, off the call's path;
  // the call copies what they cover. The arguments' text is the session's
  // serialization of the value it parsed: when that is already canonical
  // (a one-member object always is), the text is what is hashed.
  if (context.arguments)
    event.pending.arguments = serializes_canonically(*context.arguments)
                                  ? audit::PendingDigest::of_bytes(raw_arguments)
                                  : audit::PendingDigest::of_json(*context.arguments);
  else
    event.arguments_sha256 = arguments_sha256(raw_arguments);
  if (const auto* redactor = argument_redactor.load(std::memory_order_acquire)) {
    boost::system::error_code ec;
    auto values = boost::json::parse(raw_arguments, ec);
    if (!ec) {
      redact(values, *redactor);
      event.detail["arguments"] = std::move(values);
    }
  }
  // The chain by name: its steps, and each step's plugin with the digest of
  // its object, are in the run's server_start and plugin_loaded records.
  event.chain = route.chain ? std::string_view(route.chain->name()) : std::string_view("none");
  if (verdict && verdict->result_digest) event.pending.result = std::move(verdict->result_digest);
  if (!delivered.empty()) event.pending.delivered = audit::PendingDigest::of_bytes(delivered);
  audit::record(std::move(event));
}

void record_argument_values(const plugins::SecretRedactor* redactor) noexcept {
  argument_redactor.store(redactor, std::memory_order_release);
}

}  // namespace airlock::host
