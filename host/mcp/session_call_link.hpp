// A running request's way to its client, shared by tool calls (session.cpp)
// and by the prompt gets and resource reads that may ask the client
// (session_content.cpp): what host_api.cpp forwards a plugin's call_*
// functions to. Lives on the worker's stack for the hook.
#pragma once

#include "mcp/input_round.hpp"
#include "mcp/protocol.hpp"
#include "mcp/session.hpp"
#include "util/json_text.hpp"

#include <boost/json/object.hpp>

#include <cmath>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host {
namespace session_detail {

// A JSON number for a progress value: integral values as integers (the
// common 0, 50, 100 read as such), the rest as doubles.
inline boost::json::value progress_number(double v) {
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (std::trunc(v) == v && std::fabs(v) <= kExactIntegers) return static_cast<std::int64_t>(v);
  return v;
}

inline std::string notification(std::string_view method, const boost::json::object& params) {
  std::string out = R"({"jsonrpc":"2.0","method":)";
  append_json(out, boost::json::value(method));
  out.append(R"(,"params":)");
  append_json(out, params);
  out.push_back('}');
  return out;
}

}  // namespace session_detail

// One running call's way to its client: what host_api.cpp forwards the
// plugin's call_* functions to. Lives on the worker's stack for on_call.
class Session::CallLink final : public CallChannel {
 public:
  CallLink(Session& session, const InFlight& call) : session_(session), call_(call) {}

  airlock_status progress(double progress, double total, std::string_view message) override {
    if (call_.cancelled.load()) return AIRLOCK_STATUS_CANCELLED;
    // Held while sending, so two threads of one tool cannot put increasing
    // values on the wire in decreasing order.
    std::lock_guard lock(mutex_);
    if (last_progress_ && progress <= *last_progress_) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    last_progress_ = progress;
    if (!call_.progress_token) return AIRLOCK_STATUS_OK;
    boost::json::object params{{"progressToken", *call_.progress_token},
                               {"progress", session_detail::progress_number(progress)}};
    if (total > 0) params["total"] = session_detail::progress_number(total);
    if (!message.empty()) params["message"] = message;
    session_.send_(session_detail::notification("notifications/progress", params), Outbound{call_.key, false});
    return AIRLOCK_STATUS_OK;
  }

  airlock_status log(airlock_client_log_level level, std::string_view logger, std::string_view message) override {
    if (call_.cancelled.load()) return AIRLOCK_STATUS_CANCELLED;
    // A 2026-07-28 request hears logs only when its _meta asked for them.
    const int threshold = call_.scope ? call_.scope->log_level.value_or(kNoLogs) : session_.log_threshold_.load();
    if (level < threshold) return AIRLOCK_STATUS_OK;
    boost::json::object params{{"level", kLogLevels[static_cast<std::size_t>(level)]}};
    if (!logger.empty()) params["logger"] = logger;
    params["data"] = message;
    std::lock_guard lock(mutex_);
    session_.send_(session_detail::notification("notifications/message", params), Outbound{call_.key, false});
    return AIRLOCK_STATUS_OK;
  }

  Reply request(std::string_view method, std::string_view params_json, std::chrono::milliseconds timeout) override {
    if (call_.scope) return ask(std::nullopt, method, params_json);
    return session_.request_client(call_, method, params_json, timeout);
  }

  Reply request_keyed(std::string_view key, std::string_view method, std::string_view params_json,
                      std::chrono::milliseconds timeout) override {
    if (call_.scope) return ask(key, method, params_json);
    return session_.request_client(call_, method, params_json, timeout);
  }

  std::string_view client_capabilities() const noexcept override {
    return call_.scope ? std::string_view(call_.scope->client_capabilities_json)
                       : std::string_view(session_.client_capabilities_json_);
  }
  std::string_view request_meta() const noexcept override { return call_.meta(); }

  airlock_status start_task() override { return session_.start_task(call_); }

  void end_stream() override {
    if (session_.end_stream_) session_.end_stream_(call_.key);
  }

 private:
  static constexpr int kNoLogs = AIRLOCK_CLIENT_LOG_EMERGENCY + 1;

  // 2026-07-28: the answer is in this attempt's round, or the question is
  // recorded for the InputRequiredResult; never a request on the wire.
  Reply ask(std::optional<std::string_view> key, std::string_view method, std::string_view params_json) {
    if (call_.cancelled.load()) return {AIRLOCK_STATUS_CANCELLED, {}};
    if (!call_.round) return {AIRLOCK_STATUS_UNSUPPORTED, {}};
    auto asked = call_.round->ask(key, method, params_json);
    return {asked.status, std::move(asked.json)};
  }

  Session& session_;
  const InFlight& call_;
  std::mutex mutex_;  // guards last_progress_; held while this call's notifications are sent
  std::optional<double> last_progress_;
};

}  // namespace airlock::host
