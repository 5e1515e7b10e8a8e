// Tool calls run concurrently with the session, and a cancelled call stops.
#include "integration.hpp"

namespace airlock::test {
namespace {

using testing::HasSubstr;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

TEST(Concurrency, AnswersPingAndOtherCallsWhileASlowToolRuns) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  const json::value slow = client->request(
      "tools/call", {{"name", "canary.slow"}, {"arguments", {{"ms", 1500}}}});
  const json::value ping = client->request("ping");
  const json::value echo = client->request(
      "tools/call", {{"name", "example.echo"}, {"arguments", {{"text", "fast"}}}});

  std::vector<json::value> order;
  while (order.size() < 3) {
    const std::optional<Message> m = client->next_message(4s);
    ASSERT_TRUE(m) << "only " << order.size() << " of 3 responses; stderr:\n"
                   << client->stderr_text();
    const json::object& o = m->json.as_object();
    if (!o.contains("id")) continue;  // a notification
    order.push_back(o.at("id"));
    if (o.at("id") == slow) {
      EXPECT_EQ("slept 1500", first_text(*m)) << m->line;
    }
    if (o.at("id") == echo) {
      EXPECT_EQ("fast", first_text(*m)) << m->line;
    }
  }
  EXPECT_EQ(slow, order.back()) << "the slow call must answer last";
  EXPECT_THAT(order, testing::Contains(ping));
  EXPECT_THAT(order, testing::Contains(echo));
}

TEST(Cancellation, StopsACancellableToolAndSendsNoResponse) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  const json::value slow = client->request(
      "tools/call", {{"name", "canary.slow"}, {"arguments", {{"ms", 20000}}}});
  // Let the call reach the tool before it is cancelled.
  std::this_thread::sleep_for(100ms);
  client->notify("notifications/cancelled", {{"requestId", slow}, {"reason", "test"}});

  const Message pong = client->call("ping");
  EXPECT_NE(nullptr, find(pong, "/result")) << pong.line;
  EXPECT_TRUE(client->no_response_within(slow, 500ms))
      << "a cancelled request must not be answered";

  // Exiting promptly proves the tool saw the flag instead of sleeping 20 s.
  const auto start = Clock::now();
  EXPECT_EQ(0, client->finish(3s)) << client->stderr_text();
  EXPECT_LT(Clock::now() - start, 3s);
  EXPECT_TRUE(client->no_response_within(slow, 0ms));
}

TEST(Cancellation, CancelsACallBeforeItReachesTheTool) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  // Both lines arrive together, so the cancel may well beat the call to the
  // worker; either way the call must end without a response.
  client->send_line(
      R"({"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"canary.slow","arguments":{"ms":20000}}})"
      "\n"
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}})");
  EXPECT_NE(nullptr, find(client->call("ping"), "/result"));
  EXPECT_TRUE(client->no_response_within("c1", 500ms));
  EXPECT_EQ(0, client->finish(3s)) << client->stderr_text();
}

TEST(Cancellation, IgnoresCancelForAnUnknownRequest) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  client->notify("notifications/cancelled", {{"requestId", 12345}});
  const Message echo = client->call_tool("example.echo", json::object{{"text", "ok"}});
  EXPECT_EQ("ok", first_text(echo)) << echo.line;
}

TEST(Cancellation, EndOfInputStopsARunningCall) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  client->request("tools/call", {{"name", "canary.slow"}, {"arguments", {{"ms", 20000}}}});
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(0, client->finish(3s)) << "EOF must cancel in-flight calls; stderr:\n"
                                   << client->stderr_text();
}

}  // namespace
}  // namespace airlock::test
