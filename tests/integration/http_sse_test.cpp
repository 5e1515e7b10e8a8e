// Streamable HTTP event streams: priming events, concurrent POST streams,
// messages during a call (progress, logs, server->client requests), and
// resumption with Last-Event-ID (SEP-1699), including events produced while
// no stream was connected.
#include "http_integration.hpp"

#include <future>
#include <set>
#include <thread>

namespace airlock::test {
namespace {

using testing::HasSubstr;
using testing::StartsWith;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kReconnectText =
    "Reconnection test completed successfully. If you received this, the client properly reconnected after "
    "stream closure.";

class HttpSse : public testing::Test {
 protected:
  void SetUp() override { start(http_config()); }
  void start(const std::string& toml) {
    server_ = std::make_unique<HttpServerUnderTest>(toml);
    ASSERT_TRUE(server_->server.ready()) << server_->server.stderr_text();
    client_ = std::make_unique<McpHttpClient>(server_->port());
    const McpReply init = client_->initialize();
    ASSERT_EQ(200, init.http.status) << init.describe();
  }
  std::uint16_t port() const { return server_->port(); }
  McpHttpClient& client() { return *client_; }
  // Another client of the same session, on its own connection.
  McpHttpClient same_session() {
    McpHttpClient other(port());
    other.set_session_id(client_->session_id());
    other.set_protocol_header("2025-11-25");
    return other;
  }

