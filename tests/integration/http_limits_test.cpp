// Streamable HTTP limits and abuse: header size, body size, request rate per
// identity, slow and idle clients, the connection cap, garbage. After each,
// the server must still serve everyone else.
#include "http_integration.hpp"


#include <charconv>
#include <future>
#include <thread>

namespace airlock::test {
namespace {

using testing::HasSubstr;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

// The server still answers a fresh client: /healthz and a whole MCP exchange.
void expect_still_serving(std::uint16_t port, const HttpHeaders& auth = {}) {
  const HttpResponse health = http_get(port, "/healthz", auth);
  EXPECT_EQ(200, health.status) << "after the abuse: " << health.describe();
  McpHttpClient client(port);
  for (const auto& [name, value] : auth) client.set_header(name, value);
  const McpReply init = client.initialize();
  EXPECT_EQ(200, init.http.status) << "after the abuse: " << init.describe();
  EXPECT_EQ("fine", first_text(client.call_tool("example.echo", {{"text", "fine"}})));
}

std::string request_head(std::uint16_t port, std::string_view method, std::string_view target) {
  return std::string(method) + " " + std::string(target) + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
         "\r\n";
}

TEST(HttpLimits, HeaderOverMaxHeaderBytesIs431) {
  AIRLOCK_START_HTTP(s, http_config("max_header_bytes = 2048\n"));
  McpHttpClient client(s.port());
  client.set_header("X-Padding", std::string(4096, 'p'));
  const McpReply reply = client.initialize();
  EXPECT_EQ(431, reply.http.status) << reply.describe();
  // Many small fields add up the same way.
  McpHttpClient many(s.port());
  for (int i = 0; i < 100; ++i) many.set_header("X-Field-" + std::to_string(i), std::string(40, 'f'));
  EXPECT_EQ(431, many.initialize().http.status);
  expect_still_serving(s.port());
}

TEST(HttpLimits, HeadersJustUnderTheLimitAreServed) {
  AIRLOCK_START_HTTP(s, http_config("max_header_bytes = 4096\n"));
  McpHttpClient client(s.port());
  client.set_header("X-Padding", std::string(2500, 'p'));
  EXPECT_EQ(200, client.initialize().http.status);
}

TEST(HttpLimits, DeclaredBodyOverTheLimitIs413WithoutWaitingForIt) {
  AIRLOCK_START_HTTP(s, http_config());
  RawConnection raw(s.port());
  ASSERT_TRUE(raw.connected());
  // 100 MB announced, nothing sent: the answer must not wait for the body.
  ASSERT_TRUE(raw.send(request_head(s.port(), "POST", "/mcp") +
                       "Content-Type: application/json\r\nAccept: application/json\r\nContent-Length: 100000000\r\n\r\n"));
  const std::string answer = raw.read_until("\r\n\r\n", 2s);
  EXPECT_EQ(413, status_of_raw_response(answer)) << answer;
  expect_still_serving(s.port());
}

TEST(HttpLimits, ChunkedBodyOverTheLimitIs413) {
  AIRLOCK_START_HTTP(s, http_config());
  RawConnection raw(s.port());
  ASSERT_TRUE(raw.connected());
  std::string request = request_head(s.port(), "POST", "/mcp") +
                        "Content-Type: application/json\r\nAccept: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 20; ++i) request += "1000\r\n" + std::string(0x1000, ' ') + "\r\n";  // 80 KiB > 64 KiB
  request += "0\r\n\r\n";
  raw.send(request);  // the server may stop reading once it has seen too much
  const std::string answer = raw.read_until("\r\n\r\n", 2s);
  EXPECT_EQ(413, status_of_raw_response(answer)) << answer.substr(0, 300);
  expect_still_serving(s.port());
}

TEST(HttpLimits, ALargeBodyWaitsUnreadWhileTheBudgetIsFullAndIsAnsweredOnceRoomIsGivenBack) {
  AIRLOCK_START_HTTP(s, one_large_body_at_a_time());
  // A holds the budget: 200,000 bytes announced, half sent.
  const std::string a_body = padded_initialize(200'000);
  RawConnection a(s.port());
  ASSERT_TRUE(a.send(request_head(s.port(), "POST", "/mcp") +
                     "Content-Type: application/json\r\nAccept: application/json\r\nContent-Length: 200000\r\n\r\n" +
                     a_body.substr(0, 100'000)));
  ASSERT_TRUE(wait_for_metric(s.port(), "airlock_http_body_bytes_held", 200'000));

  // B's large call waits, its body unread.
  McpHttpClient b(s.port());
  ASSERT_EQ(200, b.initialize().http.status);
  const std::string text(150'000, 'b');
  auto b_answer = std::async(std::launch::async, [&] { return b.call_tool("example.echo", {{"text", text}}, 10s); });
  EXPECT_TRUE(wait_for_metric(s.port(), "airlock_http_bodies_waiting", 1));
  EXPECT_EQ(std::future_status::timeout, b_answer.wait_for(300ms)) << "a large body was served past the budget";

  // Small bodies are not counted and do not wait.
  McpHttpClient c(s.port());
  ASSERT_EQ(200, c.initialize().http.status);
  EXPECT_EQ("small", first_text(c.call_tool("example.echo", {{"text", "small"}})));

  // A's body completes and is answered; its bytes go back and B is read.
  ASSERT_TRUE(a.send(a_body.substr(100'000)));
  EXPECT_EQ(200, status_of_raw_response(a.read_until("\r\n\r\n", 5s))) << a.received().substr(0, 300);
  const McpReply b_reply = b_answer.get();
  EXPECT_EQ(200, b_reply.http.status) << b_reply.describe().substr(0, 300);
  EXPECT_EQ(text, first_text(b_reply));
  EXPECT_TRUE(wait_for_metric(s.port(), "airlock_http_body_bytes_held", 0));
  EXPECT_EQ(0, metric(s.port(), "airlock_http_bodies_waiting"));
}

TEST(HttpLimits, ALargeBodyThatWaitsPastTheReadTimeoutGets503NamingTheBudgetWhileTheHolderIsAnswered) {
  AIRLOCK_START_HTTP(s, one_large_body_at_a_time("read_timeout_ms = 800\n"));
  // A's large call holds the budget while its tool waits for A's answer to
  // an elicitation, which A gives only once B has been turned away. The
  // answer is a small body: it does not wait behind the call it unblocks.
  McpHttpClient a(s.port());
  std::promise<void> b_refused;
  std::shared_future<void> go_on = b_refused.get_future().share();
  a.on_server_request = [go_on](const Message&) {
    go_on.wait();
    return json::object{{"result", {{"action", "accept"}, {"content", {{"username", "a"}, {"email", "a@a.test"}}}}}};
  };
  const McpReply init = a.send(rpc_request(0, "initialize",
                                           {{"protocolVersion", "2025-11-25"},
                                            {"capabilities", {{"elicitation", json::object{}}}},
                                            {"clientInfo", {{"name", "a"}, {"version", "0"}}}}));
  ASSERT_EQ(200, init.http.status) << init.describe();
  a.set_session_id(init.http.header_or_empty("mcp-session-id"));
  ASSERT_EQ(202, a.notify("notifications/initialized").status);
  auto a_reply = std::async(std::launch::async, [&] {
    return a.call_tool("interactive.elicit", {{"message", std::string(200'000, 'm')}}, 20s);
  });
  bool held = false;
  for (const auto deadline = Clock::now() + 5s; !held && Clock::now() < deadline; std::this_thread::sleep_for(20ms))
    held = metric(s.port(), "airlock_http_body_bytes_held") > 200'000;
  ASSERT_TRUE(held) << "A's call never held its body's bytes";

  // B waits behind it, and is told why when its read timeout passes.
  RawConnection b(s.port());
  const std::string b_body = padded_initialize(150'000);
  auto sent = std::async(std::launch::async, [&] {
    return b.send(request_head(s.port(), "POST", "/mcp") +
                  "Content-Type: application/json\r\nAccept: application/json\r\nContent-Length: 150000\r\n\r\n" +
                  b_body);
  });
  const auto waited_from = Clock::now();
  b.closed_by_peer(5s);
  const auto waited = Clock::now() - waited_from;
  EXPECT_EQ(503, status_of_raw_response(b.received())) << b.received().substr(0, 300);
  EXPECT_THAT(b.received(), HasSubstr("transport.http.max_body_bytes_in_flight"));
  EXPECT_GE(waited, 600ms) << "turned away before its read timeout";
  sent.wait();
  EXPECT_EQ(0, metric(s.port(), "airlock_http_bodies_waiting"));

  b_refused.set_value();
  const McpReply a_answer = a_reply.get();
  EXPECT_EQ(200, a_answer.http.status) << a_answer.describe().substr(0, 300);
  EXPECT_THAT(first_text(a_answer), HasSubstr("action=accept"));
  // Nothing stays held: a large call now goes straight through.
  EXPECT_TRUE(wait_for_metric(s.port(), "airlock_http_body_bytes_held", 0));
  McpHttpClient client(s.port());
  ASSERT_EQ(200, client.initialize().http.status);
  const std::string text(100'000, 't');
  EXPECT_EQ(text, first_text(client.call_tool("example.echo", {{"text", text}})));
}

TEST(HttpLimits, RequestsPastTheRateGet429WithRetryAfter) {
  AIRLOCK_START_HTTP(s, http_config("rate_limit = 2\nrate_burst = 3\n"));
  McpHttpClient client(s.port());
  client.initialize("2025-11-25", false);
  int ok = 0;
  HttpResponse limited;
  for (int i = 0; i < 10 && limited.status == 0; ++i) {
    const McpReply reply = client.call("ping");
    if (reply.http.status == 200) ++ok;
    if (reply.http.status == 429) limited = reply.http;
  }
  ASSERT_EQ(429, limited.status) << "10 requests at once never hit a limit of 2/s, burst 3";
  EXPECT_LE(ok, 3) << "more requests passed than the burst allows";
  const std::string retry_after = limited.header_or_empty("retry-after");
  int seconds = -1;
  const auto [end, ec] = std::from_chars(retry_after.data(), retry_after.data() + retry_after.size(), seconds);
  EXPECT_TRUE(ec == std::errc{} && end == retry_after.data() + retry_after.size() && seconds >= 1 && seconds <= 2)
      << "Retry-After: '" << retry_after << "'";
  // The bucket refills: after Retry-After, requests pass again.
  std::this_thread::sleep_for(std::chrono::seconds(std::clamp(seconds, 1, 2)));
  EXPECT_EQ(200, client.call("ping").http.status);
}


TEST(HttpLimits, TheRateIsCountedPerIdentity) {
  AIRLOCK_START_HTTP(s, http_config("rate_limit = 1\nrate_burst = 2\n",
                                    "[[transport.http.tokens]]\nidentity = \"greedy\"\nsha256 = \"" +
                                        sha256_hex("greedy-token") +
                                        "\"\n\n[[transport.http.tokens]]\nidentity = \"patient\"\nsha256 = \"" +
                                        sha256_hex("patient-token") + "\"\n"));
  McpHttpClient greedy(s.port());
  greedy.set_bearer("greedy-token");
  int status = 0;
  for (int i = 0; i < 10 && status != 429; ++i) status = greedy.initialize("2025-11-25", false).http.status;
  ASSERT_EQ(429, status) << "greedy never hit its limit";
  McpHttpClient patient(s.port());
  patient.set_bearer("patient-token");
  EXPECT_EQ(200, patient.initialize("2025-11-25", false).http.status) << "one identity's limit held up another";
}

TEST(HttpLimits, ASlowClientDribblingHeadersGets408OrIsClosedWhileOthersAreServed) {
  AIRLOCK_START_HTTP(s, http_config("read_timeout_ms = 500\n"));
  const auto started = Clock::now();
  auto slow = std::async(std::launch::async, [port = s.port()] {
    RawConnection raw(port);
    if (!raw.connected()) return std::string("not connected");
    // 10 bytes a second, forever: the header never completes.
    const std::string endless = request_head(port, "GET", "/healthz") + "X-Slow: " + std::string(1000, 's');
    raw.send_slowly(endless, 100ms, 5s);
    raw.closed_by_peer(1s);
    return raw.received();
  });
  // Meanwhile everyone else is served.
  std::this_thread::sleep_for(200ms);
  expect_still_serving(s.port());
  const std::string answer = slow.get();
  const auto held = Clock::now() - started;
  const int status = status_of_raw_response(answer);
  EXPECT_TRUE(status == 408 || answer.empty()) << "expected 408 or a plain close, got: " << answer.substr(0, 200);
  EXPECT_LT(held, 2500ms) << "the slow client held its connection past read_timeout_ms";
  expect_still_serving(s.port());
}

TEST(HttpLimits, ASlowBodyGets408OrIsClosed) {
  AIRLOCK_START_HTTP(s, http_config("read_timeout_ms = 500\n"));
  RawConnection raw(s.port());
  ASSERT_TRUE(raw.connected());
  const std::string body = initialize_body();
  ASSERT_TRUE(raw.send(request_head(s.port(), "POST", "/mcp") +
                       "Content-Type: application/json\r\nAccept: application/json\r\nContent-Length: " +
                       std::to_string(body.size()) + "\r\n\r\n"));
  const auto started = Clock::now();
  raw.send_slowly(body, 100ms, 5s);
  raw.closed_by_peer(1s);
  const int status = status_of_raw_response(raw.received());
  EXPECT_TRUE(status == 408 || raw.received().empty()) << raw.received().substr(0, 200);
  EXPECT_LT(Clock::now() - started, 2500ms);
  expect_still_serving(s.port());
}

TEST(HttpLimits, AConnectionThatSendsNothingIsClosed) {
  AIRLOCK_START_HTTP(s, http_config("read_timeout_ms = 400\nidle_timeout_ms = 400\n"));
  RawConnection raw(s.port());
  ASSERT_TRUE(raw.connected());
  EXPECT_TRUE(raw.closed_by_peer(2500ms)) << "an idle connection was kept open";
  // And a kept-alive one that went quiet after a request.
  RawConnection kept(s.port());
  ASSERT_TRUE(kept.send(request_head(s.port(), "GET", "/healthz") + "\r\n"));
  EXPECT_EQ(200, status_of_raw_response(kept.read_until("ok\n", 1s)));
  EXPECT_TRUE(kept.closed_by_peer(2500ms)) << "an idle keep-alive connection was kept open";
  expect_still_serving(s.port());
}

TEST(HttpLimits, ConnectionsPastMaxConnectionsGet503AndAreClosed) {
  AIRLOCK_START_HTTP(s, http_config("max_connections = 3\nread_timeout_ms = 20000\nidle_timeout_ms = 20000\n"));
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(std::make_unique<RawConnection>(s.port()));
    ASSERT_TRUE(held.back()->connected());
    // Each is a real, served connection.
    ASSERT_TRUE(held.back()->send(request_head(s.port(), "GET", "/healthz") + "\r\n"));
    EXPECT_EQ(200, status_of_raw_response(held.back()->read_until("ok\n", 2s))) << held.back()->received();
  }
  RawConnection extra(s.port());
  if (extra.connected()) {
    extra.send(request_head(s.port(), "GET", "/healthz") + "\r\n");
    const std::string answer = extra.read_until_close(2s);
    EXPECT_EQ(503, status_of_raw_response(answer)) << "past max_connections: '" << answer.substr(0, 200) << "'";
    EXPECT_TRUE(extra.closed_by_peer(0ms)) << "the extra connection was left open";
  }
  // The held ones still work.
  held.front()->clear_received();
  ASSERT_TRUE(held.front()->send(request_head(s.port(), "GET", "/healthz") + "\r\n"));
  EXPECT_EQ(200, status_of_raw_response(held.front()->read_until("ok\n", 2s))) << held.front()->received();
  // Closing one makes room for another.
  held.pop_back();
  int status = 0;
  for (int attempt = 0; attempt < 40 && status != 200; ++attempt) {
    status = http_get(s.port(), "/healthz").status;
    if (status != 200) std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(200, status) << "a freed connection slot was not reused";
}

TEST(HttpLimits, GarbageIsRefusedAndTheServerKeepsServing) {
  AIRLOCK_START_HTTP(s, http_config());
  for (const std::string_view garbage :
       {std::string_view("THIS IS NOT HTTP\r\n\r\n"), std::string_view("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11),
        std::string_view("GET /mcp HTTP/9.9\r\n\r\n"), std::string_view("POST /mcp HTTP/1.1\r\nContent-Length: -5\r\n\r\n")}) {
    RawConnection raw(s.port());
    ASSERT_TRUE(raw.connected());
    raw.send(garbage);
    const std::string answer = raw.read_until_close(3s);
    const int status = status_of_raw_response(answer);
    EXPECT_TRUE(answer.empty() || (status >= 400 && status < 500)) << "for '" << garbage << "': " << answer.substr(0, 200);
    EXPECT_TRUE(raw.closed_by_peer(0ms)) << "the connection stayed open after garbage";
  }
  expect_still_serving(s.port());
}

TEST(HttpLimits, ManySessionsAndAbruptDisconnectsLeaveTheServerServing) {
  AIRLOCK_START_HTTP(s, http_config());
  for (int i = 0; i < 50; ++i) {
    McpHttpClient client(s.port());
    ASSERT_EQ(200, client.initialize().http.status) << i;
  }
  // Streams dropped mid-call.
  for (int i = 0; i < 10; ++i) {
    McpHttpClient client(s.port());
    ASSERT_EQ(200, client.initialize().http.status);
    SseStream stream = client.post_stream(rpc_request(1, "tools/call", {{"name", "canary.slow"}, {"arguments", {{"ms", 200}}}}));
    stream.next(1s);
  }
  expect_still_serving(s.port());
}

}  // namespace
}  // namespace airlock::test
