// Streamable HTTP, the protocol: each status code of the endpoint, JSON and
// SSE answers, protocol-version headers, /healthz and /metrics.
#include "http_integration.hpp"

#include <cctype>
#include <set>
#include <sstream>

namespace airlock::test {
namespace {

using testing::HasSubstr;
using testing::Not;
using testing::StartsWith;
namespace json = boost::json;

class HttpProtocol : public testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<HttpServerUnderTest>(http_config());
    ASSERT_TRUE(server_->server.ready()) << server_->server.stderr_text();
  }
  std::uint16_t port() const { return server_->port(); }
  // A client of a fresh, initialized session.
  McpHttpClient session() {
    McpHttpClient client(port());
    const McpReply init = client.initialize();
    EXPECT_EQ(200, init.http.status) << init.describe();
    EXPECT_FALSE(client.session_id().empty()) << init.describe();
    return client;
  }
  HttpResponse post(McpHttpClient& client, std::string body, HttpHeaders replace = {}) {
    HttpRequest request = client.post_request(std::move(body));
    for (const auto& [name, value] : replace) {
      std::erase_if(request.headers, [&name = name](const auto& f) { return f.first == name; });
      if (!value.empty()) request.headers.emplace_back(name, value);
    }
    return client.raw(request);
  }
  std::string stderr_text() const { return server_->server.stderr_text(); }

  std::unique_ptr<HttpServerUnderTest> server_;
};

TEST_F(HttpProtocol, HealthzAnswersOk) {
  const HttpResponse r = http_get(port(), "/healthz");
  EXPECT_EQ(200, r.status) << r.describe();
  EXPECT_EQ("ok\n", r.body);
}

TEST_F(HttpProtocol, OtherPathsAre404) {
  EXPECT_EQ(404, http_get(port(), "/").status);
  EXPECT_EQ(404, http_get(port(), "/mcp/extra").status);
  McpHttpClient client(port(), "/not-mcp");
  const McpReply init = client.initialize("2025-11-25", false);
  EXPECT_EQ(404, init.http.status) << init.describe();
}

TEST_F(HttpProtocol, InitializeCreatesASessionWithAVisibleAsciiIdOfAtLeast32Chars) {
  McpHttpClient client(port());
  const McpReply init = client.initialize();
  ASSERT_EQ(200, init.http.status) << init.describe();
  EXPECT_EQ("2025-11-25", string_at(init.response, "/result/protocolVersion")) << init.describe();
  EXPECT_EQ("http-test-server", string_at(init.response, "/result/serverInfo/name")) << init.describe();
  const std::string id = client.session_id();
  EXPECT_GE(id.size(), 32u) << id;
  for (const char c : id) EXPECT_TRUE(c >= 0x21 && c <= 0x7e) << "byte " << int(c) << " in session id " << id;
}

TEST_F(HttpProtocol, EveryInitializeGetsADifferentSessionId) {
  std::set<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    McpHttpClient client(port());
    ASSERT_EQ(200, client.initialize().http.status);
    ids.insert(client.session_id());
  }
  EXPECT_EQ(5u, ids.size());
}

TEST_F(HttpProtocol, WrongContentTypeIs415) {
  McpHttpClient client = session();
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded", ""}) {
    const HttpResponse r = post(client, R"({"jsonrpc":"2.0","id":7,"method":"ping"})", {{"Content-Type", type}});
    EXPECT_EQ(415, r.status) << "Content-Type: " << type << "\n" << r.describe();
  }
  // Parameters after the media type are fine.
  const HttpResponse ok =
      post(client, R"({"jsonrpc":"2.0","id":8,"method":"ping"})", {{"Content-Type", "application/json; charset=utf-8"}});
  EXPECT_EQ(200, ok.status) << ok.describe();
}

