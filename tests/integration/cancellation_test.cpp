// Tool calls run concurrently with the session, a client that does not read
// is made to wait, and a cancelled call stops.
#include "integration.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

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

TEST(Concurrency, AnswersEveryPipelinedCallExactlyOnce) {
  TempConfig config(standard_config("[chains.default]\nsteps = [\"airlock.strip-control\"]\n"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  constexpr int kCalls = 200;
  std::map<std::int64_t, std::string> expected;
  std::string burst;
  for (int i = 0; i < kCalls; ++i) {
    const std::int64_t id = 1000 + i;
    expected[id] = "call " + std::to_string(i);
    burst += json::serialize(json::object{
        {"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
        {"params", {{"name", "example.echo"}, {"arguments", {{"text", expected[id]}}}}}});
    burst += '\n';
  }
  ASSERT_TRUE(client->process().write(burst));
  std::map<std::int64_t, int> answers;
  for (int i = 0; i < kCalls; ++i) {
    const std::optional<Message> m = client->next_message(5s);
    ASSERT_TRUE(m) << "only " << i << " of " << kCalls << " answers";
    const std::int64_t id = int_at(*m, "/id", -1);
    ++answers[id];
    EXPECT_EQ(expected[id], first_text(*m)) << m->line;
  }
  EXPECT_EQ(static_cast<std::size_t>(kCalls), answers.size());
  for (const auto& [id, count] : answers) EXPECT_EQ(1, count) << "id " << id;
}

// A client that sends calls faster than it reads their answers is made to
// wait, as a pipe makes a writer wait: the server stops reading once the
// answers it cannot write (and the calls it cannot start) hold about a
// MiB, instead of holding all it was sent. Nothing is lost meanwhile.
TEST(Backpressure, AClientThatSendsWithoutReadingIsMadeToWaitAndLosesNothing) {
  std::string toml = standard_config("[chains.default]\nsteps = [\"airlock.strip-control\"]\n");
  toml.replace(toml.find("max_message_bytes = 65536"), 25, "max_message_bytes = 1048576");
  TempConfig config(toml);
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  constexpr int kCalls = 96;
  const std::string text(200 * 1024, 'b');
  std::string burst;
  for (int i = 0; i < kCalls; ++i)
    burst += json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", 5000 + i}, {"method", "tools/call"},
                                          {"params", {{"name", "example.echo"}, {"arguments", {{"text", text}}}}}}) +
             "\n";

  // For a second, write what the server takes without reading an answer.
  const int in = client->process().stdin_fd();
  const int flags = ::fcntl(in, F_GETFL);
  ASSERT_EQ(0, ::fcntl(in, F_SETFL, flags | O_NONBLOCK));
  std::size_t taken = 0;
  for (const auto until = Clock::now() + 1s; taken < burst.size() && Clock::now() < until;) {
    const ssize_t n = ::write(in, burst.data() + taken, burst.size() - taken);
    if (n > 0) {
      taken += static_cast<std::size_t>(n);
    } else {
      ASSERT_EQ(EAGAIN, errno);
      pollfd out{in, POLLOUT, 0};
      ::poll(&out, 1, 10);
    }
  }
  ASSERT_EQ(0, ::fcntl(in, F_SETFL, flags));
  // What the pipes hold, a MiB of answers, another of calls waiting, the
  // calls running and a chunk every 50 ms: a quarter of the burst at most.
  EXPECT_LT(taken, burst.size() / 4) << "the server read " << taken << " of " << burst.size() << " bytes";

  std::thread rest([&] { EXPECT_TRUE(client->process().write(std::string_view(burst).substr(taken))); });
  std::set<std::int64_t> answered;
  for (int i = 0; i < kCalls; ++i) {
    const std::optional<Message> m = client->next_message(10s);
    ASSERT_TRUE(m) << "only " << i << " of " << kCalls << " answers; stderr:\n" << client->stderr_text();
    EXPECT_EQ(text, first_text(*m)) << m->line.substr(0, 200);
    answered.insert(int_at(*m, "/id", -1));
  }
  rest.join();
  EXPECT_EQ(static_cast<std::size_t>(kCalls), answered.size());
}

// Over stdio a tool whose calls have been cheap runs on the thread that read
// it, in a batch with the cheap calls read with it, while the other reading
// thread goes on reading. When such a tool turns slow, the call read behind
// it in the same batch must not wait for it, and stdin must still be read.
TEST(Concurrency, ACheapToolTurnedSlowHoldsUpNeitherTheCallsBehindItNorReading) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  // Enough cheap calls of both tools for them to count as cheap.
  for (int i = 0; i < 40; ++i) {
    ASSERT_EQ("slept 0", first_text(client->call_tool("canary.slow", json::object{{"ms", 0}})));
    ASSERT_EQ("warm", first_text(client->call_tool("example.echo", json::object{{"text", "warm"}})));
  }

  auto call = [](std::int64_t id, std::string_view tool, json::object arguments) {
    return json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
                                        {"params", {{"name", tool}, {"arguments", std::move(arguments)}}}}) +
           "\n";
  };
  const auto sent = Clock::now();
  ASSERT_TRUE(client->process().write(call(9001, "canary.slow", {{"ms", 1500}}) +
                                      call(9002, "example.echo", {{"text", "behind the slow one"}})));
  std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(client->process().write(R"({"jsonrpc":"2.0","id":9003,"method":"ping"})" "\n"));

  std::map<std::int64_t, Clock::duration> answered;
  while (answered.size() < 3) {
    const std::optional<Message> m = client->next_message(5s);
    ASSERT_TRUE(m) << "only " << answered.size() << " of 3 answers; stderr:\n" << client->stderr_text();
    const std::int64_t id = int_at(*m, "/id", -1);
    if (id == 9001) {
      EXPECT_EQ("slept 1500", first_text(*m)) << m->line;
    }
    if (id == 9002) {
      EXPECT_EQ("behind the slow one", first_text(*m)) << m->line;
    }
    answered[id] = Clock::now() - sent;
  }
  EXPECT_LT(answered[9002], 1000ms) << "the call behind the slow one waited for it";
  EXPECT_LT(answered[9003], 1000ms) << "stdin was not read while the slow call ran";
  EXPECT_GE(answered[9001], 1500ms);
}

