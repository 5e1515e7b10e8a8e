// Tests for the counters behind GET /metrics: the exact exposition lines
// after known events, cumulative histogram buckets, label escaping, and the
// result pipeline counting a sanitizer that withheld a result.
#include "metrics/metrics.hpp"

#include "pipeline/result_pipeline.hpp"
#include "pipeline/sanitizer_chain.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace airlock::host {
namespace {

using namespace std::chrono_literals;
using testing::HasSubstr;
using testing::Not;

// The rendered lines, for matching whole lines rather than substrings.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

MATCHER_P(HasLine, line, "has the line " + testing::PrintToString(std::string(line))) {
  const auto lines = lines_of(arg);
  return std::find(lines.begin(), lines.end(), std::string(line)) != lines.end();
}

TEST(Metrics, RendersEveryFamilyWithHelpAndTypeBeforeAnyEvent) {
  const Metrics metrics({"echo", "acme.search"}, {"airlock.strip-control"});
  const std::string text = metrics.render();
  for (const auto& [name, type] : std::vector<std::pair<std::string, std::string>>{
           {"airlock_build_info", "gauge"},
           {"airlock_http_requests_total", "counter"},
           {"airlock_http_request_duration_seconds", "histogram"},
           {"airlock_tool_calls_total", "counter"},
           {"airlock_tool_errors_total", "counter"},
           {"airlock_sanitizer_failures_total", "counter"},
           {"airlock_egress_total", "counter"},
           {"airlock_plugin_restarts_total", "counter"},
           {"airlock_audit_records_total", "counter"},
           {"airlock_audit_dropped_total", "counter"},
           {"airlock_sessions_live", "gauge"},
           {"airlock_http_body_bytes_held", "gauge"},
           {"airlock_http_bodies_waiting", "gauge"}}) {
    EXPECT_THAT(text, HasLine("# TYPE " + name + " " + type));
    EXPECT_THAT(text, HasSubstr("# HELP " + name + " "));
  }
  EXPECT_THAT(text, HasLine("airlock_tool_calls_total{tool=\"acme.search\"} 0"));
  EXPECT_THAT(text, HasLine("airlock_tool_calls_total{tool=\"echo\"} 0"));
  EXPECT_THAT(text, HasLine("airlock_tool_errors_total{tool=\"echo\"} 0"));
  EXPECT_THAT(text, HasLine("airlock_sanitizer_failures_total{sanitizer=\"airlock.strip-control\"} 0"));
  EXPECT_THAT(text, HasLine("airlock_sessions_live 0"));
  EXPECT_THAT(text, Not(HasSubstr("airlock_http_requests_total{")));
  EXPECT_THAT(text, Not(HasSubstr("(other)")));
  EXPECT_EQ(text.back(), '\n');
}

TEST(Metrics, RendersExactlyTheseLinesAfterKnownEvents) {
  Metrics metrics({"echo"}, {"acme.redact"});
  metrics.http_request("POST", 200, 2ms);
  metrics.http_request("POST", 200, 30ms);
  metrics.http_request("POST", 202, 100us);
  metrics.http_request("GET", 404, 1s);
  metrics.tool_call("echo", false);
  metrics.tool_call("echo", true);
  metrics.sanitizer_failure("acme.redact");
  metrics.session_opened();
  metrics.session_opened();
  metrics.session_closed();
  metrics.http_bodies(100'000, 3);
  metrics.http_bodies(300'000, 2);  // a gauge: the last value told

  EXPECT_EQ(metrics.render(),
            "# HELP airlock_build_info The airlock version serving these metrics.\n"
            "# TYPE airlock_build_info gauge\n"
            "airlock_build_info{version=\"" AIRLOCK_TEST_VERSION "\"} 1\n"
            "# HELP airlock_http_requests_total HTTP requests answered, by method and status.\n"
            "# TYPE airlock_http_requests_total counter\n"
            "airlock_http_requests_total{method=\"GET\",status=\"404\"} 1\n"
            "airlock_http_requests_total{method=\"POST\",status=\"200\"} 2\n"
            "airlock_http_requests_total{method=\"POST\",status=\"202\"} 1\n"
            "# HELP airlock_http_request_duration_seconds Time from a request's arrival to its answer, by method.\n"
            "# TYPE airlock_http_request_duration_seconds histogram\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"0.0005\"} 0\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"0.001\"} 0\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"0.0025\"} 0\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"0.005\"} 0\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"0.01\"} 0\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"0.025\"} 0\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"0.05\"} 0\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"0.1\"} 0\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"0.25\"} 0\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"0.5\"} 0\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"1\"} 1\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"2.5\"} 1\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"5\"} 1\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"10\"} 1\n"
            "airlock_http_request_duration_seconds_bucket{method=\"GET\",le=\"+Inf\"} 1\n"
            "airlock_http_request_duration_seconds_sum{method=\"GET\"} 1\n"
            "airlock_http_request_duration_seconds_count{method=\"GET\"} 1\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"0.0005\"} 1\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"0.001\"} 1\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"0.0025\"} 2\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"0.005\"} 2\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"0.01\"} 2\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"0.025\"} 2\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"0.05\"} 3\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"0.1\"} 3\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"0.25\"} 3\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"0.5\"} 3\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"1\"} 3\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"2.5\"} 3\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"5\"} 3\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"10\"} 3\n"
            "airlock_http_request_duration_seconds_bucket{method=\"POST\",le=\"+Inf\"} 3\n"
            "airlock_http_request_duration_seconds_sum{method=\"POST\"} 0.0321\n"
            "airlock_http_request_duration_seconds_count{method=\"POST\"} 3\n"
            "# HELP airlock_tool_calls_total Tool calls, by tool.\n"
            "# TYPE airlock_tool_calls_total counter\n"
            "airlock_tool_calls_total{tool=\"echo\"} 2\n"
            "# HELP airlock_tool_errors_total Tool calls answered with an error result (isError, timeout or "
            "withheld), by tool.\n"
            "# TYPE airlock_tool_errors_total counter\n"
            "airlock_tool_errors_total{tool=\"echo\"} 1\n"
            "# HELP airlock_sanitizer_failures_total Results withheld because a sanitizer failed, by sanitizer.\n"
            "# TYPE airlock_sanitizer_failures_total counter\n"
            "airlock_sanitizer_failures_total{sanitizer=\"acme.redact\"} 1\n"
            "# HELP airlock_egress_total Egress decisions of tools' fetches, by tool and decision.\n"
            "# TYPE airlock_egress_total counter\n"
            "airlock_egress_total{tool=\"echo\",decision=\"allowed\"} 0\n"
            "airlock_egress_total{tool=\"echo\",decision=\"denied\"} 0\n"
            "# HELP airlock_plugin_restarts_total Isolated plugins' workers started again after they died, by "
            "plugin.\n"
            "# TYPE airlock_plugin_restarts_total counter\n"
            "# HELP airlock_audit_records_total Records the audit trail wrote.\n"
            "# TYPE airlock_audit_records_total counter\n"
            "airlock_audit_records_total 0\n"
            "# HELP airlock_audit_dropped_total Audit records lost to a full queue (each gap is itself recorded).\n"
            "# TYPE airlock_audit_dropped_total counter\n"
            "airlock_audit_dropped_total 0\n"
            "# HELP airlock_sessions_live MCP sessions open over HTTP.\n"
            "# TYPE airlock_sessions_live gauge\n"
            "airlock_sessions_live 1\n"
            "# HELP airlock_http_body_bytes_held Bytes of large request bodies held now "
            "(transport.http.max_body_bytes_in_flight).\n"
            "# TYPE airlock_http_body_bytes_held gauge\n"
            "airlock_http_body_bytes_held 300000\n"
            "# HELP airlock_http_bodies_waiting Requests whose large body waits, unread, for room.\n"
            "# TYPE airlock_http_bodies_waiting gauge\n"
            "airlock_http_bodies_waiting 2\n");
}

// The le="..." bucket values of one method's histogram, in order.
std::vector<std::uint64_t> buckets_of(const std::string& text, const std::string& method) {
  std::vector<std::uint64_t> counts;
  const std::string prefix = "airlock_http_request_duration_seconds_bucket{method=\"" + method + "\",le=\"";
  for (const auto& line : lines_of(text))
    if (line.starts_with(prefix)) counts.push_back(std::stoull(line.substr(line.rfind(' ') + 1)));
  return counts;
}

TEST(Metrics, CountsEgressByToolAndDecisionAuditRecordsAndReadsRestartsFromThePlugins) {
  Metrics metrics({"fetch"}, {}, {"acme.tools", "airlock.fetch"});
  metrics.egress("fetch", true);
  metrics.egress("fetch", false);
  metrics.egress("fetch", false);
  metrics.egress("ghost", true);
  metrics.audit_record();
  metrics.audit_record();
  metrics.audit_dropped(3);
  EXPECT_THAT(metrics.render(), HasLine("airlock_plugin_restarts_total{plugin=\"acme.tools\"} 0"))
      << "no reader yet: every plugin at 0";
  metrics.read_plugin_restarts([](std::string_view plugin) -> std::uint64_t { return plugin == "acme.tools" ? 7 : 0; });
  const std::string text = metrics.render();
  EXPECT_THAT(text, HasLine("airlock_egress_total{tool=\"fetch\",decision=\"allowed\"} 1"));
  EXPECT_THAT(text, HasLine("airlock_egress_total{tool=\"fetch\",decision=\"denied\"} 2"));
  EXPECT_THAT(text, HasLine("airlock_egress_total{tool=\"(other)\",decision=\"allowed\"} 1"));
  EXPECT_THAT(text, HasLine("airlock_audit_records_total 2"));
  EXPECT_THAT(text, HasLine("airlock_audit_dropped_total 3"));
  EXPECT_THAT(text, HasLine("airlock_plugin_restarts_total{plugin=\"acme.tools\"} 7"));
  EXPECT_THAT(text, HasLine("airlock_plugin_restarts_total{plugin=\"airlock.fetch\"} 0"));
}

TEST(Metrics, HistogramBucketsAreCumulativeAndEndInTheCount) {
  Metrics metrics({}, {});
  // One request in each bucket, bounds included (le is "less or equal"),
  // and one past the last bound.
  const std::vector<std::chrono::nanoseconds> latencies{
      0ns,   500us, 1ms,   2500us, 5ms,  10ms, 25ms, 50ms,
      100ms, 250ms, 500ms, 1s,     2500ms, 5s, 10s,  10s + 1ns};
  for (const auto latency : latencies) metrics.http_request("DELETE", 200, latency);
  const std::string text = metrics.render();

  const auto counts = buckets_of(text, "DELETE");
  ASSERT_EQ(counts.size(), Metrics::kLatencyBuckets.size() + 1);
  EXPECT_EQ(counts[0], 2u);  // 0 and exactly 0.0005
  for (std::size_t i = 1; i < counts.size(); ++i) {
    EXPECT_GE(counts[i], counts[i - 1]) << i;
    EXPECT_EQ(counts[i], i + 2) << i;
  }
  EXPECT_THAT(text, HasLine("airlock_http_request_duration_seconds_bucket{method=\"DELETE\",le=\"10\"} 15"));
  EXPECT_THAT(text, HasLine("airlock_http_request_duration_seconds_bucket{method=\"DELETE\",le=\"+Inf\"} 16"));
  EXPECT_THAT(text, HasLine("airlock_http_request_duration_seconds_count{method=\"DELETE\"} 16"));
}

TEST(Metrics, CountsUnknownMethodsAndStatusesAsOther) {
  Metrics metrics({}, {});
  metrics.http_request("PATCH", 200, 1ms);
  metrics.http_request("post", 200, 1ms);  // methods are case-sensitive
  metrics.http_request("GET", 418, 1ms);
  metrics.http_request("OPTIONS", 204, 1ms);
  const std::string text = metrics.render();
  EXPECT_THAT(text, HasLine("airlock_http_requests_total{method=\"other\",status=\"200\"} 2"));
  EXPECT_THAT(text, HasLine("airlock_http_requests_total{method=\"GET\",status=\"other\"} 1"));
  EXPECT_THAT(text, HasLine("airlock_http_requests_total{method=\"OPTIONS\",status=\"204\"} 1"));
  EXPECT_THAT(text, HasLine("airlock_http_request_duration_seconds_count{method=\"other\"} 2"));
}

TEST(Metrics, CountsEveryStatusTheTransportSends) {
  Metrics metrics({}, {});
  for (const unsigned status : {200u, 202u, 204u, 400u, 401u, 403u, 404u, 405u, 406u, 408u, 413u, 415u, 429u, 431u,
                                500u, 503u})
    metrics.http_request("POST", status, 1ms);
  const std::string text = metrics.render();
  for (const unsigned status : {200u, 202u, 204u, 400u, 401u, 403u, 404u, 405u, 406u, 408u, 413u, 415u, 429u, 431u,
                                500u, 503u})
    EXPECT_THAT(text, HasLine("airlock_http_requests_total{method=\"POST\",status=\"" + std::to_string(status) +
                              "\"} 1"));
  EXPECT_THAT(text, Not(HasSubstr("status=\"other\"")));
}

TEST(Metrics, CountsToolsAndSanitizersOutsideTheSetUnderOther) {
  Metrics metrics({"echo"}, {"acme.redact"});
  metrics.tool_call("late.tool", true);
  metrics.tool_call("other", false);  // a name, not the catch-all
  metrics.sanitizer_failure("a+b");
  const std::string text = metrics.render();
  EXPECT_THAT(text, HasLine("airlock_tool_calls_total{tool=\"(other)\"} 2"));
  EXPECT_THAT(text, HasLine("airlock_tool_errors_total{tool=\"(other)\"} 1"));
  EXPECT_THAT(text, HasLine("airlock_tool_calls_total{tool=\"echo\"} 0"));
  EXPECT_THAT(text, HasLine("airlock_sanitizer_failures_total{sanitizer=\"(other)\"} 1"));
}

TEST(Metrics, ListsEachToolOnceInNameOrder) {
  Metrics metrics({"b", "a", "b"}, {});
  metrics.tool_call("b", false);
  const auto lines = lines_of(metrics.render());
  std::vector<std::string> calls;
  for (const auto& line : lines)
    if (line.starts_with("airlock_tool_calls_total{")) calls.push_back(line);
  EXPECT_EQ(calls, (std::vector<std::string>{"airlock_tool_calls_total{tool=\"a\"} 0",
                                             "airlock_tool_calls_total{tool=\"b\"} 1"}));
}

TEST(Metrics, EscapesBackslashQuoteAndNewlineInLabelValues) {
  EXPECT_EQ(escape_label_value(R"(a\b"c)"), R"(a\\b\"c)");
  EXPECT_EQ(escape_label_value("line\nbreak"), "line\\nbreak");
  EXPECT_EQ(escape_label_value("tab\tstays, caf\xc3\xa9"), "tab\tstays, caf\xc3\xa9");

  Metrics metrics({"we\"ird\\to\nol"}, {});
  metrics.tool_call("we\"ird\\to\nol", false);
  EXPECT_THAT(metrics.render(), HasLine(R"(airlock_tool_calls_total{tool="we\"ird\\to\nol"} 1)"));
}

TEST(Metrics, TracksLiveSessions) {
  Metrics metrics({}, {});
  for (int i = 0; i < 5; ++i) metrics.session_opened();
  for (int i = 0; i < 3; ++i) metrics.session_closed();
  EXPECT_THAT(metrics.render(), HasLine("airlock_sessions_live 2"));
}

TEST(Metrics, LosesNoCountUnderConcurrentThreads) {
  Metrics metrics({"echo"}, {});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10'000; ++i) {
        metrics.http_request("POST", 200, 1ms);
        metrics.tool_call("echo", i % 2 == 0);
      }
    });
  for (auto& thread : threads) thread.join();
  const std::string text = metrics.render();
  EXPECT_THAT(text, HasLine("airlock_http_requests_total{method=\"POST\",status=\"200\"} 40000"));
  EXPECT_THAT(text, HasLine("airlock_http_request_duration_seconds_count{method=\"POST\"} 40000"));
  EXPECT_THAT(text, HasLine("airlock_http_request_duration_seconds_sum{method=\"POST\"} 40"));
  EXPECT_THAT(text, HasLine("airlock_tool_calls_total{tool=\"echo\"} 40000"));
  EXPECT_THAT(text, HasLine("airlock_tool_errors_total{tool=\"echo\"} 20000"));
}

// --- the result pipeline reports the sanitizer that withheld a result

airlock_status failing_step(void*, airlock_str, airlock_text_writer*) { return AIRLOCK_STATUS_INTERNAL; }
airlock_status passing_step(void*, airlock_str, airlock_text_writer*) { return AIRLOCK_STATUS_UNCHANGED; }

Sanitizer text_sanitizer(std::string name, airlock_on_text_fn on_text) {
  Sanitizer sanitizer;
  sanitizer.name = std::move(name);
  sanitizer.kind = SanitizerKind::text;
  sanitizer.on_text = on_text;
  return sanitizer;
}

ToolCallOutcome text_outcome(std::string_view text) {
  ToolCallOutcome outcome;
  outcome.status = AIRLOCK_STATUS_OK;
  outcome.output.content.push_back(boost::json::object{{"type", "text"}, {"text", text}});
  return outcome;
}

TEST(Metrics, CountsTheSanitizerThatWithheldAResult) {
  Metrics metrics({"t"}, {"acme.pass", "acme.fail"});
  Tool tool;
  tool.name = "t";
  const Sanitizer pass = text_sanitizer("acme.pass", passing_step);
  const Sanitizer fail = text_sanitizer("acme.fail", failing_step);
  const SanitizerChain chain("default", {&pass, &fail});
  const ToolRoute route{&tool, &chain, Mirror::text, std::nullopt};
  RequestContext context{"2025-11-25", "", "", "1"};
  context.metrics = &metrics;

  const auto result = boost::json::parse(run_result_pipeline(route, text_outcome("hi"), context, "{}"));
  EXPECT_EQ(result.at("content").at(0).at("text").as_string(), kWithheldText);

  const std::string text = metrics.render();
  EXPECT_THAT(text, HasLine("airlock_sanitizer_failures_total{sanitizer=\"acme.fail\"} 1"));
  EXPECT_THAT(text, HasLine("airlock_sanitizer_failures_total{sanitizer=\"acme.pass\"} 0"));
}

TEST(Metrics, CountsNothingWhenTheChainPassesOrNoMetricsAreGiven) {
  Metrics metrics({"t"}, {"acme.pass", "acme.fail"});
  Tool tool;
  tool.name = "t";
  const Sanitizer pass = text_sanitizer("acme.pass", passing_step);
  const Sanitizer fail = text_sanitizer("acme.fail", failing_step);
  const SanitizerChain passing("ok", {&pass});
  const SanitizerChain failing("bad", {&fail});
  RequestContext counted{"2025-11-25", "", "", "1"};
  counted.metrics = &metrics;
  const RequestContext uncounted{"2025-11-25", "", "", "1"};

  const auto passed = boost::json::parse(
      run_result_pipeline(ToolRoute{&tool, &passing, Mirror::text, std::nullopt}, text_outcome("hi"), counted, "{}"));
  EXPECT_EQ(passed.at("content").at(0).at("text").as_string(), "hi");
  run_result_pipeline(ToolRoute{&tool, &failing, Mirror::text, std::nullopt}, text_outcome("hi"), uncounted, "{}");

  EXPECT_THAT(metrics.render(), HasLine("airlock_sanitizer_failures_total{sanitizer=\"acme.fail\"} 0"));
}

}  // namespace
}  // namespace airlock::host