TEST_F(HttpProtocol, AcceptAllowingNeitherJsonNorEventStreamIs406) {
  McpHttpClient client = session();
  for (const char* accept : {"text/html", "image/png, text/plain"}) {
    const HttpResponse r = post(client, R"({"jsonrpc":"2.0","id":7,"method":"ping"})", {{"Accept", accept}});
    EXPECT_EQ(406, r.status) << "Accept: " << accept << "\n" << r.describe();
  }
}

TEST_F(HttpProtocol, MissingOrWildcardAcceptIsServed) {
  McpHttpClient client = session();
  for (const char* accept : {"", "*/*", "application/*"}) {
    const HttpResponse r = post(client, R"({"jsonrpc":"2.0","id":9,"method":"ping"})", {{"Accept", accept}});
    EXPECT_EQ(200, r.status) << "Accept: '" << accept << "'\n" << r.describe();
    EXPECT_THAT(r.body, HasSubstr(R"("id":9)")) << r.describe();
  }
}

TEST_F(HttpProtocol, BodyOverMaxMessageBytesIs413) {
  McpHttpClient client = session();
  const std::string big(70'000, 'x');
  const std::string body = R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"example.echo","arguments":{"text":")" +
                           big + R"("}}})";
  const HttpResponse r = post(client, body);
  EXPECT_EQ(413, r.status) << r.describe();
  // The session and the server are fine afterwards.
  EXPECT_EQ(200, client.call("ping").http.status);
}

