// Streamable HTTP security: Host and Origin allow-lists (DNS rebinding),
// bearer tokens and their tool scopes, sessions bound to their identity,
// and the refusal to serve a non-loopback address without authentication.
#include "http_integration.hpp"


#include <fstream>

namespace airlock::test {
namespace {

using testing::HasSubstr;
using testing::Not;
using testing::StartsWith;
namespace json = boost::json;


// ---------------------------------------------------------------------------
// Host and Origin

class HttpHostOrigin : public testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<HttpServerUnderTest>(http_config());
    ASSERT_TRUE(server_->server.ready()) << server_->server.stderr_text();
  }
  std::string port_text() const { return std::to_string(server_->port()); }
  // A fresh initialize with these Host and Origin fields ("" leaves Origin out).
  HttpResponse initialize_with(const std::string& host, const std::string& origin) {
    McpHttpClient client(server_->port());
    HttpRequest request = client.post_request(initialize_body());
    request.headers.emplace_back("Host", host);
    if (!origin.empty()) request.headers.emplace_back("Origin", origin);
    return client.raw(request);
  }
  std::unique_ptr<HttpServerUnderTest> server_;
};

TEST_F(HttpHostOrigin, ForeignHostAndOriginAre403WithJsonRpcError) {
  const HttpResponse r = initialize_with("evil.example.com", "http://evil.example.com");
  EXPECT_EQ(403, r.status) << r.describe();
  EXPECT_NE(0, error_code_of(r.body)) << "403 without a JSON-RPC error body: " << r.describe();
  EXPECT_FALSE(r.header("mcp-session-id")) << "a rejected initialize created a session: " << r.describe();
}

TEST_F(HttpHostOrigin, ForeignHostAloneIs403) {
  const HttpResponse r = initialize_with("evil.example.com:" + port_text(), "");
  EXPECT_EQ(403, r.status) << r.describe();
}

TEST_F(HttpHostOrigin, ForeignOriginWithLocalHostIs403) {
  const HttpResponse r = initialize_with("127.0.0.1:" + port_text(), "http://evil.example.com");
  EXPECT_EQ(403, r.status) << r.describe();
  const HttpResponse null_origin = initialize_with("127.0.0.1:" + port_text(), "null");
  EXPECT_EQ(403, null_origin.status) << null_origin.describe();
}

TEST_F(HttpHostOrigin, LoopbackNamesOnAnyPortAreServed) {
  const std::string port = port_text();
  for (const auto& [host, origin] : std::vector<std::pair<std::string, std::string>>{
           {"localhost:" + port, "http://localhost:" + port},
           {"127.0.0.1:" + port, "http://127.0.0.1:" + port},
           {"[::1]:" + port, "http://[::1]:" + port},
           {"localhost", ""},
           {"LOCALHOST:" + port, ""},
           {"127.0.0.1:9", "http://localhost:3000"}}) {
    const HttpResponse r = initialize_with(host, origin);
    EXPECT_EQ(200, r.status) << "Host: " << host << ", Origin: " << origin << "\n" << r.describe();
    EXPECT_TRUE(r.header("mcp-session-id")) << host;
  }
}

TEST_F(HttpHostOrigin, RejectionAppliesToEveryMethodAndPath) {
  const HttpHeaders evil{{"Host", "evil.example.com"}};
  EXPECT_EQ(403, http_get(server_->port(), "/mcp", evil).status);
  EXPECT_EQ(403, http_get(server_->port(), "/metrics", evil).status);
  HttpConnection connection(server_->port());
  const HttpResponse del = connection.request({.method = "DELETE", .target = "/mcp", .headers = evil, .body = {}});
  EXPECT_EQ(403, del.status) << del.describe();
}