// Context switches of every thread of process `pid` so far.
long context_switches(pid_t pid) {
  long total = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream status(task.path() / "status");
    for (std::string line; std::getline(status, line);)
      if (line.starts_with("voluntary_ctxt_switches:") || line.starts_with("nonvoluntary_ctxt_switches:"))
        total += std::stol(line.substr(line.find(':') + 1));
  }
  return total;
}

// While batches of cheap calls run, the thread that does not read wakes
// once a millisecond to watch them; once they stop it must sleep until the
// next batch, not go on waking a thousand times a second for nothing.
TEST(Concurrency, AnIdleServerSleepsAfterABurstOfCheapCalls) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  for (int round = 0; round < 5; ++round) {
    std::vector<json::value> ids;
    for (int i = 0; i < 40; ++i)
      ids.push_back(client->request("tools/call", {{"name", "example.echo"}, {"arguments", {{"text", "burst"}}}}));
    for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_TRUE(client->next_message(5s)) << client->stderr_text();
  }
  std::this_thread::sleep_for(100ms);  // past the watch's last interval
  const pid_t pid = client->process().pid();
  const long before = context_switches(pid);
  std::this_thread::sleep_for(1s);
  EXPECT_LT(context_switches(pid) - before, 50) << "the idle server kept waking";
  // And it still serves, batch and all.
  EXPECT_EQ("awake", first_text(client->call_tool("example.echo", json::object{{"text", "awake"}})));
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

TEST(EndOfInput, StillAnswersCallsSentBeforeIt) {
  // `printf '...' | airlock serve` must print every answer before exiting.
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = serve(config.path());
  client->send_line(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}})");
  client->send_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  client->send_line(
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"canary.slow","arguments":{"ms":300}}})");
  client->send_line(
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"example.echo","arguments":{"text":"piped"}}})");
  EXPECT_EQ(0, client->finish(3s)) << client->stderr_text();
  const std::optional<Message> slow = client->wait_response(2, 0ms);
  ASSERT_TRUE(slow) << "no answer to the slow call sent before EOF";
  EXPECT_EQ("slept 300", first_text(*slow)) << slow->line;
  const std::optional<Message> echo = client->wait_response(3, 0ms);
  ASSERT_TRUE(echo) << "no answer to the echo sent before EOF";
  EXPECT_EQ("piped", first_text(*echo)) << echo->line;
}

}  // namespace
}  // namespace airlock::test
