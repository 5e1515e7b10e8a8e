// Counters for GET /metrics and their Prometheus text exposition.
#include "metrics/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#ifndef AIRLOCK_VERSION
#define AIRLOCK_VERSION "unknown"
#endif

namespace airlock::host {
namespace {

constexpr std::string_view kOtherLabel = "(other)";

// The bounds of kLatencyBuckets in nanoseconds, so placing a request is
// integer comparisons.
constexpr std::array<std::int64_t, Metrics::kLatencyBuckets.size()> kBucketBoundsNs{
    500'000,     1'000'000,   2'500'000,   5'000'000,     10'000'000,    25'000'000,    50'000'000,
    100'000'000, 250'000'000, 500'000'000, 1'000'000'000, 2'500'000'000, 5'000'000'000, 10'000'000'000};

std::size_t method_index(std::string_view method) {
  for (std::size_t i = 0; i + 1 < Metrics::kMethods.size(); ++i)
    if (Metrics::kMethods[i] == method) return i;
  return Metrics::kMethods.size() - 1;
}

std::size_t status_index(unsigned status) {
  for (std::size_t i = 0; i + 1 < Metrics::kStatuses.size(); ++i)
    if (Metrics::kStatuses[i] == status) return i;
  return Metrics::kStatuses.size() - 1;
}

void count(std::atomic<std::uint64_t>& counter, std::uint64_t by = 1) {
  counter.fetch_add(by, std::memory_order_relaxed);
}

std::uint64_t read(const std::atomic<std::uint64_t>& counter) { return counter.load(std::memory_order_relaxed); }

void header(std::string& out, std::string_view name, std::string_view help, std::string_view type) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

std::string escape_label_value(std::string_view value) {
  std::string escaped;
  escaped.reserve(value.size());
  for (const char c : value) {
    switch (c) {
      case '\\': escaped += "\\\\"; break;
      case '"': escaped += "\\\""; break;
      case '\n': escaped += "\\n"; break;
      default: escaped += c;
    }
  }
  return escaped;
}

Metrics::LabelSet Metrics::make_label_set(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  LabelSet set;
  for (const auto& name : names) set.escaped.push_back(escape_label_value(name));
  set.escaped.emplace_back(kOtherLabel);
  set.names = std::move(names);
  return set;
}

std::size_t Metrics::LabelSet::index(std::string_view name) const {
  const auto it = std::lower_bound(names.begin(), names.end(), name,
                                   [](const std::string& a, std::string_view b) { return a < b; });
  return it != names.end() && *it == name ? static_cast<std::size_t>(it - names.begin()) : names.size();
}

Metrics::Metrics(std::vector<std::string> tools, std::vector<std::string> sanitizers,
                 std::vector<std::string> plugins)
    : tools_(make_label_set(std::move(tools))),
      tool_calls_(tools_.escaped.size()),
      tool_errors_(tools_.escaped.size()),
      sanitizers_(make_label_set(std::move(sanitizers))),
      sanitizer_failures_(sanitizers_.escaped.size()),
      egress_allowed_(tools_.escaped.size()),
      egress_denied_(tools_.escaped.size()),
      plugins_(make_label_set(std::move(plugins))) {}

void Metrics::http_request(std::string_view method, unsigned status, std::chrono::nanoseconds latency) {
  MethodSeries& series = methods_[method_index(method)];
  count(series.by_status[status_index(status)]);
  const std::int64_t ns = std::max<std::int64_t>(0, latency.count());
  const auto bucket = std::lower_bound(kBucketBoundsNs.begin(), kBucketBoundsNs.end(), ns) - kBucketBoundsNs.begin();
  count(series.buckets[static_cast<std::size_t>(bucket)]);
  count(series.latency_sum_ns, static_cast<std::uint64_t>(ns));
}

void Metrics::tool_call(std::string_view tool, bool error) {
  const std::size_t i = tools_.index(tool);
  count(tool_calls_[i]);
  if (error) count(tool_errors_[i]);
}

void Metrics::sanitizer_failure(std::string_view sanitizer) {
  count(sanitizer_failures_[sanitizers_.index(sanitizer)]);
}

void Metrics::egress(std::string_view tool, bool allowed) {
  count((allowed ? egress_allowed_ : egress_denied_)[tools_.index(tool)]);
}

void Metrics::audit_record() { count(audit_records_); }

void Metrics::audit_dropped(std::uint64_t n) { count(audit_dropped_, n); }

void Metrics::session_opened() { sessions_live_.fetch_add(1, std::memory_order_relaxed); }

void Metrics::session_closed() { sessions_live_.fetch_sub(1, std::memory_order_relaxed); }

void Metrics::http_bodies(std::size_t held_bytes, std::size_t waiting) {
  body_bytes_held_.store(held_bytes, std::memory_order_relaxed);
  bodies_waiting_.store(waiting, std::memory_order_relaxed);
}

void Metrics::render_http(std::string& out) const {
  auto to = std::back_inserter(out);
  header(out, "airlock_http_requests_total", "HTTP requests answered, by method and status.", "counter");
  for (std::size_t m = 0; m < kMethods.size(); ++m) {
    for (std::size_t s = 0; s < kStatuses.size(); ++s) {
      const std::uint64_t n = read(methods_[m].by_status[s]);
      if (n == 0) continue;
      const std::string status = kStatuses[s] == 0 ? std::string("other") : std::to_string(kStatuses[s]);
      fmt::format_to(to, "airlock_http_requests_total{{method=\"{}\",status=\"{}\"}} {}\n", kMethods[m], status, n);
    }
  }

  header(out, "airlock_http_request_duration_seconds", "Time from a request's arrival to its answer, by method.",
         "histogram");
  for (std::size_t m = 0; m < kMethods.size(); ++m) {
    const MethodSeries& series = methods_[m];
    // Buckets are read once and summed here, so _count always equals the
    // +Inf bucket even while requests are being counted.
    std::array<std::uint64_t, kLatencyBuckets.size() + 1> counts{};
    for (std::size_t b = 0; b < counts.size(); ++b) counts[b] = read(series.buckets[b]);
    std::uint64_t total = 0;
    for (const auto n : counts) total += n;
    if (total == 0) continue;
    std::uint64_t cumulative = 0;
    for (std::size_t b = 0; b < counts.size(); ++b) {
      cumulative += counts[b];
      const std::string_view le = b < kLatencyBuckets.size() ? kLatencyBuckets[b] : "+Inf";
      fmt::format_to(to, "airlock_http_request_duration_seconds_bucket{{method=\"{}\",le=\"{}\"}} {}\n", kMethods[m],
                     le, cumulative);
    }
    fmt::format_to(to, "airlock_http_request_duration_seconds_sum{{method=\"{}\"}} {}\n", kMethods[m],
                   static_cast<double>(read(series.latency_sum_ns)) / 1e9);
    fmt::format_to(to, "airlock_http_request_duration_seconds_count{{method=\"{}\"}} {}\n", kMethods[m], total);
  }
}

void Metrics::render_family(std::string& out, std::string_view name, std::string_view help, std::string_view label,
                            const LabelSet& labels, const std::vector<Counter>& counters) const {
  header(out, name, help, "counter");
  for (std::size_t i = 0; i < counters.size(); ++i) {
    const std::uint64_t n = read(counters[i]);
    // "(other)" only appears once something outside the set was counted.
    if (i == labels.names.size() && n == 0) continue;
    fmt::format_to(std::back_inserter(out), "{}{{{}=\"{}\"}} {}\n", name, label, labels.escaped[i], n);
  }
}

std::string Metrics::render() const {
  std::string out;
  out.reserve(4096);
  header(out, "airlock_build_info", "The airlock version serving these metrics.", "gauge");
  fmt::format_to(std::back_inserter(out), "airlock_build_info{{version=\"{}\"}} 1\n",
                 escape_label_value(AIRLOCK_VERSION));
  render_http(out);
  render_family(out, "airlock_tool_calls_total", "Tool calls, by tool.", "tool", tools_, tool_calls_);
  render_family(out, "airlock_tool_errors_total",
                "Tool calls answered with an error result (isError, timeout or withheld), by tool.", "tool", tools_,
                tool_errors_);
  render_family(out, "airlock_sanitizer_failures_total", "Results withheld because a sanitizer failed, by sanitizer.",
                "sanitizer", sanitizers_, sanitizer_failures_);
  header(out, "airlock_egress_total", "Egress decisions of tools' fetches, by tool and decision.", "counter");
  for (std::size_t i = 0; i < egress_allowed_.size(); ++i) {
    for (const bool allowed : {true, false}) {
      const std::uint64_t n = read((allowed ? egress_allowed_ : egress_denied_)[i]);
      if (i == tools_.names.size() && n == 0) continue;
      fmt::format_to(std::back_inserter(out), "airlock_egress_total{{tool=\"{}\",decision=\"{}\"}} {}\n",
                     tools_.escaped[i], allowed ? "allowed" : "denied", n);
    }
  }
  header(out, "airlock_plugin_restarts_total", "Isolated plugins' workers started again after they died, by plugin.",
         "counter");
  for (std::size_t i = 0; i < plugins_.names.size(); ++i)
    fmt::format_to(std::back_inserter(out), "airlock_plugin_restarts_total{{plugin=\"{}\"}} {}\n", plugins_.escaped[i],
                   plugin_restart_count_ ? plugin_restart_count_(plugins_.names[i]) : 0);
  header(out, "airlock_audit_records_total", "Records the audit trail wrote.", "counter");
  fmt::format_to(std::back_inserter(out), "airlock_audit_records_total {}\n", read(audit_records_));
  header(out, "airlock_audit_dropped_total", "Audit records lost to a full queue (each gap is itself recorded).",
         "counter");
  fmt::format_to(std::back_inserter(out), "airlock_audit_dropped_total {}\n", read(audit_dropped_));
  header(out, "airlock_sessions_live", "MCP sessions open over HTTP.", "gauge");
  fmt::format_to(std::back_inserter(out), "airlock_sessions_live {}\n",
                 sessions_live_.load(std::memory_order_relaxed));
  header(out, "airlock_http_body_bytes_held",
         "Bytes of large request bodies held now (transport.http.max_body_bytes_in_flight).", "gauge");
  fmt::format_to(std::back_inserter(out), "airlock_http_body_bytes_held {}\n", read(body_bytes_held_));
  header(out, "airlock_http_bodies_waiting", "Requests whose large body waits, unread, for room.", "gauge");
  fmt::format_to(std::back_inserter(out), "airlock_http_bodies_waiting {}\n", read(bodies_waiting_));
  return out;
}

}  // namespace airlock::host
