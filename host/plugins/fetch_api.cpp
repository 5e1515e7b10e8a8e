// call_fetch: reads the plugin's request (by the size it was compiled with),
// hands it to the host's Fetcher under the acting tool's own egress policy,
// records every destination as provenance of the call and in the audit log,
// and lends the plugin the response until on_call returns.
#include "plugins/fetch_api.hpp"

#include "egress/fetcher.hpp"
#include "plugins/host_api.hpp"
#include "audit/audit_trail.hpp"
#include "metrics/metrics.hpp"
#include "util/sha256.hpp"

#include <fmt/format.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace airlock::host::fetch_api {
namespace {

// One line per destination, allowed or refused: who acted, where, under
// which rule. URLs are host-parsed ASCII, so they log as written.
spdlog::logger& audit_log() {
  static const std::shared_ptr<spdlog::logger> logger = make_plugin_logger("airlock.audit");
  return *logger;
}

void audit(std::string_view tool, const EgressRecord& record) {
  if (record.allowed) {
    audit_log().info("egress allowed tool={} url={} address={} rule=\"{}\" status={} bytes={}{}{}", tool,
                     record.url, record.address, record.rule, record.http_status, record.bytes,
                     record.truncated ? " truncated" : "", record.error.empty() ? "" : " error=\"" + record.error + "\"");
  } else {
    audit_log().warn("egress denied tool={} url={} reason=\"{}\"", tool, record.url, record.rule);
  }
}

// "scheme://host:port" of a hop: where it went, without the path and query
// that may carry a tool's arguments. Empty for a URL refused unread.
std::string destination_of(const EgressRecord& record) {
  if (record.host.empty()) return {};
  const auto scheme_end = record.url.find("://");
  const std::string_view scheme =
      scheme_end == std::string::npos ? std::string_view("") : std::string_view(record.url).substr(0, scheme_end);
  const bool v6 = record.host.find(':') != std::string::npos && !record.host.starts_with('[');
  return fmt::format("{}://{}{}{}:{}", scheme, v6 ? "[" : "", record.host, v6 ? "]" : "", record.port);
}

// The decision for the audit trail. The whole URL stays out of it (a digest
// stands for it), so a rule that quotes it has it replaced by the destination.
void audit_trail(std::string_view tool, const EgressRecord& record, const airlock_call& call) {
  if (!audit::enabled()) return;
  audit::Event event;
  event.kind = audit::Kind::egress;
  event.failed = !record.allowed;
  event.outcome = record.allowed ? "allowed" : "denied";
  event.subject = std::string(tool);
  event.destination = destination_of(record);
  event.address = record.address;
  std::string rule = record.rule;
  if (!record.url.empty())
    for (auto at = rule.find(record.url); at != std::string::npos; at = rule.find(record.url, at))
      rule.replace(at, record.url.size(), event.destination.empty() ? "(the url)" : event.destination);
  event.reason = std::move(rule);
  if (record.allowed) event.bytes = record.bytes;
  event.detail["url_sha256"] = sha256_hex(sha256(record.url));
  if (record.http_status) event.detail["http_status"] = record.http_status;
  if (record.truncated) event.detail["truncated"] = true;
  if (!record.error.empty()) event.detail["network_error"] = true;
  if (call.request) event.actor = *call.request;
  audit::record(std::move(event));
}

}  // namespace

airlock_status call_fetch(airlock_call* call, const airlock_fetch_request* request,
                          airlock_fetch_response* response) noexcept {
  if (!call || !request || !response || response->struct_size < sizeof(uint32_t))
    return AIRLOCK_STATUS_INVALID_ARGUMENT;
  try {
    const auto in = read_sized(request);
    FetchRequest wanted;
    if (!view(in.method).empty()) wanted.method = std::string(view(in.method));
    wanted.url = std::string(view(in.url));
    if (in.header_count > 0 && !in.headers) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    for (std::size_t i = 0; i < in.header_count; ++i)
      wanted.headers.emplace_back(std::string(view(in.headers[i].name)), std::string(view(in.headers[i].value)));
    wanted.body = std::string(view(in.body));
    wanted.follow_redirects = (in.flags & AIRLOCK_FETCH_FOLLOW_REDIRECTS) != 0;
    wanted.timeout = std::chrono::milliseconds(in.timeout_ms);
    wanted.max_response_bytes = in.max_response_bytes;
    wanted.actor = std::string(call->tool_name);

    FetchOutcome outcome;
    std::vector<EgressRecord> reached;
    if (!call->fetcher) {
      // `airlock check` and tests that drive a tool directly: no network at all.
      outcome.status = AIRLOCK_STATUS_DENIED;
      outcome.error = "egress denied: " + wanted.url + ": this host runs the tool without any network access";
    } else {
      static const EgressPolicy kNothing;
      outcome = call->fetcher->fetch(call->egress ? *call->egress : kNothing, wanted, call->cancelled, reached);
    }

    airlock_fetch_response out{};
    {
      std::lock_guard lock(call->fetch_mutex);
      for (auto& record : reached) {
        audit(call->tool_name, record);
        audit_trail(call->tool_name, record, *call);
        if (call->metrics) call->metrics->egress(call->tool_name, record.allowed);
        call->output.egress.push_back(std::move(record));
      }
      // Kept until on_call returns, where the plugin was told they are.
      auto& kept = call->fetched;
      out.final_url = borrow(kept.emplace_back(std::move(outcome.final_url)));
      out.content_type = borrow(kept.emplace_back(std::move(outcome.content_type)));
      out.body = borrow(kept.emplace_back(std::move(outcome.body)));
      out.error = borrow(kept.emplace_back(std::move(outcome.error)));
    }
    out.http_status = outcome.http_status;
    out.truncated = outcome.truncated ? 1 : 0;
    out.struct_size = response->struct_size;
    std::memcpy(response, &out, std::min<std::size_t>(response->struct_size, sizeof(out)));
    return outcome.status;
  } catch (...) {
    return AIRLOCK_STATUS_INTERNAL;
  }
}

}  // namespace airlock::host::fetch_api
