// Streamable HTTP shutdown: SIGTERM stops accepting, lets in-flight calls
// finish (up to shutdown_grace_ms), closes streams, and exits 0.
#include "http_integration.hpp"

#include <signal.h>

#include <future>
#include <thread>

namespace airlock::test {
namespace {

using Clock = std::chrono::steady_clock;
namespace json = boost::json;

McpHttpClient initialized(std::uint16_t port) {
  McpHttpClient client(port);
  const McpReply init = client.initialize();
  EXPECT_EQ(200, init.http.status) << init.describe();
  return client;
}

std::optional<Message> response_on(SseStream& stream, const json::value& id, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    const std::optional<SseEvent> event =
        stream.next(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
    if (!event) return std::nullopt;
    if (event->data.empty()) continue;
    Message m = parse_message(event->data);
    if (answers(m, id)) return m;
  }
  return std::nullopt;
}

TEST(HttpShutdown, IdleServerExitsZeroOnSigtermPromptly) {
  AIRLOCK_START_HTTP(s, http_config());
  McpHttpClient client = initialized(s.port());
  const auto started = Clock::now();
  EXPECT_EQ(0, s.server.terminate(5s)) << s.server.stderr_text();
  EXPECT_LT(Clock::now() - started, 2s);
}

TEST(HttpShutdown, InFlightCallGetsItsResponseThenTheProcessExitsZero) {
  AIRLOCK_START_HTTP(s, http_config());
  McpHttpClient client = initialized(s.port());
  SseStream call = client.post_stream(
      rpc_request(5, "tools/call", {{"name", "canary.slow"}, {"arguments", {{"ms", 800}}}}));
  ASSERT_EQ(200, call.response().status) << call.response().describe();
  ASSERT_TRUE(call.next(2s)) << "no priming event";
  std::this_thread::sleep_for(100ms);  // the call is running
  s.server.signal(SIGTERM);
  const std::optional<Message> response = response_on(call, 5, 5s);
  ASSERT_TRUE(response) << "the in-flight call lost its response at SIGTERM:\n" << call.raw() << "\nstderr:\n"
                        << s.server.stderr_text();
  EXPECT_EQ("slept 800", string_at(*response, "/result/content/0/text")) << response->line;
  EXPECT_EQ(0, s.server.process().wait_exit(5s)) << s.server.stderr_text();
}

TEST(HttpShutdown, ALargeBodyWaitingForRoomGets503AtOnceWhileTheCallHoldingItCompletes) {
  AIRLOCK_START_HTTP(s, one_large_body_at_a_time());
  // A's slow call, its body padded past 64 KiB, holds the whole budget.
  McpHttpClient a = initialized(s.port());
  std::string a_body = json::serialize(
      rpc_request(5, "tools/call", {{"name", "canary.slow"}, {"arguments", {{"ms", 1500}}}}));
  a_body.resize(150'000, ' ');
  auto a_answer = std::async(std::launch::async, [&] { return a.raw(a.post_request(a_body), 10s); });
  ASSERT_TRUE(wait_for_metric(s.port(), "airlock_http_body_bytes_held", 150'000)) << s.server.stderr_text();
  // B waits for room, its body unread.
  RawConnection b(s.port());
  ASSERT_TRUE(b.send("POST /mcp HTTP/1.1\r\nHost: " + s.host_header() +
                     "\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
                     "Content-Length: 150000\r\n\r\n" + padded_initialize(150'000).substr(0, 1000)));
  ASSERT_TRUE(wait_for_metric(s.port(), "airlock_http_bodies_waiting", 1));

  const auto signalled = Clock::now();
  s.server.signal(SIGTERM);
  // Told at once (its read timeout is 10 s), not left to wait out the call.
  b.closed_by_peer(5s);
  EXPECT_LT(Clock::now() - signalled, 1s);
  EXPECT_EQ(503, status_of_raw_response(b.received())) << b.received().substr(0, 300);
  EXPECT_THAT(b.received(), testing::HasSubstr("shutting down"));
  const HttpResponse answer = a_answer.get();
  EXPECT_EQ(200, answer.status) << answer.describe();
  EXPECT_THAT(answer.body, testing::HasSubstr("slept 1500"));
  EXPECT_EQ(0, s.server.process().wait_exit(5s)) << s.server.stderr_text();
}

TEST(HttpShutdown, JsonAnsweredInFlightCallAlsoCompletes) {
  AIRLOCK_START_HTTP(s, http_config());
  std::optional<McpReply> reply;
  std::thread caller([&] {
    McpHttpClient client = initialized(s.port());
    client.set_accept("application/json");
    reply = client.call_tool("canary.slow", {{"ms", 600}});
  });
  std::this_thread::sleep_for(250ms);
  s.server.signal(SIGTERM);
  caller.join();
  ASSERT_TRUE(reply);
  EXPECT_EQ(200, reply->http.status) << reply->describe();
  EXPECT_EQ("slept 600", first_text(*reply)) << reply->describe();
  EXPECT_EQ(0, s.server.process().wait_exit(5s)) << s.server.stderr_text();
}

TEST(HttpShutdown, StopsAcceptingWhileItFinishes) {
  AIRLOCK_START_HTTP(s, http_config());
  McpHttpClient client = initialized(s.port());
  SseStream call = client.post_stream(
      rpc_request(6, "tools/call", {{"name", "canary.slow"}, {"arguments", {{"ms", 1000}}}}));
  ASSERT_TRUE(call.next(2s));
  s.server.signal(SIGTERM);
  std::this_thread::sleep_for(200ms);
  const HttpResponse late = http_get(s.port(), "/healthz");
  EXPECT_NE(200, late.status) << "a new connection was served after SIGTERM: " << late.describe();
  EXPECT_TRUE(response_on(call, 6, 5s)) << call.raw();
  EXPECT_EQ(0, s.server.process().wait_exit(5s));
}

TEST(HttpShutdown, OpenStandaloneStreamsAreClosed) {
  AIRLOCK_START_HTTP(s, http_config());
  McpHttpClient client = initialized(s.port());
  SseStream stream = client.get_stream();
  ASSERT_EQ(200, stream.response().status) << stream.response().describe();
  s.server.signal(SIGTERM);
  EXPECT_TRUE(stream.wait_end(5s)) << "the standalone stream was left open";
  EXPECT_EQ(0, s.server.process().wait_exit(5s)) << s.server.stderr_text();
}

TEST(HttpShutdown, ACallPastTheGraceIsCutAndTheProcessStillExits) {
  AIRLOCK_START_HTTP(s, http_config("shutdown_grace_ms = 300\n"));
  McpHttpClient client = initialized(s.port());
  SseStream call = client.post_stream(
      rpc_request(7, "tools/call", {{"name", "canary.slow"}, {"arguments", {{"ms", 20000}}}}));
  ASSERT_TRUE(call.next(2s));
  const auto started = Clock::now();
  s.server.signal(SIGTERM);
  const std::optional<int> exit = s.server.process().wait_exit(5s);
  ASSERT_TRUE(exit) << "still running 5 s after SIGTERM with a 300 ms grace";
  EXPECT_EQ(0, *exit) << s.server.stderr_text();
  EXPECT_LT(Clock::now() - started, 2500ms);
  EXPECT_TRUE(call.wait_end(2s));
}

// A call inside the server that never returns (an in-process plugin that
// ignores cancellation) cannot be stopped: past the grace, its cancellation
// and the abandon grace, the process ends with status 3 instead of waiting.
TEST(HttpShutdown, AnInProcessCallThatNeverReturnsEndsTheProcessWithStatus3) {
  if (const char* mode = std::getenv("AIRLOCK_ISOLATION"); mode && std::string_view(mode) == "process")
    GTEST_SKIP() << "AIRLOCK_ISOLATION=process puts the hung plugin in a worker, which is killed instead";
  const std::string toml = "[server]\nname = \"hung\"\n\n[plugins]\n" +
                           toml_dirs({fixture_dir("hostile"), kPluginDir}) +
                           "\non_error = \"fail\"\n\n[isolation]\nmode = \"in-process\"\n\n"
                           "[transport.http]\nshutdown_grace_ms = 300\n";
  AIRLOCK_START_HTTP(s, toml);
  McpHttpClient client = initialized(s.port());
  SseStream call =
      client.post_stream(rpc_request(7, "tools/call", {{"name", "hostile.crash"}, {"arguments", {{"how", "hang"}}}}));
  ASSERT_TRUE(call.next(2s));  // the stream is open: the call runs
  const auto started = Clock::now();
  s.server.signal(SIGTERM);
  const std::optional<int> exit = s.server.process().wait_exit(10s);
  ASSERT_TRUE(exit) << "still running 10 s after SIGTERM; stderr:\n" << s.server.stderr_text();
  EXPECT_EQ(3, *exit) << s.server.stderr_text();
  // shutdown_grace_ms (0.3 s) + the abandon grace (3 s), with room for a loaded machine.
  EXPECT_LT(Clock::now() - started, 7s);
  EXPECT_THAT(s.server.stderr_text(), testing::HasSubstr("exiting without it (status 3)"));
}

}  // namespace
}  // namespace airlock::test