  std::unique_ptr<HttpServerUnderTest> server_;
  std::unique_ptr<McpHttpClient> client_;
};

// Reads events until one carries the response to `id` or the stream ends.
struct Collected {
  std::vector<SseEvent> events;
  std::optional<Message> response;
};
Collected collect_until_response(SseStream& stream, const json::value& id, std::chrono::milliseconds timeout) {
  Collected out;
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    std::optional<SseEvent> event =
        stream.next(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
    if (!event) break;
    out.events.push_back(*event);
    if (!event->data.empty()) {
      Message m = parse_message(event->data);
      if (answers(m, id)) {
        out.response = m;
        break;
      }
    }
  }
  return out;
}

std::string events_text(const std::vector<SseEvent>& events) {
  std::string text;
  for (const SseEvent& e : events) text += "[" + e.raw + "]\n";
  return text;
}

TEST(HttpSsePriming, RetryIsTheConfiguredSseRetryMs) {
  AIRLOCK_START_HTTP(s, http_config("sse_retry_ms = 1234\n"));
  McpHttpClient client(s.port());
  ASSERT_EQ(200, client.initialize().http.status);
  const McpReply reply = client.call("ping");
  ASSERT_TRUE(reply.is_sse()) << reply.describe();
  ASSERT_FALSE(reply.events.empty()) << reply.describe();
  EXPECT_EQ(1234, reply.events.front().retry.value_or(-1)) << reply.events.front().raw;
}

TEST_F(HttpSse, EventIdsAreUniqueAcrossTheStreamsOfASession) {
  std::set<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    const McpReply reply = client().call_tool("example.echo", {{"text", "n" + std::to_string(i)}});
    ASSERT_TRUE(reply.is_sse()) << reply.describe();
    for (const SseEvent& e : reply.events) {
      ASSERT_TRUE(e.id) << e.raw;
      // Unique within the session, so a Last-Event-ID names one stream.
      EXPECT_TRUE(ids.insert(*e.id).second) << "event id " << *e.id << " seen twice";
    }
  }
}

TEST_F(HttpSse, ConcurrentPostStreamsEachGetTheirOwnResponse) {
  const auto started = Clock::now();
  std::vector<std::future<McpReply>> calls;
  for (int i = 0; i < 3; ++i) {
    calls.push_back(std::async(std::launch::async, [this, i] {
      McpHttpClient other = same_session();
      // Ids unique within the session: one id may be in flight only once.
      return other.send(rpc_request(100 + i, "tools/call", {{"name", "canary.slow"}, {"arguments", {{"ms", 300 + i}}}}));
    }));
  }
  for (int i = 0; i < 3; ++i) {
    const McpReply reply = calls[static_cast<std::size_t>(i)].get();
    EXPECT_EQ(200, reply.http.status) << reply.describe();
    EXPECT_TRUE(reply.is_sse()) << reply.describe();
    EXPECT_EQ("slept " + std::to_string(300 + i), first_text(reply)) << reply.describe();
  }
  // Run one after another they would need 900 ms.
  EXPECT_LT(Clock::now() - started, 850ms);
}

TEST_F(HttpSse, ASlowToolDoesNotHoldUpOtherRequests) {
  SseStream slow = client().post_stream(rpc_request(50, "tools/call", {{"name", "canary.slow"}, {"arguments", {{"ms", 1500}}}}));
  ASSERT_EQ(200, slow.response().status) << slow.response().describe();
  McpHttpClient other = same_session();
  const auto started = Clock::now();
  const McpReply pong = other.call("ping");
  EXPECT_EQ(200, pong.http.status) << pong.describe();
  EXPECT_LT(Clock::now() - started, 500ms);
  const Collected slow_result = collect_until_response(slow, 50, 5s);
  ASSERT_TRUE(slow_result.response) << events_text(slow_result.events);
  EXPECT_EQ("slept 1500", string_at(*slow_result.response, "/result/content/0/text"));
}

// A stream written whole, answer and end, has nothing left to resume: the
// session keeps none of it (kept, every session would hold its answers up
// to the replay budget), and a resume says so.
TEST_F(HttpSse, AStreamWrittenWholeIsNotKeptForResuming) {
  const McpReply reply = client().call_tool("example.echo", {{"text", "delivered"}});
  ASSERT_TRUE(reply.is_sse()) << reply.describe();
  ASSERT_EQ("delivered", string_at(reply.response, "/result/content/0/text")) << reply.describe();
  const std::string priming_id = reply.events.front().id.value_or("");
  ASSERT_FALSE(priming_id.empty()) << reply.describe();
  // The server lets the stream go once its last write completes, which may
  // be a moment after the client read it.
  for (int attempt = 0;; ++attempt) {
    SseStream resumed = client().get_stream(priming_id);
    if (resumed.response().status == 404) {
      EXPECT_THAT(resumed.response().body, HasSubstr("written whole with its answer")) << resumed.response().describe();
      break;
    }
    ASSERT_LT(attempt, 50) << "the delivered stream was still kept: " << resumed.response().describe();
    std::this_thread::sleep_for(20ms);
  }
}

// The client drops its POST stream while the tool still runs; the result,
// produced while nothing is connected, comes on a later GET.
TEST_F(HttpSse, ResultProducedWhileDisconnectedIsReplayedOnResume) {
  std::string priming_id;
  {
    SseStream post = client().post_stream(rpc_request(60, "tools/call", {{"name", "canary.slow"}, {"arguments", {{"ms", 200}}}}));
    ASSERT_EQ(200, post.response().status) << post.response().describe();
    const std::optional<SseEvent> priming = post.next(2s);
    ASSERT_TRUE(priming && priming->id) << post.raw();
    priming_id = *priming->id;
  }  // disconnects
  std::this_thread::sleep_for(600ms);  // the result exists now, with no stream to take it
  SseStream resumed = client().get_stream(priming_id);
  ASSERT_EQ(200, resumed.response().status) << resumed.response().describe();
  const Collected got = collect_until_response(resumed, 60, 3s);
  ASSERT_TRUE(got.response) << "the result made while disconnected was lost:\n" << events_text(got.events);
  EXPECT_EQ("slept 200", string_at(*got.response, "/result/content/0/text"));
  EXPECT_TRUE(resumed.wait_end(2s));
}

// The tool ends its stream itself (SSE polling); the client comes back late.
TEST_F(HttpSse, ServerEndedStreamResumesWithTheResultAfterALateReconnect) {
  SseStream post = client().post_stream(rpc_request(70, "tools/call", {{"name", "interactive.reconnect"}, {"arguments", json::object{}}}));
  ASSERT_EQ(200, post.response().status) << post.response().describe();
  ASSERT_TRUE(post.is_event_stream()) << post.response().describe();
  const std::optional<SseEvent> priming = post.next(2s);
  ASSERT_TRUE(priming && priming->id) << post.raw();
  EXPECT_TRUE(priming->data.empty()) << priming->raw;
  EXPECT_TRUE(priming->retry) << priming->raw;
  // The server ends the stream before the result exists.
  ASSERT_TRUE(post.wait_end(2s)) << "the stream stayed open: " << post.raw();
  std::string last_id = *priming->id;
  while (std::optional<SseEvent> e = post.next(0ms)) {
    EXPECT_TRUE(e->data.find("\"result\"") == std::string::npos) << "result before the stream ended: " << e->raw;
    if (e->id) last_id = *e->id;
  }
  std::this_thread::sleep_for(500ms);  // late: the result was produced ~400 ms ago

  SseStream resumed = client().get_stream(last_id);
  ASSERT_EQ(200, resumed.response().status) << resumed.response().describe();
  const Collected got = collect_until_response(resumed, 70, 5s);
  ASSERT_TRUE(got.response) << events_text(got.events);
  EXPECT_EQ(kReconnectText, string_at(*got.response, "/result/content/0/text"));
  EXPECT_FALSE(is_tool_error(*got.response));
  EXPECT_TRUE(resumed.wait_end(2s)) << "the resumed stream did not end after the response";
}

TEST_F(HttpSse, ServerEndedStreamResumesWithTheResultOnAnEarlyReconnect) {
  SseStream post = client().post_stream(rpc_request(71, "tools/call", {{"name", "interactive.reconnect"}, {"arguments", json::object{}}}));
  const std::optional<SseEvent> priming = post.next(2s);
  ASSERT_TRUE(priming && priming->id) << post.raw();
  ASSERT_TRUE(post.wait_end(2s)) << post.raw();
  // At once: the result does not exist yet and arrives live.
  SseStream resumed = client().get_stream(*priming->id);
  ASSERT_EQ(200, resumed.response().status) << resumed.response().describe();
  const Collected got = collect_until_response(resumed, 71, 5s);
  ASSERT_TRUE(got.response) << events_text(got.events);
  EXPECT_EQ(kReconnectText, string_at(*got.response, "/result/content/0/text"));
}

TEST_F(HttpSse, ResumptionAcceptsTheOlderProtocolVersionHeaderTheSuiteSends) {
  client().set_protocol_header("2025-03-26");
  SseStream post = client().post_stream(rpc_request(72, "tools/call", {{"name", "interactive.reconnect"}, {"arguments", json::object{}}}));
  ASSERT_EQ(200, post.response().status) << post.response().describe();
  const std::optional<SseEvent> priming = post.next(2s);
  ASSERT_TRUE(priming && priming->id) << post.raw();
  ASSERT_TRUE(post.wait_end(2s)) << post.raw();
  std::this_thread::sleep_for(300ms);
  SseStream resumed = client().get_stream(*priming->id);
  ASSERT_EQ(200, resumed.response().status) << resumed.response().describe();
  const Collected got = collect_until_response(resumed, 72, 5s);
  ASSERT_TRUE(got.response) << events_text(got.events);
  EXPECT_EQ(kReconnectText, string_at(*got.response, "/result/content/0/text"));
}

TEST_F(HttpSse, ProgressNotificationsEchoTheTokenAndPrecedeTheResponse) {
  for (const json::value& token : {json::value(7), json::value("progress-test-1")}) {
    const McpReply reply = client().call(
        "tools/call", json::object{{"name", "interactive.progress"}, {"arguments", json::object{}}, {"_meta", {{"progressToken", token}}}});
    ASSERT_TRUE(reply.is_sse()) << reply.describe();
    std::vector<double> progress;
    bool response_seen = false;
    for (const Message& m : reply.messages) {
      if (string_at(m, "/method") == "notifications/progress") {
        EXPECT_FALSE(response_seen) << "progress after the response: " << m.line;
        const json::value* echoed = find(m, "/params/progressToken");
        ASSERT_NE(nullptr, echoed) << m.line;
        EXPECT_EQ(token, *echoed) << "token changed (type included): " << m.line;
        progress.push_back(find(m, "/params/progress")->to_number<double>());
      }
      if (m.line == reply.response.line) response_seen = true;
    }
    EXPECT_EQ((std::vector<double>{0, 50, 100}), progress) << reply.describe();
    EXPECT_EQ(token.is_string() ? "progress-test-1" : "7", first_text(reply)) << reply.describe();
  }
}

TEST_F(HttpSse, LogMessagesArriveOnTheCallsStreamHonouringSetLevel) {
  const McpReply info = client().call_tool("interactive.log", {{"level", "info"}});
  std::size_t logs = 0;
  for (const Message& m : info.others())
    if (string_at(m, "/method") == "notifications/message") ++logs;
  EXPECT_EQ(3u, logs) << info.describe();

  ASSERT_EQ(200, client().call("logging/setLevel", json::object{{"level", "error"}}).http.status);
  const McpReply quiet = client().call_tool("interactive.log", {{"level", "info"}});
  for (const Message& m : quiet.others())
    EXPECT_NE("notifications/message", string_at(m, "/method")) << "below the level set: " << m.line;
  EXPECT_EQ("Tool with logging executed successfully", first_text(quiet)) << quiet.describe();
}

TEST_F(HttpSse, SamplingRequestTravelsOnTheStreamAndItsAnswerOnASeparatePost) {
  McpHttpClient sampler(port());
  sampler.on_server_request = [](const Message& request) {
    EXPECT_EQ("sampling/createMessage", string_at(request, "/method")) << request.line;
    return json::object{{"result",
                         {{"role", "assistant"},
                          {"content", {{"type", "text"}, {"text", "from the test client"}}},
                          {"model", "test-model"},
                          {"stopReason", "endTurn"}}}};
  };
  // Sampling needs the capability, declared at initialize.
  const McpReply init = sampler.send(rpc_request(
      0, "initialize",
      {{"protocolVersion", "2025-11-25"},
       {"capabilities", {{"sampling", json::object{}}, {"elicitation", json::object{}}}},
       {"clientInfo", {{"name", "sampler"}, {"version", "0"}}}}));
  ASSERT_EQ(200, init.http.status) << init.describe();
  sampler.set_session_id(init.http.header_or_empty("mcp-session-id"));
  sampler.set_protocol_header("2025-11-25");
  ASSERT_EQ(202, sampler.notify("notifications/initialized").status);

  const McpReply reply = sampler.call_tool("interactive.sample", {{"prompt", "hello"}}, 10s);
  EXPECT_EQ("LLM response: from the test client", first_text(reply)) << reply.describe();
}

}  // namespace
}  // namespace airlock::test
