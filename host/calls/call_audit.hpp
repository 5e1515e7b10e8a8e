// What the audit trail records of a tool call: the host's own knowledge of
// it (who, which tool and chain, digests, the pipeline's verdict, bytes and
// time), never a byte of its arguments or result unless the operator opted
// into argument values, and then only after the redact-secrets patterns.
#pragma once

#include "audit/audit_event.hpp"
#include "pipeline/request_context.hpp"
#include "pipeline/result_pipeline.hpp"
#include "pipeline/tool_routes.hpp"

#include <chrono>
#include <string_view>

namespace airlock::plugins {
class SecretRedactor;
}

namespace airlock::host {

// How a call ended, besides what the pipeline made of its result.
enum class CallEnd { ran, timed_out, invalid_arguments, cancelled };

// The actor of a request, as its context knows it.
audit::Actor audit_actor(const RequestContext& context);

// SHA-256 of the canonical JSON of `arguments` (an object's text); of the
// text itself when it is not JSON.
Sha256Digest arguments_sha256(std::string_view arguments);
// ... as 64 lowercase hex digits.
std::string arguments_digest(std::string_view arguments);

// Records one tool call when a trail is installed. `verdict` is null for a
// call that never reached the pipeline (cancelled); its pending result
// digest is moved into the record; `delivered` is the
// serialized result the client got (digested), `bytes` the whole response.
void audit_tool_call(const ToolRoute& route, const RequestContext& context, std::string_view raw_arguments,
                     CallEnd end, PipelineVerdict* verdict, std::chrono::nanoseconds took,
                     std::string_view delivered, std::size_t bytes);

// With [audit] record_arguments, argument values are recorded after this
// redactor (not owned; outlives every call; null: values are not recorded).
// Called once at start, before any call.
void record_argument_values(const plugins::SecretRedactor* redactor) noexcept;

}  // namespace airlock::host