TEST(HttpAllowLists, ConfiguredHostsAndOriginsReplaceTheLoopbackDefaults) {
  AIRLOCK_START_HTTP(s, http_config("allowed_hosts = [\"mcp.internal\", \"other.internal:8443\"]\n"
                                    "allowed_origins = [\"https://app.example:8080\"]\n"));
  McpHttpClient client(s.port());
  const auto initialize_with = [&](const std::string& host, const std::string& origin) {
    HttpRequest request = client.post_request(initialize_body());
    request.headers.emplace_back("Host", host);
    if (!origin.empty()) request.headers.emplace_back("Origin", origin);
    return client.raw(request).status;
  };
  EXPECT_EQ(200, initialize_with("mcp.internal", ""));
  EXPECT_EQ(200, initialize_with("mcp.internal:" + std::to_string(s.port()), ""));
  EXPECT_EQ(200, initialize_with("other.internal:8443", "https://app.example:8080"));
  EXPECT_EQ(403, initialize_with("other.internal:8444", ""));
  EXPECT_EQ(403, initialize_with("mcp.internal", "https://app.example:9090"));
  EXPECT_EQ(403, initialize_with("mcp.internal", "http://app.example:8080"));
  EXPECT_EQ(403, initialize_with("localhost:" + std::to_string(s.port()), ""));
}

// ---------------------------------------------------------------------------
// Bearer tokens

constexpr std::string_view kAliceToken = "alice-token-0123456789abcdef";
constexpr std::string_view kBobToken = "bob-token-fedcba9876543210";
constexpr std::string_view kCarolToken = "carol-token-from-a-file";

class HttpAuth : public testing::Test {
 protected:
  void SetUp() override {
    config_ = std::make_unique<TempConfig>("");
    const std::filesystem::path token_file = config_->dir() / "carol.token";
    std::ofstream(token_file) << kCarolToken << "\n";
    config_->write(http_config(
        "", "[[transport.http.tokens]]\nidentity = \"alice\"\nsha256 = \"" + sha256_hex(kAliceToken) +
                "\"\ntools = [\"example.*\"]\n\n"
                "[[transport.http.tokens]]\nidentity = \"bob\"\nsha256 = \"" + sha256_hex(kBobToken) +
                "\"\n\n"
                "[[transport.http.tokens]]\nidentity = \"carol\"\nfile = " + toml_string(token_file.string()) +
                "\ntools = [\"canary.sl*\", \"example.echo\"]\n"));
    server_ = std::make_unique<AirlockHttpServer>(config_->path());
    ASSERT_TRUE(server_->ready()) << server_->stderr_text();
  }
  std::uint16_t port() const { return server_->port(); }
  McpHttpClient as(std::string_view token) {
    McpHttpClient client(port());
    client.set_bearer(std::string(token));
    return client;
  }
  void expect_401(const HttpResponse& r, std::string_view what) {
    EXPECT_EQ(401, r.status) << what << "\n" << r.describe();
    EXPECT_THAT(r.header_or_empty("www-authenticate"), StartsWith("Bearer")) << what << "\n" << r.describe();
  }

  std::unique_ptr<TempConfig> config_;
  std::unique_ptr<AirlockHttpServer> server_;
};

TEST_F(HttpAuth, MissingMalformedOrUnknownTokenIs401WithBearerChallenge) {
  McpHttpClient none(port());
  expect_401(none.initialize().http, "no Authorization");
  for (const std::string& value : {std::string("Basic YWxpY2U6eA=="), std::string("Bearer"), std::string("Bearer "),
                                   std::string("Bearer wrong-token"), "bearer-" + std::string(kAliceToken),
                                   "Bearer " + std::string(kAliceToken) + "x"}) {
    McpHttpClient client(port());
    client.set_header("Authorization", value);
    expect_401(client.initialize().http, "Authorization: " + value);
  }
}

TEST_F(HttpAuth, AValidTokenOpensASession) {
  for (const std::string_view token : {kAliceToken, kBobToken, kCarolToken}) {
    McpHttpClient client = as(token);
    const McpReply init = client.initialize();
    EXPECT_EQ(200, init.http.status) << token << "\n" << init.describe();
    EXPECT_EQ(200, client.call("ping").http.status) << token;
  }
}

TEST_F(HttpAuth, TheSchemeNameIsCaseInsensitive) {
  McpHttpClient client(port());
  client.set_header("Authorization", "bearer " + std::string(kBobToken));
  EXPECT_EQ(200, client.initialize().http.status);
}

TEST_F(HttpAuth, EveryRequestOfASessionNeedsTheToken) {
  McpHttpClient client = as(kBobToken);
  ASSERT_EQ(200, client.initialize().http.status);
  client.set_bearer("");
  expect_401(client.call("ping").http, "a session request without the token");
  expect_401(client.get_stream().response(), "GET without the token");
  expect_401(client.end_session(), "DELETE without the token");
  client.set_bearer(std::string(kBobToken));
  EXPECT_EQ(200, client.call("ping").http.status) << "the session survived the unauthenticated attempts";
}

