#include "calls/tool_call_runner.hpp"

#include "calls/call_audit.hpp"
#include "audit/audit_trail.hpp"
#include "metrics/metrics.hpp"
#include "plugins/host_api.hpp"

#include <chrono>
#include <mutex>
#include <optional>

namespace airlock::host {

ToolCallOutcome ToolCallRunner::run(const ToolRoute& route, std::string_view arguments,
                                    const std::atomic<bool>& cancelled, CallChannel* channel,
                                    const RequestContext* context) const {
  return run(*route.tool, route.egress.get(), arguments, cancelled, channel, context);
}

ToolCallOutcome ToolCallRunner::run(const Tool& tool, const EgressPolicy* egress, std::string_view arguments,
                                    const std::atomic<bool>& cancelled, CallChannel* channel,
                                    const RequestContext* context) const {
  airlock_call call;
  std::optional<audit::Actor> actor;
  if (context) {
    if (audit::enabled()) actor = audit_actor(*context);
    call.request = actor ? &*actor : nullptr;
    call.metrics = context->metrics;
  }
  call.cancelled = &cancelled;
  call.channel = channel;
  call.tool_name = tool.name;
  call.egress = egress;
  call.fetcher = fetcher_;
  airlock_status status;
  // The tool's time is the audit trail's alone: without one, nobody pays
  // two clock reads a call for it.
  const bool timed = audit::enabled();
  const auto started = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  {
    std::unique_lock<std::mutex> serial;
    if (!tool.reentrant()) serial = std::unique_lock(*tool.serial);
    status = tool.on_call(tool.tool_data, &call, borrow(arguments));
  }
  // What the tool lent out (replies, fetched bodies) dies with `call`; the
  // output it set was copied into host memory as it was set.
  return ToolCallOutcome{status, std::move(call.output),
                         timed ? std::chrono::steady_clock::now() - started : std::chrono::nanoseconds{}};
}

namespace {

// Counts and audits the response `run_pipeline` writes (the result pipeline
// frames it: its last stage).
std::string counted(const ToolRoute& route, const RequestContext& context, std::string_view raw_arguments,
                    CallEnd end, std::chrono::nanoseconds took, auto&& run_pipeline) {
  std::string response;
  PipelineVerdict verdict = run_pipeline(response);
  if (context.metrics) context.metrics->tool_call(route.tool->name, verdict.error);
  audit_tool_call(route, context, raw_arguments, end, &verdict, took, verdict.result_in(response), response.size());
  return response;
}

}  // namespace

std::string ToolCallRunner::respond(const ToolRoute& route, ToolCallOutcome outcome, const RequestContext& context,
                                    std::string_view raw_arguments, const boost::json::value& id, CallEnd end) {
  const auto took = outcome.took;
  return counted(route, context, raw_arguments, end, took, [&](std::string& out) {
    return run_result_pipeline(route, std::move(outcome), context, raw_arguments, out, &id);
  });
}

std::string ToolCallRunner::respond_invalid_arguments(const ToolRoute& route, std::string_view failure,
                                                      const RequestContext& context, std::string_view raw_arguments,
                                                      const boost::json::value& id) {
  return counted(route, context, raw_arguments, CallEnd::invalid_arguments, {}, [&](std::string& out) {
    auto verdict = run_invalid_arguments_pipeline(route, failure, context, raw_arguments, out, &id);
    verdict.error = true;
    return verdict;
  });
}

}  // namespace airlock::host
