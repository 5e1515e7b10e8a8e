// The MCP endpoint alone: what POST, GET and DELETE on the MCP path mean
// once the front let them through. Driven through an Exchange that records
// the answer, over the real session table and the canary tools.
#include "transport/http/mcp_endpoint.hpp"

#include "http_test_support.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace airlock::host::http {
namespace {

namespace beast_http = boost::beast::http;
using testing::HasSubstr;
using unit::RecordingExchange;
using unit::request;

constexpr std::string_view kInitialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},)"
    R"("clientInfo":{"name":"t","version":"1"}}})";

RecordingExchange serve(unit::HttpTestServer& server, Request request) {
  RecordingExchange exchange;
  serve_mcp(*server.context(), request, exchange, McpCaller{});
  EXPECT_EQ(exchange.answers, 1) << "every request gets exactly one answer";
  return exchange;
}

Request post(std::string body, std::string_view session = {}) {
  auto r = request(beast_http::verb::post, "/mcp", std::move(body));
  if (!session.empty()) r.set("Mcp-Session-Id", session);
  return r;
}

// The body of the one event an answered SSE stream holds.
boost::json::object event_data(const std::string& events) {
  const auto at = events.rfind("data: ");
  if (at == std::string::npos) return {};
  return boost::json::parse(events.substr(at + 6, events.find('\n', at) - at - 6)).as_object();
}

TEST(McpEndpoint, ABodyThatIsNotJsonOrNotAcceptableIsRefusedWithItsStatus) {
  unit::HttpTestServer server;
  auto text = post(std::string(kInitialize));
  text.set(beast_http::field::content_type, "text/plain");
  EXPECT_EQ(serve(server, std::move(text)).status(), 415u);

  auto images = post(std::string(kInitialize));
  images.set(beast_http::field::accept, "image/png");
  EXPECT_EQ(serve(server, std::move(images)).status(), 406u);

  const auto broken = serve(server, post("{not json"));
  EXPECT_EQ(broken.status(), 400u);
  EXPECT_EQ(boost::json::parse(broken.body()).at("error").at("code"), -32700);
}

TEST(McpEndpoint, InitializeOpensASessionAndAnnouncesItsId) {
  unit::HttpTestServer server;
  const auto opened = serve(server, post(std::string(kInitialize)));
  ASSERT_FALSE(opened.announced.empty());
  const auto answer = event_data(opened.events);
  EXPECT_EQ(answer.at("id"), 1);
  EXPECT_EQ(answer.at("result").at("protocolVersion"), "2025-11-25");
  EXPECT_NE(server.sessions().find(opened.announced, ""), nullptr);

  // The session's next request, answered as JSON when the client asks only for it.
  auto list = post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", opened.announced);
  list.set(beast_http::field::accept, "application/json");
  const auto listed = serve(server, std::move(list));
  EXPECT_THAT(listed.json, HasSubstr("canary.echo"));
}

TEST(McpEndpoint, ARefusedInitializeLeavesNoSessionBehind) {
  unit::HttpTestServer server;
  const auto refused = serve(server, post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})"));
  EXPECT_TRUE(refused.announced.empty());
  EXPECT_EQ(event_data(refused.events).at("error").at("code"), -32602);
}

TEST(McpEndpoint, ASessionRequestNeedsAKnownSessionId) {
  unit::HttpTestServer server;
  const auto without = serve(server, post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"));
  EXPECT_EQ(without.status(), 400u);
  EXPECT_THAT(without.body(), HasSubstr("Mcp-Session-Id header is required"));
  const auto unknown = serve(server, post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", "nope"));
  EXPECT_EQ(unknown.status(), 404u);
  EXPECT_EQ(boost::json::parse(unknown.body()).at("error").at("code"), kSessionNotFound);
}

TEST(McpEndpoint, A2026RequestIsServedOnItsOwnAfterItsAdmission) {
  unit::HttpTestServer server;
  const std::string body =
      R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{)"
      R"("io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})";
  auto missing_headers = post(body);
  const auto refused = serve(server, std::move(missing_headers));
  EXPECT_EQ(refused.status(), 400u);
  EXPECT_THAT(refused.body(), HasSubstr("MCP-Protocol-Version header is missing"));

  auto admitted = post(body);
  admitted.set("MCP-Protocol-Version", "2026-07-28");
  admitted.set("Mcp-Method", "tools/list");
  admitted.set(beast_http::field::accept, "application/json");
  const auto served = serve(server, std::move(admitted));
  EXPECT_TRUE(served.announced.empty()) << "no session for a 2026-07-28 request";
  const auto answer = boost::json::parse(served.json).as_object();
  EXPECT_EQ(answer.at("result").at("resultType"), "complete");
}

TEST(McpEndpoint, AnUnsupportedProtocolHeaderInASessionIs400) {
  unit::HttpTestServer server;
  const auto opened = serve(server, post(std::string(kInitialize)));
  auto r = post(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", opened.announced);
  r.set("MCP-Protocol-Version", "2024-01-01");
  const auto answer = serve(server, std::move(r));
  EXPECT_EQ(answer.status(), 400u);
  EXPECT_THAT(answer.body(), HasSubstr("unsupported MCP-Protocol-Version: 2024-01-01"));
}

TEST(McpEndpoint, NotificationsAreAcceptedWith202) {
  unit::HttpTestServer server;
  const auto opened = serve(server, post(std::string(kInitialize)));
  const auto accepted =
      serve(server, post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", opened.announced));
  EXPECT_EQ(accepted.status(), 202u);
}

TEST(McpEndpoint, DeleteEndsTheSessionOnce) {
  unit::HttpTestServer server;
  const auto opened = serve(server, post(std::string(kInitialize)));
  auto end = request(beast_http::verb::delete_, "/mcp");
  end.set("Mcp-Session-Id", opened.announced);
  EXPECT_EQ(serve(server, end).status(), 204u);
  EXPECT_EQ(server.sessions().find(opened.announced, ""), nullptr);
  EXPECT_EQ(serve(server, end).status(), 404u);
}

TEST(McpEndpoint, GetNeedsTheEventStreamAndResumesOnlyAStreamTheSessionKeeps) {
  unit::HttpTestServer server;
  const auto opened = serve(server, post(std::string(kInitialize)));
  auto json_only = request(beast_http::verb::get, "/mcp");
  json_only.set("Mcp-Session-Id", opened.announced);
  json_only.set(beast_http::field::accept, "application/json");
  EXPECT_EQ(serve(server, json_only).status(), 406u);

  auto resume = request(beast_http::verb::get, "/mcp");
  resume.set("Mcp-Session-Id", opened.announced);
  resume.set(beast_http::field::accept, "text/event-stream");
  resume.set("Last-Event-ID", "99-1");
  EXPECT_EQ(serve(server, resume).status(), 404u);
  resume.set("Last-Event-ID", "garbage");
  EXPECT_EQ(serve(server, resume).status(), 400u);
}

TEST(McpEndpoint, OtherMethodsAreNotAllowedAndSayWhichAre) {
  unit::HttpTestServer server;
  const auto answer = serve(server, request(beast_http::verb::put, "/mcp"));
  EXPECT_EQ(answer.status(), 405u);
  EXPECT_EQ(answer.field(beast_http::field::allow), "GET, POST, DELETE");
}

}  // namespace
}  // namespace airlock::host::http
