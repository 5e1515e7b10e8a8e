// The one way a tool runs. Every caller that runs a tool — a session's
// tools/call (both protocol eras), a durable task, `airlock check` — hands
// the runner the route, the arguments, its cancellation flag and its way to
// the client, and gets back what the tool produced; a caller that answers a
// client has the runner frame that answer too. So what a call is (the
// egress set and the fetcher it reaches the network through, per-tool
// serialization, how the result becomes a JSON-RPC response and is counted)
// is decided here once, and cannot drift between callers again.
#pragma once

#include "calls/call_audit.hpp"
#include "pipeline/request_context.hpp"
#include "pipeline/result_pipeline.hpp"
#include "pipeline/tool_routes.hpp"

#include <boost/json/value.hpp>

#include <atomic>
#include <string>
#include <string_view>

namespace airlock::host {

class CallChannel;
class EgressPolicy;
class Fetcher;
struct Tool;

class ToolCallRunner {
 public:
  // No network: every call_fetch is refused (airlock check, tests).
  ToolCallRunner() = default;
  // `fetcher` performs the tools' fetches, each under its tool's egress set;
  // not owned, and it outlives every call run here.
  explicit ToolCallRunner(const Fetcher& fetcher) : fetcher_(&fetcher) {}

  // Runs the route's tool once, on the calling thread, and returns what
  // on_call returned and what the tool set through the host. A tool that is
  // not AIRLOCK_TOOL_REENTRANT runs one call at a time, whoever calls it.
  // `arguments` is the JSON object text; `cancelled` is what the tool polls
  // and outlives the call; `channel` is the way to the client, null for
  // none (progress and logs go nowhere, requests are UNSUPPORTED).
  // `context` is who the call runs for: its egress decisions are counted
  // in its metrics and recorded in the audit trail as theirs (null: neither).
  ToolCallOutcome run(const ToolRoute& route, std::string_view arguments, const std::atomic<bool>& cancelled,
                      CallChannel* channel, const RequestContext* context = nullptr) const;
  // The same for a tool outside any route (airlock check): `egress` null
  // grants nothing.
  ToolCallOutcome run(const Tool& tool, const EgressPolicy* egress, std::string_view arguments,
                      const std::atomic<bool>& cancelled, CallChannel* channel,
                      const RequestContext* context = nullptr) const;

  // The complete JSON-RPC response to the request `id`: the result pipeline
  // run over `outcome` (every stage, in order), written once into its
  // envelope. The call is counted in context.metrics, when set, and
  // recorded in the audit trail, when one is installed; `end` says whether
  // the outcome is the tool's or the host's timeout.
  static std::string respond(const ToolRoute& route, ToolCallOutcome outcome, const RequestContext& context,
                             std::string_view raw_arguments, const boost::json::value& id,
                             CallEnd end = CallEnd::ran);
  // The response for arguments that fail the tool's inputSchema: the tool
  // never ran; host text naming the schema location passes the chain.
  static std::string respond_invalid_arguments(const ToolRoute& route, std::string_view failure,
                                               const RequestContext& context, std::string_view raw_arguments,
                                               const boost::json::value& id);

 private:
  const Fetcher* fetcher_ = nullptr;
};

}  // namespace airlock::host