TEST_F(HttpAuth, AScopedTokenListsOnlyItsTools) {
  McpHttpClient alice = as(kAliceToken);
  ASSERT_EQ(200, alice.initialize().http.status);
  const std::vector<std::string> names = tool_names(alice);
  EXPECT_THAT(names, testing::Contains("example.echo"));
  for (const std::string& name : names) EXPECT_THAT(name, StartsWith("example.")) << "outside alice's scope";

  McpHttpClient carol = as(kCarolToken);
  ASSERT_EQ(200, carol.initialize().http.status);
  const std::vector<std::string> carol_names = tool_names(carol);
  EXPECT_THAT(carol_names, testing::UnorderedElementsAre("canary.slow", "example.echo"));

  McpHttpClient bob = as(kBobToken);
  ASSERT_EQ(200, bob.initialize().http.status);
  const std::vector<std::string> all = tool_names(bob);
  EXPECT_THAT(all, testing::Contains("canary.echo")) << "an unscoped token sees every tool";
  EXPECT_THAT(all, testing::Contains("example.echo"));
}

TEST_F(HttpAuth, AToolOutsideTheScopeFailsExactlyLikeAnUnknownTool) {
  McpHttpClient alice = as(kAliceToken);
  ASSERT_EQ(200, alice.initialize().http.status);
  EXPECT_EQ("in scope", first_text(alice.call_tool("example.echo", {{"text", "in scope"}})));

  const McpReply hidden = alice.call_tool("canary.echo", {{"text", "x"}});
  const McpReply unknown = alice.call_tool("canary.nonexistent", {{"text", "x"}});
  EXPECT_THAT(hidden.response.line, Not(HasSubstr(std::string(kCanary)))) << "the hidden tool ran";
  EXPECT_TRUE(is_error(hidden.response) || is_tool_error(hidden.response)) << hidden.describe();
  EXPECT_EQ(hidden.http.status, unknown.http.status);
  EXPECT_EQ(int_at(hidden.response, "/error/code"), int_at(unknown.response, "/error/code")) << hidden.describe();
  // The same message, the name aside: nothing tells a hidden tool from none.
  std::string hidden_text = hidden.response.line;
  std::string unknown_text = unknown.response.line;
  const auto strip = [](std::string& text, std::string_view name) {
    for (std::size_t at; (at = text.find(name)) != std::string::npos;) text.replace(at, name.size(), "NAME");
  };
  strip(hidden_text, "canary.echo");
  strip(unknown_text, "canary.nonexistent");
  const auto without_id = [](std::string text) {
    const std::size_t id = text.find("\"id\":");
    return id == std::string::npos ? text : text.substr(0, id);
  };
  EXPECT_EQ(without_id(unknown_text), without_id(hidden_text));
}

TEST_F(HttpAuth, ASessionUsedWithAnotherIdentitysTokenIs404) {
  McpHttpClient alice = as(kAliceToken);
  ASSERT_EQ(200, alice.initialize().http.status);
  McpHttpClient bob = as(kBobToken);
  bob.set_session_id(alice.session_id());
  bob.set_protocol_header("2025-11-25");
  const McpReply stolen = bob.call("tools/list");
  EXPECT_EQ(404, stolen.http.status) << stolen.describe();
  EXPECT_EQ(404, bob.get_stream().response().status);
  EXPECT_EQ(404, bob.end_session().status);
  EXPECT_EQ(200, alice.call("ping").http.status) << "alice's session survived";
}

TEST_F(HttpAuth, MetricsNeedAToken) {
  EXPECT_EQ(401, http_get(port(), "/metrics").status);
  const HttpResponse r = http_get(port(), "/metrics", {{"Authorization", "Bearer " + std::string(kBobToken)}});
  EXPECT_EQ(200, r.status) << r.describe();
  EXPECT_THAT(r.body, HasSubstr("airlock_http_requests_total"));
}

TEST_F(HttpAuth, TokensNeverReachTheLog) {
  McpHttpClient alice = as(kAliceToken);
  ASSERT_EQ(200, alice.initialize().http.status);
  McpHttpClient wrong(port());
  wrong.set_bearer("wrong-token-that-must-not-be-logged");
  EXPECT_EQ(401, wrong.initialize().http.status);
  server_->terminate(10s);  // the whole log, flushed
  const std::string log = server_->stderr_text();
  for (const std::string_view secret : {kAliceToken, kBobToken, kCarolToken, std::string_view("wrong-token-that-must-not-be-logged")})
    EXPECT_THAT(log, Not(HasSubstr(std::string(secret))));
}

