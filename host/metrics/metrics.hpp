// The counters behind GET /metrics, and their Prometheus text exposition
// (format 0.0.4). Label sets are fixed when the server starts, so counting
// is an atomic increment: no lock, no allocation, from any thread.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host {

class Metrics {
 public:
  // The tools and sanitizers the server has; a name outside these is
  // counted under the label "(other)", which no tool or sanitizer can
  // carry. Duplicates are ignored.
  Metrics(std::vector<std::string> tools, std::vector<std::string> sanitizers,
          std::vector<std::string> plugins = {});
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // Every counter below is called by any thread, and never blocks.

  // One answered HTTP request. Methods outside GET, POST, DELETE, HEAD and
  // OPTIONS, and statuses outside the set this server sends, count as "other".
  void http_request(std::string_view method, unsigned status, std::chrono::nanoseconds latency);

  // One tools/call; `error` when the client got an error result (isError,
  // a timeout, or a result withheld).
  void tool_call(std::string_view tool, bool error);

  // A sanitizer withheld a result (it failed, timed out, or broke the result).
  void sanitizer_failure(std::string_view sanitizer);

  // One egress decision of a tool: a fetch allowed, or refused.
  void egress(std::string_view tool, bool allowed);

  // The audit trail wrote a record; or lost `n` to a full queue.
  void audit_record();
  void audit_dropped(std::uint64_t n);

  // Where airlock_plugin_restarts_total{plugin} is read from: the count
  // lives with each isolated plugin, which restarts its own worker. Set
  // once, before render() is called; unset, every plugin shows 0.
  using RestartCount = std::function<std::uint64_t(std::string_view plugin)>;
  void read_plugin_restarts(RestartCount count) { plugin_restart_count_ = std::move(count); }

  void session_opened();
  void session_closed();

  // The large request bodies HTTP holds now, in bytes, and the requests
  // waiting for room (transport/http/body_budget.hpp).
  void http_bodies(std::size_t held_bytes, std::size_t waiting);

  // Everything, in the text exposition format. HTTP series appear once they
  // have counted something; tool, sanitizer and plugin series are there
  // from the start, at 0. Values read while other threads count are each exact but
  // not a snapshot taken at one instant.
  std::string render() const;

  // Histogram bucket bounds of airlock_http_request_duration_seconds, as
  // they appear in the `le` label ("+Inf" follows them).
  static constexpr std::array<std::string_view, 14> kLatencyBuckets{
      "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05",
      "0.1",    "0.25",  "0.5",    "1",     "2.5",  "5",     "10"};
  static constexpr std::array<std::string_view, 6> kMethods{"GET",  "POST",    "DELETE",
                                                            "HEAD", "OPTIONS", "other"};
  static constexpr std::array<unsigned, 17> kStatuses{200, 202, 204, 400, 401, 403, 404, 405, 406,
                                                      408, 413, 415, 429, 431, 500, 503, 0};  // 0: other

 private:
  using Counter = std::atomic<std::uint64_t>;

  // A fixed label set, sorted for lookup by binary search; the last counter
  // of each family is "(other)".
  struct LabelSet {
    std::vector<std::string> names;    // sorted, unique
    std::vector<std::string> escaped;  // names[i] as a label value; then "(other)"
    std::size_t index(std::string_view name) const;
  };

  struct MethodSeries {
    std::array<Counter, kStatuses.size()> by_status{};
    std::array<Counter, kLatencyBuckets.size() + 1> buckets{};  // not cumulative; the last is +Inf
    Counter latency_sum_ns{0};
  };

  static LabelSet make_label_set(std::vector<std::string> names);
  void render_http(std::string& out) const;
  void render_family(std::string& out, std::string_view name, std::string_view help, std::string_view label,
                     const LabelSet& labels, const std::vector<Counter>& counters) const;

  std::array<MethodSeries, kMethods.size()> methods_{};
  LabelSet tools_;
  std::vector<Counter> tool_calls_;   // by tools_.index()
  std::vector<Counter> tool_errors_;  // by tools_.index()
  LabelSet sanitizers_;
  std::vector<Counter> sanitizer_failures_;  // by sanitizers_.index()
  std::vector<Counter> egress_allowed_;  // by tools_.index()
  std::vector<Counter> egress_denied_;   // by tools_.index()
  LabelSet plugins_;
  RestartCount plugin_restart_count_;
  Counter audit_records_{0};
  Counter audit_dropped_{0};
  std::atomic<std::int64_t> sessions_live_{0};
  Counter body_bytes_held_{0};
  Counter bodies_waiting_{0};
};

// `value` as a Prometheus label value: backslash, double quote and newline
// escaped, nothing else touched.
std::string escape_label_value(std::string_view value);

}  // namespace airlock::host
