// The HTTP front alone: what a request passes before MCP sees it, in its
// order, each refusal with its status, its words and its headers. Driven as
// a Connection drives it, through an Exchange that records the answer.
#include "transport/http/http_front.hpp"

#include "http_test_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace airlock::host::http {
namespace {

namespace beast_http = boost::beast::http;
using testing::HasSubstr;
using testing::Not;
using unit::RecordingExchange;
using unit::request;

constexpr std::string_view kPing = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";

RecordingExchange serve(unit::HttpTestServer& server, Request request) {
  RecordingExchange exchange;
  HttpFront(server.context()).serve(request, exchange);
  EXPECT_EQ(exchange.answers, 1) << "every request gets exactly one answer";
  return exchange;
}

TEST(HttpFront, ARepeatedSingletonFieldIsRefusedBeforeAnythingReadsItAndTheConnectionCloses) {
  unit::HttpTestServer server;
  auto r = request(beast_http::verb::post, "/mcp", std::string(kPing));
  r.insert(beast_http::field::host, "evil.example");
  const auto answer = serve(server, std::move(r));
  EXPECT_EQ(answer.status(), 400u);
  EXPECT_THAT(answer.body(), HasSubstr("duplicate Host header"));
  EXPECT_TRUE(answer.closes);
  // Names in any case; each singleton counted, not only the first.
  auto twice = request(beast_http::verb::post, "/mcp", std::string(kPing));
  twice.insert("mcp-session-id", "a");
  twice.insert("MCP-SESSION-ID", "b");
  const auto session = serve(server, std::move(twice));
  EXPECT_EQ(session.status(), 400u);
  EXPECT_THAT(session.body(), HasSubstr("duplicate Mcp-Session-Id header"));
  auto once_each = request(beast_http::verb::post, "/mcp", std::string(kPing));
  once_each.insert("Mcp-Session-Id", "a");
  once_each.insert("Last-Event-ID", "3");
  EXPECT_THAT(serve(server, std::move(once_each)).body(), Not(HasSubstr("duplicate")));
}

TEST(HttpFront, AHostOrOriginOutsideThePolicyIsRefusedWith403) {
  unit::HttpTestServer server;
  auto rebound = request(beast_http::verb::get, "/healthz");
  rebound.set(beast_http::field::host, "attacker.example");
  const auto host = serve(server, std::move(rebound));
  EXPECT_EQ(host.status(), 403u);
  EXPECT_THAT(host.body(), HasSubstr("Invalid Host: attacker.example"));

  auto page = request(beast_http::verb::get, "/healthz");
  page.set(beast_http::field::origin, "https://attacker.example");
  const auto origin = serve(server, std::move(page));
  EXPECT_EQ(origin.status(), 403u);
  EXPECT_THAT(origin.body(), HasSubstr("Invalid Origin"));
}

TEST(HttpFront, HealthNeedsNoTokenAndSaysWhenTheServerDrains) {
  unit::HttpTestServer server({.tokens = {unit::token_for("alice", "s3cret")}});
  const auto ok = serve(server, request(beast_http::verb::get, "/healthz"));
  EXPECT_EQ(ok.status(), 200u);
  EXPECT_EQ(ok.body(), "ok\n");
  EXPECT_EQ(serve(server, request(beast_http::verb::post, "/healthz")).status(), 405u);
  server.context()->draining = true;
  EXPECT_EQ(serve(server, request(beast_http::verb::get, "/healthz")).body(), "draining\n");
}

TEST(HttpFront, APathThatIsNeitherMcpNorMetricsIsNotFound) {
  unit::HttpTestServer server;
  EXPECT_EQ(serve(server, request(beast_http::verb::get, "/elsewhere")).status(), 404u);
  // The query is not part of the path.
  EXPECT_EQ(serve(server, request(beast_http::verb::get, "/healthz?x=1")).status(), 200u);
}

TEST(HttpFront, WithTokensARequestWithoutAValidOneGets401AndAChallenge) {
  unit::HttpTestServer server({.tokens = {unit::token_for("alice", "s3cret")}});
  const auto missing = serve(server, request(beast_http::verb::post, "/mcp", std::string(kPing)));
  EXPECT_EQ(missing.status(), 401u);
  EXPECT_THAT(missing.body(), HasSubstr("a bearer token is required"));
  EXPECT_EQ(missing.field(beast_http::field::www_authenticate), R"(Bearer realm="airlock")");

  auto wrong = request(beast_http::verb::post, "/mcp", std::string(kPing));
  wrong.set(beast_http::field::authorization, "Bearer nope");
  const auto invalid = serve(server, std::move(wrong));
  EXPECT_EQ(invalid.status(), 401u);
  EXPECT_THAT(invalid.field(beast_http::field::www_authenticate), HasSubstr(R"(error="invalid_token")"));

  // The right token reaches the MCP endpoint (which wants a session here).
  auto good = request(beast_http::verb::get, "/mcp");
  good.set(beast_http::field::authorization, "Bearer s3cret");
  good.set(beast_http::field::accept, "text/event-stream");
  auto passed = serve(server, std::move(good));
  EXPECT_EQ(passed.status(), 400u);
  EXPECT_THAT(passed.body(), HasSubstr("Mcp-Session-Id header is required"));
  EXPECT_EQ(passed.record().identity, "alice");
}

TEST(HttpFront, OverTheRateLimitACallerGets429WithRetryAfter) {
  unit::HttpTestServer server({.rate = 0.001, .burst = 1});
  EXPECT_EQ(serve(server, request(beast_http::verb::get, "/metrics")).status(), 200u);
  const auto limited = serve(server, request(beast_http::verb::get, "/metrics"));
  EXPECT_EQ(limited.status(), 429u);
  EXPECT_THAT(limited.body(), HasSubstr("transport.http.rate_limit"));
  EXPECT_GE(std::stoi(limited.field(beast_http::field::retry_after)), 1);
}

TEST(HttpFront, MetricsAnswerGetOnlyAndAreTextForPrometheus) {
  unit::HttpTestServer server;
  const auto metrics = serve(server, request(beast_http::verb::get, "/metrics"));
  EXPECT_EQ(metrics.status(), 200u);
  EXPECT_THAT(metrics.field(beast_http::field::content_type), HasSubstr("text/plain; version=0.0.4"));
  EXPECT_EQ(serve(server, request(beast_http::verb::delete_, "/metrics")).status(), 405u);
}

TEST(HttpFront, WhileDrainingTheMcpPathAnswers503AndCloses) {
  unit::HttpTestServer server;
  server.context()->draining = true;
  const auto answer = serve(server, request(beast_http::verb::post, "/mcp", std::string(kPing)));
  EXPECT_EQ(answer.status(), 503u);
  EXPECT_THAT(answer.body(), HasSubstr("shutting down"));
  EXPECT_TRUE(answer.closes);
}

}  // namespace
}  // namespace airlock::host::http