// A body larger than the connection's idle read buffer is read in larger
// pieces once its header says how long it is; the buffer shrinks back after
// it. Large and small requests take turns on one connection, and every
// byte of each arrives.
TEST_F(HttpProtocol, LargeAndSmallBodiesTakeTurnsOnOneConnection) {
  McpHttpClient client = session();
  client.set_accept("application/json");
  for (int round = 0; round < 3; ++round) {
    std::string text(60'000, ' ');
    for (std::size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>('a' + (i * 7 + round) % 26);
    const McpReply reply = client.call_tool("example.echo", {{"text", text}});
    ASSERT_EQ(200, reply.http.status) << reply.describe().substr(0, 300);
    EXPECT_TRUE(first_text(reply) == text) << "round " << round << ": the echo differs";
    EXPECT_EQ(200, client.call("ping").http.status);
  }
}

TEST_F(HttpProtocol, MalformedJsonIs400WithParseError) {
  McpHttpClient client = session();
  for (const char* body : {"{not json", "[1,2", "\"unterminated"}) {
    const HttpResponse r = post(client, body);
    EXPECT_EQ(400, r.status) << body << "\n" << r.describe();
    EXPECT_EQ(-32700, error_code_of(r.body)) << body << "\n" << r.describe();
  }
}

TEST_F(HttpProtocol, DuplicateKeysAre400ParseErrorNotTheLastKeyServed) {
  McpHttpClient client = session();
  const HttpResponse r = post(client, R"({"jsonrpc":"2.0","id":7,"method":"tools/call","method":"ping"})");
  EXPECT_EQ(400, r.status) << r.describe();
  EXPECT_EQ(-32700, error_code_of(r.body)) << r.describe();
  EXPECT_THAT(r.body, HasSubstr(R"(duplicate key \"method\")")) << r.describe();
}

TEST_F(HttpProtocol, MalformedJsonWithoutSessionIsAlso400ParseError) {
  McpHttpClient client(port());
  const HttpResponse r = post(client, "{oops");
  EXPECT_EQ(400, r.status) << r.describe();
  EXPECT_EQ(-32700, error_code_of(r.body)) << r.describe();
}

TEST_F(HttpProtocol, RequestOtherThanInitializeWithoutSessionIs400) {
  McpHttpClient client = session();
  client.set_session_id("");
  for (const char* method : {"ping", "tools/list"}) {
    const McpReply reply = client.call(method);
    EXPECT_EQ(400, reply.http.status) << method << "\n" << reply.describe();
  }
  EXPECT_EQ(400, client.notify("notifications/initialized").status);
}

TEST_F(HttpProtocol, UnknownSessionIdIs404WithJsonRpcError) {
  McpHttpClient client = session();
  client.set_session_id(std::string(43, 'A'));
  const McpReply reply = client.call("ping");
  EXPECT_EQ(404, reply.http.status) << reply.describe();
  EXPECT_NE(0, error_code_of(reply.http.body)) << reply.describe();
}

TEST_F(HttpProtocol, NotificationsAndClientResponsesAre202WithEmptyBody) {
  McpHttpClient client = session();
  const HttpResponse notification = client.notify("notifications/cancelled", {{"requestId", 999}});
  EXPECT_EQ(202, notification.status) << notification.describe();
  EXPECT_EQ("", notification.body);
  const McpReply response = client.send(json::object{{"jsonrpc", "2.0"}, {"id", "s-1"}, {"result", json::object{}}});
  EXPECT_EQ(202, response.http.status) << response.describe();
  EXPECT_EQ("", response.http.body);
  const McpReply error = client.send(
      json::object{{"jsonrpc", "2.0"}, {"id", "s-2"}, {"error", {{"code", -32601}, {"message", "no"}}}});
  EXPECT_EQ(202, error.http.status) << error.describe();
  EXPECT_EQ("", error.http.body);
}

TEST_F(HttpProtocol, RequestAcceptingEventStreamGetsPrimingEventThenResponseThenEnd) {
  McpHttpClient client = session();
  const McpReply reply = client.call_tool("example.echo", {{"text", "over sse"}});
  ASSERT_EQ(200, reply.http.status) << reply.describe();
  EXPECT_THAT(reply.http.header_or_empty("content-type"), StartsWith("text/event-stream")) << reply.describe();
  ASSERT_GE(reply.events.size(), 2u) << reply.describe();
  // The priming event: an id, a retry, and empty data, in this wire form.
  const SseEvent& priming = reply.events.front();
  ASSERT_TRUE(priming.id.has_value()) << priming.raw;
  EXPECT_FALSE(priming.id->empty()) << priming.raw;
  EXPECT_TRUE(priming.retry.has_value()) << priming.raw;
  EXPECT_TRUE(priming.has_data && priming.data.empty()) << priming.raw;
  EXPECT_EQ("id: " + *priming.id + "\nretry: " + std::to_string(priming.retry.value_or(-1)) + "\ndata: \n\n",
            priming.raw);
  // Every message event has its own id.
  std::set<std::string> ids;
  for (const SseEvent& e : reply.events) {
    ASSERT_TRUE(e.id.has_value()) << e.raw;
    EXPECT_TRUE(ids.insert(*e.id).second) << "event id repeated: " << *e.id;
  }
  EXPECT_EQ("over sse", first_text(reply)) << reply.describe();
  EXPECT_TRUE(reply.stream_ended) << reply.describe();
  // The response is the last event.
  EXPECT_EQ(reply.response.line, reply.events.back().data);
}

TEST_F(HttpProtocol, RequestAcceptingOnlyJsonGetsJson) {
  McpHttpClient client = session();
  client.set_accept("application/json");
  const McpReply reply = client.call_tool("example.echo", {{"text", "as json"}});
  ASSERT_EQ(200, reply.http.status) << reply.describe();
  EXPECT_THAT(reply.http.header_or_empty("content-type"), StartsWith("application/json")) << reply.describe();
  EXPECT_EQ("as json", first_text(reply)) << reply.describe();
  EXPECT_EQ(1u, reply.messages.size()) << reply.describe();
}

TEST_F(HttpProtocol, RequestAcceptingOnlyEventStreamGetsEventStream) {
  McpHttpClient client = session();
  client.set_accept("text/event-stream");
  const McpReply reply = client.call_tool("example.echo", {{"text", "sse only"}});
  ASSERT_EQ(200, reply.http.status) << reply.describe();
  EXPECT_TRUE(reply.is_sse()) << reply.describe();
  EXPECT_EQ("sse only", first_text(reply)) << reply.describe();
  EXPECT_EQ(202, client.notify("notifications/cancelled", {{"requestId", 12345}}).status);
}

TEST(HttpResponseMode, JsonModeAnswersJsonEvenWhenEventStreamIsAccepted) {
  AIRLOCK_START_HTTP(s, http_config("response = \"json\"\n"));
  McpHttpClient client(s.port());
  ASSERT_EQ(200, client.initialize().http.status);
  const McpReply reply = client.call_tool("example.echo", {{"text", "json mode"}});
  ASSERT_EQ(200, reply.http.status) << reply.describe();
  EXPECT_THAT(reply.http.header_or_empty("content-type"), StartsWith("application/json")) << reply.describe();
  EXPECT_EQ("json mode", first_text(reply)) << reply.describe();
}

TEST_F(HttpProtocol, ProtocolVersionHeaderAcceptsEverySupportedVersionInAnySession) {
  McpHttpClient client = session();
  for (const char* version : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
    client.set_protocol_header(version);
    const McpReply reply = client.call("ping");
    EXPECT_EQ(200, reply.http.status) << version << "\n" << reply.describe();
    EXPECT_NE(nullptr, find(reply.response, "/result")) << reply.describe();
  }
  client.set_protocol_header("");
  EXPECT_EQ(200, client.call("ping").http.status) << "no MCP-Protocol-Version header";
}

TEST_F(HttpProtocol, UnsupportedProtocolVersionHeaderIs400) {
  McpHttpClient client = session();
  for (const char* version : {"1999-01-01", "2024-11-05x", "latest"}) {
    client.set_protocol_header(version);
    const McpReply reply = client.call("ping");
    EXPECT_EQ(400, reply.http.status) << version << "\n" << reply.describe();
  }
}

TEST_F(HttpProtocol, ListsAndCallsToolsOverHttp) {
  McpHttpClient client = session();
  const std::vector<std::string> names = tool_names(client);
  EXPECT_THAT(names, testing::Contains("example.echo"));
  EXPECT_THAT(names, testing::Contains("canary.slow"));
  const McpReply reply = client.call_tool("canary.slow", {{"ms", 10}});
  EXPECT_EQ("slept 10", first_text(reply)) << reply.describe();
  const McpReply unknown = client.call_tool("no.such.tool", {});
  EXPECT_EQ(200, unknown.http.status) << unknown.describe();
  EXPECT_TRUE(is_error(unknown.response) || is_tool_error(unknown.response)) << unknown.describe();
}

TEST_F(HttpProtocol, MetricsArePrometheusTextWithRequestsToolCallsAndSessions) {
  McpHttpClient client = session();
  ASSERT_EQ("counted", first_text(client.call_tool("example.echo", {{"text", "counted"}})));
  const HttpResponse r = http_get(port(), "/metrics");
  ASSERT_EQ(200, r.status) << r.describe();
  EXPECT_EQ("text/plain; version=0.0.4", r.header_or_empty("content-type").substr(0, 25)) << r.describe();
  EXPECT_THAT(r.body, HasSubstr("airlock_http_requests_total"));
  EXPECT_THAT(r.body, HasSubstr("airlock_tool_calls_total{"));
  EXPECT_THAT(r.body, HasSubstr("tool=\"example.echo\""));
  EXPECT_THAT(r.body, HasSubstr("airlock_sessions_live"));
  // Every sample line is "name{labels} value" or "name value".
  std::istringstream lines(r.body);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.front() == '#') continue;
    EXPECT_NE(std::string::npos, line.rfind(' ')) << line;
    EXPECT_THAT(line, testing::MatchesRegex("[a-zA-Z_:][a-zA-Z0-9_:]*(\\{.*\\})? [-+0-9.eEinfNaInf]+( [0-9]+)?"))
        << line;
  }
}