// ---------------------------------------------------------------------------
// Header fields that may appear once
//
// Two Host lines (RFC 9112 section 3.2: 400), two Origins, two session ids:
// whichever one a check reads, a proxy in front may have read the other.

TEST_F(HttpHostOrigin, EveryRepeatedSingletonHeaderIs400NamingIt) {
  const std::string port = port_text();
  const std::string body = initialize_body();
  // A request whose head is good but for `extra`, the repeated lines.
  const auto exchange = [&](const std::string& extra, const std::string& content_length_lines) {
    RawConnection raw(server_->port());
    EXPECT_TRUE(raw.connected());
    raw.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port +
             "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
             "Connection: close\r\n" + content_length_lines + extra + "\r\n" + body);
    return raw.read_until_close(5s);
  };
  const std::string length = "Content-Length: " + std::to_string(body.size()) + "\r\n";
  const std::pair<std::string, std::string> cases[] = {
      {"HOST: evil.example.com\r\n", "Host"},
      {"Origin: http://127.0.0.1:" + port + "\r\nOrigin: http://evil.example.com\r\n", "Origin"},
      {"Authorization: Bearer a\r\nAuthorization: Bearer b\r\n", "Authorization"},
      {"Content-Type: text/plain\r\n", "Content-Type"},
      {length, "Content-Length"},
      {"Mcp-Session-Id: a\r\nmcp-session-id: b\r\n", "Mcp-Session-Id"},
      {"MCP-Protocol-Version: 2025-11-25\r\nMCP-Protocol-Version: 2025-06-18\r\n", "MCP-Protocol-Version"},
      {"Last-Event-ID: 1\r\nLast-Event-ID: 2\r\n", "Last-Event-ID"},
  };
  for (const auto& [extra, name] : cases) {
    const std::string answer = exchange(extra, length);
    EXPECT_EQ(400, status_of_raw_response(answer)) << name << ":\n" << answer;
    EXPECT_THAT(answer, HasSubstr("duplicate " + name + " header")) << answer;
    EXPECT_THAT(answer, Not(HasSubstr("\r\nMcp-Session-Id:"))) << "a refused initialize created a session: " << answer;
  }
  // The same field twice on one line: a list, which RFC 9112 lets a reader
  // take as one length and a proxy in front may not.
  const std::string n = std::to_string(body.size());
  const std::string listed = exchange("", "Content-Length: " + n + ", " + n + "\r\n");
  EXPECT_EQ(400, status_of_raw_response(listed)) << listed;
  EXPECT_THAT(listed, HasSubstr("duplicate Content-Length header")) << listed;
  // The same request with each field once is served.
  const std::string served = exchange("", length);
  EXPECT_EQ(200, status_of_raw_response(served)) << served;
}

// ---------------------------------------------------------------------------
// Non-loopback addresses
//
// 192.0.2.1 is TEST-NET-1 (RFC 5737), an address no interface here has: even
// a server that wrongly went ahead could not bind it, so these tests never
// listen beyond loopback.

TEST(HttpRemote, RefusesANonLoopbackAddressWithoutTokens) {
  TempConfig config(http_config());
  const RunResult r = run(serve_http_argv(config.path(), "192.0.2.1:0"), 10s);
  ASSERT_TRUE(r.exit_code.has_value()) << "still running";
  EXPECT_NE(0, *r.exit_code);
  EXPECT_THAT(r.err, HasSubstr("allow_unauthenticated_remote")) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("listening on")));
}

TEST(HttpRemote, RefusesANonLoopbackListenFromTheConfigWithoutTokens) {
  TempConfig config(http_config("listen = \"192.0.2.1:8443\"\n"));
  const RunResult r = run({kAirlockBinary, "serve", "--config", config.path().string()}, 10s);
  ASSERT_TRUE(r.exit_code.has_value()) << "still running";
  EXPECT_NE(0, *r.exit_code);
  EXPECT_THAT(r.err, HasSubstr("allow_unauthenticated_remote")) << r.err;
}

}  // namespace
}  // namespace airlock::test
