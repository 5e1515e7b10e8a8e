// Streamable HTTP sessions: DELETE, idle expiry, the cap on live sessions,
// the standalone GET stream and its limits.
#include "http_integration.hpp"

#include <future>
#include <thread>

namespace airlock::test {
namespace {

using testing::HasSubstr;
using testing::StartsWith;

McpHttpClient initialized(std::uint16_t port) {
  McpHttpClient client(port);
  const McpReply init = client.initialize();
  EXPECT_EQ(200, init.http.status) << init.describe();
  return client;
}

TEST(HttpSessions, DeleteEndsTheSessionAndItsIdIs404Afterwards) {
  AIRLOCK_START_HTTP(s, http_config());
  McpHttpClient client = initialized(s.port());
  ASSERT_EQ(200, client.call("ping").http.status);
  const HttpResponse deleted = client.end_session();
  EXPECT_GE(deleted.status, 200) << deleted.describe();
  EXPECT_LT(deleted.status, 300) << deleted.describe();

  const McpReply after = client.call("ping");
  EXPECT_EQ(404, after.http.status) << after.describe();
  EXPECT_NE(0, error_code_of(after.http.body)) << "404 without a JSON-RPC error body: " << after.describe();
  EXPECT_EQ(404, client.notify("notifications/initialized").status);
  EXPECT_EQ(404, client.get_stream().response().status);
  EXPECT_EQ(404, client.end_session().status);
}

TEST(HttpSessions, DeletingOneSessionLeavesOthersWorking) {
  AIRLOCK_START_HTTP(s, http_config());
  McpHttpClient a = initialized(s.port());
  McpHttpClient b = initialized(s.port());
  ASSERT_NE(a.session_id(), b.session_id());
  EXPECT_LT(a.end_session().status, 300);
  const McpReply reply = b.call_tool("example.echo", {{"text", "still here"}});
  EXPECT_EQ("still here", first_text(reply)) << reply.describe();
}

// A tool whose calls have been cheap runs on the I/O thread that read the
// request (there is one by default), with no hand-off to a worker. When it
// turns slow there, the other connections must still be served meanwhile.
TEST(HttpSessions, ACheapToolTurnedSlowHoldsUpNoOtherConnection) {
  AIRLOCK_START_HTTP(s, http_config());
  McpHttpClient a = initialized(s.port());
  McpHttpClient b = initialized(s.port());
  // Enough cheap calls of both tools for them to count as cheap.
  for (int i = 0; i < 40; ++i) {
    ASSERT_EQ("slept 0", first_text(a.call_tool("canary.slow", {{"ms", 0}})));
    ASSERT_EQ("warm", first_text(b.call_tool("example.echo", {{"text", "warm"}})));
  }
  const auto start = std::chrono::steady_clock::now();
  auto slow = std::async(std::launch::async, [&a] { return a.call_tool("canary.slow", {{"ms", 1500}}); });
  std::this_thread::sleep_for(100ms);
  const McpReply echo = b.call_tool("example.echo", {{"text", "meanwhile"}});
  const auto echoed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ("meanwhile", first_text(echo)) << echo.describe();
  EXPECT_LT(echoed, 1000ms) << "another connection waited for the slow call";
  const McpReply slept = slow.get();
  EXPECT_EQ("slept 1500", first_text(slept)) << slept.describe();
}

TEST(HttpSessions, AnIdleSessionExpiresAndThenIs404) {
  AIRLOCK_START_HTTP(s, http_config("session_idle_timeout_s = 1\n"));
  McpHttpClient idle = initialized(s.port());
  McpHttpClient busy = initialized(s.port());
  // `busy` is used every 300 ms, so it never sits idle for a whole second.
  const auto until = std::chrono::steady_clock::now() + 2500ms;
  while (std::chrono::steady_clock::now() < until) {
    EXPECT_EQ(200, busy.call("ping").http.status) << "a session in use must not expire";
    std::this_thread::sleep_for(300ms);
  }
  const McpReply expired = idle.call("ping");
  EXPECT_EQ(404, expired.http.status) << expired.describe();
  EXPECT_EQ(200, busy.call("ping").http.status);
}

TEST(HttpSessions, PastMaxSessionsInitializeIs503UntilOneEnds) {
  AIRLOCK_START_HTTP(s, http_config("max_sessions = 2\n"));
  McpHttpClient a = initialized(s.port());
  McpHttpClient b = initialized(s.port());
  McpHttpClient c(s.port());
  const McpReply refused = c.initialize();
  EXPECT_EQ(503, refused.http.status) << refused.describe();
  EXPECT_TRUE(refused.http.header("mcp-session-id") == std::nullopt) << refused.describe();
  // The live ones keep working, and ending one makes room.
  EXPECT_EQ(200, a.call("ping").http.status);
  EXPECT_LT(b.end_session().status, 300);
  const McpReply admitted = c.initialize();
  EXPECT_EQ(200, admitted.http.status) << admitted.describe();
}

TEST(HttpSessions, GetOpensTheStandaloneEventStream) {
  AIRLOCK_START_HTTP(s, http_config());
  McpHttpClient client = initialized(s.port());
  SseStream stream = client.get_stream();
  EXPECT_EQ(200, stream.response().status) << stream.response().describe();
  EXPECT_THAT(stream.response().header_or_empty("content-type"), StartsWith("text/event-stream"));
  // It stays open: no end within a short wait.
  EXPECT_FALSE(stream.wait_end(300ms)) << "the standalone stream ended at once: " << stream.raw();
  // And the session still answers requests meanwhile.
  EXPECT_EQ(200, client.call("ping").http.status);
}

TEST(HttpSessions, ASecondConcurrentStandaloneStreamIs409) {
  AIRLOCK_START_HTTP(s, http_config());
  McpHttpClient client = initialized(s.port());
  SseStream first = client.get_stream();
  ASSERT_EQ(200, first.response().status) << first.response().describe();
  SseStream second = client.get_stream();
  EXPECT_EQ(409, second.response().status) << second.response().describe();
  // Once the first is gone (the server sees the disconnect), a new one opens.
  first.close();
  int status = 0;
  for (int attempt = 0; attempt < 40 && status != 200; ++attempt) {
    SseStream again = client.get_stream();
    status = again.response().status;
    if (status != 200) std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(200, status) << "no standalone stream after the first one disconnected";
}

TEST(HttpSessions, StandaloneStreamConfiguredOffIs405) {
  AIRLOCK_START_HTTP(s, http_config("standalone_stream = false\n"));
  McpHttpClient client = initialized(s.port());
  SseStream stream = client.get_stream();
  EXPECT_EQ(405, stream.response().status) << stream.response().describe();
  EXPECT_EQ(200, client.call("ping").http.status);
}

TEST(HttpSessions, GetWithoutSessionIsRefused) {
  AIRLOCK_START_HTTP(s, http_config());
  McpHttpClient client(s.port());
  SseStream stream = client.get_stream();
  EXPECT_GE(stream.response().status, 400) << stream.response().describe();
  EXPECT_LT(stream.response().status, 500) << stream.response().describe();
}

TEST(HttpSessions, DeleteWithoutSessionIsRefused) {
  AIRLOCK_START_HTTP(s, http_config());
  McpHttpClient client(s.port());
  const HttpResponse r = client.end_session();
  EXPECT_GE(r.status, 400) << r.describe();
  EXPECT_LT(r.status, 500) << r.describe();
}

TEST(HttpSessions, SessionsKeepTheirOwnProtocolVersion) {
  AIRLOCK_START_HTTP(s, http_config());
  McpHttpClient old_client(s.port());
  const McpReply old_init = old_client.initialize("2025-06-18");
  EXPECT_EQ("2025-06-18", string_at(old_init.response, "/result/protocolVersion")) << old_init.describe();
  McpHttpClient new_client(s.port());
  const McpReply new_init = new_client.initialize("2025-11-25");
  EXPECT_EQ("2025-11-25", string_at(new_init.response, "/result/protocolVersion")) << new_init.describe();
  EXPECT_EQ(200, old_client.call("ping").http.status);
  EXPECT_EQ(200, new_client.call("ping").http.status);
}

}  // namespace
}  // namespace airlock::test