TEST_F(HttpProtocol, MetricsCountLiveSessions) {
  const auto live = [&] {
    const HttpResponse r = http_get(port(), "/metrics");
    std::istringstream lines(r.body);
    for (std::string line; std::getline(lines, line);)
      if (line.starts_with("airlock_sessions_live ")) return std::stod(line.substr(line.find(' ') + 1));
    ADD_FAILURE() << "no airlock_sessions_live sample:\n" << r.body;
    return -1.0;
  };
  const double before = live();
  McpHttpClient a = session();
  McpHttpClient b = session();
  EXPECT_EQ(before + 2, live());
  EXPECT_GE(a.end_session().status, 200);
  EXPECT_EQ(before + 1, live());
}

// HTTP/1.0 has no chunked coding (RFC 9112 section 6.1): a 1.0 client gets
// JSON with a Content-Length when it takes JSON, else an event stream whose
// end is the end of the connection.
struct RawAnswer {
  std::string head;  // status line and fields, up to the blank line
  std::string body;
};
RawAnswer http10_initialize(std::uint16_t port, std::string_view accept) {
  const std::string body = initialize_body();
  RawConnection raw(port);
  EXPECT_TRUE(raw.connected());
  raw.send("POST /mcp HTTP/1.0\r\nHost: 127.0.0.1:" + std::to_string(port) +
           "\r\nContent-Type: application/json\r\nAccept: " + std::string(accept) +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  const std::string answer = raw.read_until_close(5s);
  EXPECT_TRUE(raw.closed_by_peer(100ms)) << "the server kept a 1.0 connection open: " << answer;
  const auto blank = answer.find("\r\n\r\n");
  if (blank == std::string::npos) {
    ADD_FAILURE() << "no complete response head: " << answer;
    return {answer, {}};
  }
  return {answer.substr(0, blank + 2), answer.substr(blank + 4)};
}

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

TEST_F(HttpProtocol, Http10ClientThatTakesJsonGetsJsonWithAContentLength) {
  const RawAnswer answer = http10_initialize(port(), "application/json, text/event-stream");
  EXPECT_EQ(200, status_of_raw_response(answer.head)) << answer.head;
  const std::string head = lowercase(answer.head);
  EXPECT_THAT(head, Not(HasSubstr("transfer-encoding"))) << answer.head;
  EXPECT_THAT(head, HasSubstr("content-type: application/json")) << answer.head;
  EXPECT_THAT(head, HasSubstr("content-length: " + std::to_string(answer.body.size()) + "\r\n")) << answer.head;
  EXPECT_EQ("2025-11-25", string_at(parse_message(answer.body), "/result/protocolVersion")) << answer.body;
}

TEST_F(HttpProtocol, Http10ClientThatTakesOnlySseGetsAStreamEndedByClose) {
  const RawAnswer answer = http10_initialize(port(), "text/event-stream");
  EXPECT_EQ(200, status_of_raw_response(answer.head)) << answer.head;
  const std::string head = lowercase(answer.head);
  EXPECT_THAT(head, Not(HasSubstr("transfer-encoding"))) << answer.head;
  EXPECT_THAT(head, Not(HasSubstr("content-length"))) << answer.head;
  EXPECT_THAT(head, HasSubstr("content-type: text/event-stream")) << answer.head;
  EXPECT_THAT(head, HasSubstr("connection: close")) << answer.head;
  // The body is the events themselves, no chunk sizes between them.
  SseParser parser;
  parser.feed(answer.body);
  std::string result;
  while (const auto event = parser.take(true)) {
    if (event->has_data && !event->data.empty()) result = event->data;
  }
  EXPECT_EQ("2025-11-25", string_at(parse_message(result), "/result/protocolVersion")) << answer.body;
}

}  // namespace
}  // namespace airlock::test
