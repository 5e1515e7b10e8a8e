#include "calls/tool_call_runner.hpp"

#include "mcp/jsonrpc.hpp"
#include "metrics/metrics.hpp"
#include "plugins/host_api.hpp"

#include <mutex>

namespace airlock::host {

ToolCallOutcome ToolCallRunner::run(const ToolRoute& route, std::string_view arguments,
                                    const std::atomic<bool>& cancelled, CallChannel* channel) const {
  return run(*route.tool, route.egress.get(), arguments, cancelled, channel);
}

ToolCallOutcome ToolCallRunner::run(const Tool& tool, const EgressPolicy* egress, std::string_view arguments,
                                    const std::atomic<bool>& cancelled, CallChannel* channel) const {
  airlock_call call;
  call.cancelled = &cancelled;
  call.channel = channel;
  call.tool_name = tool.name;
  call.egress = egress;
  call.fetcher = fetcher_;
  airlock_status status;
  {
    std::unique_lock<std::mutex> serial;
    if (!tool.reentrant()) serial = std::unique_lock(*tool.serial);
    status = tool.on_call(tool.tool_data, &call, borrow(arguments));
  }
  // What the tool lent out (replies, fetched bodies) dies with `call`; the
  // output it set was copied into host memory as it was set.
  return ToolCallOutcome{status, std::move(call.output)};
}

namespace {

std::string framed(const ToolRoute& route, const RequestContext& context, const boost::json::value& id,
                   auto&& run_pipeline) {
  std::string response = jsonrpc::result_prefix(id);
  const bool error = run_pipeline(response);
  if (context.metrics) context.metrics->tool_call(route.tool->name, error);
  response.push_back(jsonrpc::kResultSuffix);
  return response;
}

}  // namespace

std::string ToolCallRunner::respond(const ToolRoute& route, ToolCallOutcome outcome, const RequestContext& context,
                                    std::string_view raw_arguments, const boost::json::value& id) {
  return framed(route, context, id, [&](std::string& out) {
    return run_result_pipeline(route, std::move(outcome), context, raw_arguments, out);
  });
}

std::string ToolCallRunner::respond_invalid_arguments(const ToolRoute& route, std::string_view failure,
                                                      const RequestContext& context, std::string_view raw_arguments,
                                                      const boost::json::value& id) {
  return framed(route, context, id, [&](std::string& out) {
    run_invalid_arguments_pipeline(route, failure, context, raw_arguments, out);
    return true;
  });
}

}  // namespace airlock::host
