// Tests for one MCP session driven directly: lifecycle, the method table,
// tools/list paging and scope, tools/call admission, cancellation and close,
// and what a running call says to the client (progress, logs, requests to the
// client and their answers fed back through handle()). Tool calls run the
// real canary and interactive tools on a real Executor; a single worker plus
// a long canary.slow call is how a test holds later calls in the queue.
#include "mcp/session.hpp"

#include "pipeline/result_pipeline.hpp"
#include "test_server.hpp"

#include <fmt/format.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canary.h"

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace airlock::host {
namespace {

using namespace std::chrono_literals;
using testing::ElementsAre;
using testing::HasSubstr;
using Clock = std::chrono::steady_clock;

// The server settings these tests turn.
struct ServerOptions {
  std::uint32_t workers = 2;
  std::size_t queue_capacity = 16;
  std::uint32_t page_size = 100;
  std::vector<std::string> default_chain{};  // empty: no chain
  std::optional<std::uint32_t> timeout_ms{};  // bound to every tool when set
  std::vector<std::string> fixtures{"canary"};  // the fixture plugins loaded
};

// Everything a session shares with its server, built from the canary fixture.
class Server : public unit::TestServer {
 public:
  explicit Server(const ServerOptions& options = {}) : TestServer(translate(options)) {}

 private:
  static unit::TestServerOptions translate(const ServerOptions& options) {
    return {.fixtures = options.fixtures,
            .workers = options.workers,
            .queue_capacity = options.queue_capacity,
            .deadline_timer = true,
            .configure = [options](Config& config) {
              config.server.name = "unit-airlock";
              config.server.page_size = options.page_size;
              if (!options.default_chain.empty()) {
                ChainConfig chain;
                chain.name = "default";
                chain.steps = options.default_chain;
                config.chains.emplace("default", std::move(chain));
              }
              if (options.timeout_ms) {
                ToolBinding binding;
                binding.pattern = "*";
                binding.timeout_ms = options.timeout_ms;
                config.tools.push_back(std::move(binding));
              }
            }};
  }
};

// One message the session sent, with where it said it belongs.
struct Sent {
  boost::json::object message;
  std::string request;  // Outbound::request
  bool final = false;   // Outbound::final
};

// Collects what the session sends, from any thread.
class Outbox {
 public:
  Session::Send sender() {
    return [this](std::string message, Outbound where) {
      if (message.empty()) {  // a request that will not be answered
        EXPECT_TRUE(where.final);
        return;
      }
      EXPECT_EQ(message.find('\n'), std::string::npos) << "a message must be one line: " << message;
      boost::json::object parsed = boost::json::parse(message).as_object();
      {
        std::lock_guard lock(mutex_);
        sent_.push_back(Sent{parsed, std::string(where.request), where.final});
        messages_.push_back(std::move(parsed));
      }
      arrived_.notify_all();
    };
  }

  std::vector<boost::json::object> messages() const {
    std::lock_guard lock(mutex_);
    return messages_;
  }

  std::vector<Sent> sent() const {
    std::lock_guard lock(mutex_);
    return sent_;
  }

  // Every message answering `id`.
  std::vector<boost::json::object> for_id(const boost::json::value& id) const {
    std::vector<boost::json::object> out;
    for (auto& m : messages())
      if (m.contains("id") && !m.contains("method") && m.at("id") == id) out.push_back(m);
    return out;
  }

  // Every message (a notification or a request to the client) with `method`.
  std::vector<Sent> with_method(std::string_view method) const {
    std::vector<Sent> out;
    for (auto& s : sent())
      if (s.message.contains("method") && s.message.at("method").as_string() == method) out.push_back(s);
    return out;
  }

  // The first message with `method`, waiting up to `timeout` for it.
  std::optional<Sent> wait_for_method(std::string_view method, std::chrono::milliseconds timeout = 5s) {
    std::unique_lock lock(mutex_);
    std::optional<Sent> found;
    arrived_.wait_for(lock, timeout, [&] {
      for (const auto& s : sent_)
        if (s.message.contains("method") && s.message.at("method").as_string() == method) {
          found = s;
          return true;
        }
      return false;
    });
    return found;
  }

  // The first message answering `id`, waiting up to `timeout` for it.
  std::optional<boost::json::object> wait_for(const boost::json::value& id, std::chrono::milliseconds timeout = 5s) {
    std::unique_lock lock(mutex_);
    std::optional<boost::json::object> found;
    arrived_.wait_for(lock, timeout, [&] {
      for (const auto& m : messages_)
        if (m.contains("id") && !m.contains("method") && m.at("id") == id) {
          found = m;
          return true;
        }
      return false;
    });
    return found;
  }

 private:
  mutable std::mutex mutex_;  // guards messages_ and sent_
  std::condition_variable arrived_;
  std::vector<boost::json::object> messages_;
  std::vector<Sent> sent_;
};

std::string request(const boost::json::value& id, std::string_view method, boost::json::value params = nullptr) {
  boost::json::object m{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) m["params"] = std::move(params);
  return boost::json::serialize(m);
}

std::string notification(std::string_view method, boost::json::object params) {
  return boost::json::serialize(boost::json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
}

std::string call(const boost::json::value& id, std::string_view tool, boost::json::object arguments = {}) {
  return request(id, "tools/call", boost::json::object{{"name", tool}, {"arguments", std::move(arguments)}});
}

std::string slow(const boost::json::value& id, int ms) { return call(id, "canary.slow", {{"ms", ms}}); }

std::string cancel(const boost::json::value& id) {
  return notification("notifications/cancelled", {{"requestId", id}, {"reason", "test"}});
}

void initialize(Session& session, Outbox& outbox, boost::json::object capabilities = {}) {
  session.handle(request("init", "initialize", boost::json::object{{"protocolVersion", "2025-11-25"},
                                                                   {"capabilities", std::move(capabilities)},
                                                                   {"clientInfo", {{"name", "t"}, {"version", "1"}}}}));
  ASSERT_TRUE(outbox.wait_for("init").has_value());
  ASSERT_TRUE(outbox.wait_for("init")->contains("result"));
}

// The answer to a request handled synchronously (everything but tools/call).
boost::json::object answer(Session& session, Outbox& outbox, const boost::json::value& id, const std::string& text) {
  session.handle(text);
  auto m = outbox.wait_for(id, 0ms);
  if (!m) throw std::runtime_error("no answer to " + text);
  return *m;
}

std::int64_t error_code(const boost::json::object& m) { return m.at("error").at("code").to_number<std::int64_t>(); }
std::string error_message(const boost::json::object& m) { return std::string(m.at("error").at("message").as_string()); }
std::string first_text(const boost::json::object& m) {
  return std::string(m.at("result").at("content").at(0).at("text").as_string());
}

// --- lifecycle

TEST(Session, NegotiatesTheClientsProtocolVersionWhenItSpeaksIt) {
  Server server;
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  const auto m = answer(session, outbox, 1,
                        request(1, "initialize", boost::json::object{{"protocolVersion", "2025-06-18"}}));
  EXPECT_EQ(m.at("jsonrpc"), "2.0");
  EXPECT_EQ(m.at("result"), boost::json::parse(R"({"protocolVersion":"2025-06-18",
      "capabilities":{"tools":{"listChanged":true},"logging":{}},
      "serverInfo":{"name":"unit-airlock","version":"9.9.9"}})"));
}

TEST(Session, OffersItsLatestVersionForOneItDoesNotSpeak) {
  Server server;
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  const auto m = answer(session, outbox, 1,
                        request(1, "initialize", boost::json::object{{"protocolVersion", "1999-01-01"}}));
  EXPECT_EQ(m.at("result").at("protocolVersion"), "2025-11-25");
}

TEST(Session, RefusesAnInitializeWithoutProtocolVersionAndStaysUninitialized) {
  Server server;
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  auto m = answer(session, outbox, 1, request(1, "initialize", boost::json::object{{"protocolVersion", 20251125}}));
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidParams);
  m = answer(session, outbox, 2, request(2, "initialize"));
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidParams);
  m = answer(session, outbox, 3, request(3, "tools/list"));
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidRequest);
  EXPECT_THAT(error_message(m), HasSubstr("server not initialized"));
}

// A session over stdio-like plumbing that has already been initialized: the
// starting point of most tests below.
class InitializedSession : public ::testing::Test {
 protected:
  InitializedSession() { initialize(session, outbox); }

  Server server;
  Outbox outbox;
  Session session{server.state(), outbox.sender()};
};

TEST_F(InitializedSession, RefusesASecondInitialize) {
  const auto m = answer(session, outbox, 2,
                        request(2, "initialize", boost::json::object{{"protocolVersion", "2025-11-25"}}));
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidRequest);
  EXPECT_THAT(error_message(m), HasSubstr("already initialized"));
}

TEST(Session, RefusesToolMethodsBeforeInitializeButAnswersPing) {
  Server server;
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  auto m = answer(session, outbox, 1, request(1, "tools/list"));
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidRequest);
  EXPECT_THAT(error_message(m), HasSubstr("server not initialized: send initialize before tools/list"));
  m = answer(session, outbox, 2, call(2, "canary.echo", {{"text", "x"}}));
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidRequest);
  EXPECT_THAT(error_message(m), HasSubstr("server not initialized"));
  m = answer(session, outbox, 3, request(3, "ping"));
  EXPECT_EQ(m.at("result"), boost::json::object{});
}

// --- the method table

TEST_F(InitializedSession, AnswersAnUnknownMethodWithMethodNotFound) {
  const auto m = answer(session, outbox, "r", request("r", "resources/list"));
  EXPECT_EQ(error_code(m), jsonrpc::kMethodNotFound);
  EXPECT_THAT(error_message(m), HasSubstr("resources/list"));
}

TEST(Session, AnswersTextThatIsNotJsonWithAParseErrorForNullId) {
  Server server;
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  const auto m = answer(session, outbox, nullptr, R"({"jsonrpc":"2.0","id":1,"method":)");
  EXPECT_EQ(error_code(m), jsonrpc::kParseError);
}

TEST_F(InitializedSession, SendsNothingForNotificationsOrResponses) {
  session.handle(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  session.handle(R"({"jsonrpc":"2.0","method":"notifications/whatever","params":{}})");
  session.handle(R"({"jsonrpc":"2.0","id":"s1","result":{}})");
  session.handle(cancel(12345));
  EXPECT_EQ(outbox.messages().size(), 1u);  // the initialize answer only
}

// --- tools/list

TEST_F(InitializedSession, ListsEveryToolOnOnePageByDefault) {
  const auto m = answer(session, outbox, 1, request(1, "tools/list"));
  const auto& tools = m.at("result").at("tools").as_array();
  ASSERT_EQ(tools.size(), 4u);
  EXPECT_FALSE(m.at("result").as_object().contains("nextCursor"));
  EXPECT_EQ(tools[0].at("name"), "canary.echo");
  EXPECT_EQ(tools[0].at("inputSchema"),
            boost::json::parse(R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})"));
}

TEST(Session, PagesToolsListWithOpaqueCursors) {
  Server server({.page_size = 1});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  std::vector<std::string> names;
  boost::json::value cursor = nullptr;
  for (int page = 0; page < 10; ++page) {
    boost::json::object params;
    if (!cursor.is_null()) params["cursor"] = cursor;
    const auto m = answer(session, outbox, page, request(page, "tools/list", params));
    const auto& result = m.at("result").as_object();
    ASSERT_EQ(result.at("tools").as_array().size(), 1u) << boost::json::serialize(m);
    names.emplace_back(result.at("tools").at(0).at("name").as_string());
    if (!result.contains("nextCursor")) break;
    ASSERT_TRUE(result.at("nextCursor").is_string());
    cursor = result.at("nextCursor");
  }
  EXPECT_THAT(names, ElementsAre("canary.echo", "canary.slow", "canary.structured", "canary.throws"));
}

TEST(Session, TreatsANullCursorAsTheFirstPage) {
  Server server({.page_size = 1});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  const auto m = answer(session, outbox, 1, request(1, "tools/list", boost::json::object{{"cursor", nullptr}}));
  EXPECT_EQ(m.at("result").at("tools").at(0).at("name"), "canary.echo");
}

TEST(Session, RefusesACursorItDidNotMake) {
  Server server({.page_size = 1});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  int id = 100;
  for (const boost::json::value& cursor :
       {boost::json::value("bogus"), boost::json::value("o"), boost::json::value("o99"), boost::json::value("o-1"),
        boost::json::value("o1x"), boost::json::value(""), boost::json::value(1), boost::json::value(true)}) {
    ++id;
    const auto m = answer(session, outbox, id, request(id, "tools/list", boost::json::object{{"cursor", cursor}}));
    ASSERT_TRUE(m.contains("error")) << boost::json::serialize(cursor);
    EXPECT_EQ(error_code(m), jsonrpc::kInvalidParams) << boost::json::serialize(cursor);
    EXPECT_THAT(error_message(m), HasSubstr("invalid cursor"));
  }
}

// --- tools/call admission

TEST_F(InitializedSession, AnswersAToolCallWithTheResultUnderItsId) {
  session.handle(call("call-1", "canary.echo", {{"text", "hi"}}));
  const auto m = outbox.wait_for("call-1");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(first_text(*m), "hi " AIRLOCK_CANARY);
  EXPECT_FALSE(m->at("result").as_object().contains("isError"));
}

TEST_F(InitializedSession, AnswersAThrowingToolWithAnIsErrorResult) {
  session.handle(call(1, "canary.throws"));
  const auto m = outbox.wait_for(1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->at("result").at("isError"), true);
  EXPECT_EQ(first_text(*m), "boom " AIRLOCK_CANARY);
}

TEST(Session, PassesEveryResultThroughTheToolsChain) {
  Server server({.default_chain = {"canary.redact"}});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  session.handle(call(1, "canary.echo", {{"text", "hi"}}));
  const auto m = outbox.wait_for(1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(first_text(*m), "hi [redacted]");
}

TEST(Session, WithholdsAResultItsChainFails) {
  Server server({.default_chain = {"canary.fail"}});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  session.handle(call(1, "canary.echo", {{"text", "hi"}}));
  const auto m = outbox.wait_for(1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(first_text(*m), kWithheldText);
  EXPECT_THAT(boost::json::serialize(*m), testing::Not(HasSubstr("7f3a9c")));
}

TEST_F(InitializedSession, RefusesACallToAnUnknownTool) {
  const auto m = answer(session, outbox, 1, call(1, "nope.tool"));
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidParams);
  EXPECT_THAT(error_message(m), HasSubstr("unknown tool: nope.tool"));
}

TEST_F(InitializedSession, RefusesACallWithoutAToolName) {
  auto m = answer(session, outbox, 1, request(1, "tools/call"));
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidParams);
  m = answer(session, outbox, 2, request(2, "tools/call", boost::json::object{{"name", 5}}));
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidParams);
  EXPECT_THAT(error_message(m), HasSubstr("params.name must be a string"));
}

TEST_F(InitializedSession, RefusesArgumentsThatAreNotAnObject) {
  int id = 0;
  for (const boost::json::value& arguments :
       {boost::json::value(boost::json::array{1}), boost::json::value("text"), boost::json::value(3)}) {
    ++id;
    const auto m = answer(session, outbox, id,
                          request(id, "tools/call", boost::json::object{{"name", "canary.echo"}, {"arguments", arguments}}));
    EXPECT_EQ(error_code(m), jsonrpc::kInvalidParams) << boost::json::serialize(arguments);
    EXPECT_THAT(error_message(m), HasSubstr("params.arguments must be an object"));
  }
}

TEST_F(InitializedSession, GivesTheToolEmptyArgumentsWhenTheyAreNull) {
  session.handle(request(1, "tools/call", boost::json::object{{"name", "canary.structured"}, {"arguments", nullptr}}));
  const auto m = outbox.wait_for(1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->at("result").at("structuredContent").at("n"), 1);
}

TEST(Session, RefusesAnIdAlreadyUsedByACallInFlight) {
  Server server({.workers = 1});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  session.handle(slow(5, 10000));
  const auto m = answer(session, outbox, 5, slow(5, 1));
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidRequest);
  EXPECT_THAT(error_message(m), HasSubstr("id 5 is already in use"));
  session.handle(cancel(5));
  session.close();
  EXPECT_EQ(outbox.for_id(5).size(), 1u);  // the refusal only
}

// The worker answers a call before it forgets the call's id, so the answer
// alone does not prove the id is free. With one worker, the answer to a later
// call does: the worker finished the first job before it took the second.
TEST(Session, AcceptsAnIdAgainOnceItsCallFinished) {
  Server server({.workers = 1});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  session.handle(call(8, "canary.echo", {{"text", "a"}}));
  session.handle(call(9, "canary.echo", {{"text", "b"}}));
  ASSERT_TRUE(outbox.wait_for(9).has_value());
  session.handle(call(8, "canary.echo", {{"text", "c"}}));
  session.close(5s);
  const auto answers = outbox.for_id(8);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(first_text(answers[0]), "a " AIRLOCK_CANARY);
  ASSERT_TRUE(answers[1].contains("result")) << boost::json::serialize(answers[1]);
  EXPECT_EQ(first_text(answers[1]), "c " AIRLOCK_CANARY);
}

TEST(Session, KeepsIntegerAndStringIdsApart) {
  Server server({.workers = 1});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  session.handle(slow(1, 10000));
  session.handle(slow("1", 1));  // queued behind the integer id, not refused
  EXPECT_TRUE(outbox.for_id("1").empty());
  session.handle(cancel(1));
  const auto m = outbox.wait_for("1");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(first_text(*m), "slept 1");
  session.close();
  EXPECT_TRUE(outbox.for_id(1).empty());
}

TEST(Session, AnswersServerBusyWhenTheQueueIsFullAndFreesTheId) {
  Server server({.workers = 1, .queue_capacity = 0});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  auto m = answer(session, outbox, 1, call(1, "canary.echo", {{"text", "x"}}));
  EXPECT_EQ(error_code(m), jsonrpc::kServerBusy);
  session.handle(call(1, "canary.echo", {{"text", "x"}}));
  const auto answers = outbox.for_id(1);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(error_code(answers[1]), jsonrpc::kServerBusy);  // not "already in use"
}

// --- cancellation and close

TEST(Session, NeverAnswersACallCancelledWhileItWaitsInTheQueue) {
  Server server({.workers = 1});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  session.handle(slow(1, 10000));  // holds the only worker
  session.handle(slow(2, 1));      // waits behind it
  session.handle(slow(3, 1));      // and behind that one
  session.handle(cancel(2));
  session.handle(cancel(1));
  // The worker takes 2 before 3, so once 3 answers, 2 has been dropped.
  const auto third = outbox.wait_for(3);
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(first_text(*third), "slept 1");
  session.close();
  EXPECT_TRUE(outbox.for_id(1).empty());
  EXPECT_TRUE(outbox.for_id(2).empty());
}

TEST(Session, NeverAnswersACallCancelledWhileItRuns) {
  Server server({.workers = 1});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  const auto start = Clock::now();
  session.handle(slow("long", 10000));
  session.handle(cancel("long"));
  session.close();
  EXPECT_LT(Clock::now() - start, 3s);
  EXPECT_TRUE(outbox.for_id("long").empty());
}

TEST_F(InitializedSession, CloseLetsACallFinishWithinTheGrace) {
  session.handle(slow(1, 30));
  session.close(5s);
  const auto answers = outbox.for_id(1);  // present as soon as close returns
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(first_text(answers[0]), "slept 30");
}

TEST_F(InitializedSession, CloseCancelsACallStillRunningAfterTheGrace) {
  session.handle(slow(1, 10000));
  const auto start = Clock::now();
  session.close(50ms);
  const auto took = Clock::now() - start;
  EXPECT_GE(took, 50ms);
  EXPECT_LT(took, 3s);
  EXPECT_TRUE(outbox.for_id(1).empty());
}

// --- timeout_ms

TEST(Session, AnswersACallPastItsTimeoutOnceWithAToolError) {
  Server server({.timeout_ms = 50});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  const auto start = Clock::now();
  session.handle(slow(1, 10000));
  const auto m = outbox.wait_for(1);
  ASSERT_TRUE(m.has_value());
  EXPECT_GE(Clock::now() - start, 50ms);
  EXPECT_EQ(m->at("result").at("isError"), true);
  EXPECT_THAT(first_text(*m), HasSubstr("timed out after 50 ms"));
  session.close();  // the tool saw the cancellation and stopped
  EXPECT_LT(Clock::now() - start, 3s);
  EXPECT_EQ(outbox.for_id(1).size(), 1u);
}

TEST(Session, AnswersACallThatBeatsItsTimeoutWithItsResultOnly) {
  Server server({.timeout_ms = 5000});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  session.handle(slow(1, 1));
  ASSERT_TRUE(outbox.wait_for(1).has_value());
  session.close();
  const auto answers = outbox.for_id(1);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(first_text(answers[0]), "slept 1");
}

// With the shortest timeout and a queue that takes nothing, the deadline and
// the busy answer race (about 1 run in 100 caught the double answer at 50
// calls, before the fix); whichever wins, the client hears about the call once.
TEST(Session, AnswersARefusedCallOnceEvenWhenItsDeadlineFires) {
  Server server({.workers = 1, .queue_capacity = 0, .timeout_ms = 1});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox);
  for (int id = 1; id <= 200; ++id) session.handle(slow(id, 1));
  session.close();
  std::this_thread::sleep_for(20ms);  // time for a stray deadline to fire, were one left
  for (int id = 1; id <= 200; ++id) EXPECT_EQ(outbox.for_id(id).size(), 1u) << "id " << id;
}

// --- accessors, logging/setLevel, ping

TEST(Session, ReportsTheNegotiatedVersionOnceInitialized) {
  Server server;
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  EXPECT_FALSE(session.initialized());
  EXPECT_EQ(session.protocol_version(), "");
  answer(session, outbox, 1, request(1, "initialize", boost::json::object{{"protocolVersion", "2025-06-18"}}));
  EXPECT_TRUE(session.initialized());
  EXPECT_EQ(session.protocol_version(), "2025-06-18");
}

TEST_F(InitializedSession, AnswersSetLevelAndPingWithExactlyAnEmptyObject) {
  auto m = answer(session, outbox, 1, request(1, "logging/setLevel", boost::json::object{{"level", "debug"}}));
  EXPECT_EQ(m.at("result"), boost::json::object{});
  m = answer(session, outbox, 2, request(2, "ping"));
  EXPECT_EQ(m.at("result"), boost::json::object{});
}

TEST_F(InitializedSession, RefusesALevelMcpDoesNotDefineNamingIt) {
  auto m = answer(session, outbox, 1, request(1, "logging/setLevel", boost::json::object{{"level", "verbose"}}));
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidParams);
  EXPECT_THAT(error_message(m), HasSubstr("invalid level \"verbose\""));
  m = answer(session, outbox, 2, request(2, "logging/setLevel", boost::json::object{{"level", 3}}));
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidParams);
  EXPECT_THAT(error_message(m), HasSubstr("invalid level 3"));
  m = answer(session, outbox, 3, request(3, "logging/setLevel", boost::json::object{}));
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidParams);
  EXPECT_THAT(error_message(m), HasSubstr("params.level is missing"));
}

// --- tool scope

TEST(Session, ScopeHidesToolsFromTheListAndPagesOverTheRest) {
  Server server({.page_size = 1});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  session.set_tool_scope([](std::string_view name) { return name != "canary.slow"; });
  initialize(session, outbox);
  std::vector<std::string> names;
  boost::json::value cursor = nullptr;
  for (int page = 0; page < 10; ++page) {
    boost::json::object params;
    if (!cursor.is_null()) params["cursor"] = cursor;
    const auto m = answer(session, outbox, page, request(page, "tools/list", params));
    const auto& result = m.at("result").as_object();
    ASSERT_EQ(result.at("tools").as_array().size(), 1u) << boost::json::serialize(m);
    names.emplace_back(result.at("tools").at(0).at("name").as_string());
    if (!result.contains("nextCursor")) break;
    cursor = result.at("nextCursor");
  }
  EXPECT_THAT(names, ElementsAre("canary.echo", "canary.structured", "canary.throws"));
  const auto m = answer(session, outbox, 50, request(50, "tools/list", boost::json::object{{"cursor", "o4"}}));
  EXPECT_THAT(error_message(m), HasSubstr("invalid cursor")) << "an offset past the tools in scope";
}

TEST(Session, RefusesAToolOutsideItsScopeExactlyLikeAnUnknownOne) {
  Server scoped_server;
  Outbox scoped_outbox;
  Session scoped(scoped_server.state(), scoped_outbox.sender());
  scoped.set_tool_scope([](std::string_view name) { return name == "canary.echo"; });
  initialize(scoped, scoped_outbox);
  const auto hidden = answer(scoped, scoped_outbox, 1, call(1, "canary.structured"));
  const auto unknown = answer(scoped, scoped_outbox, 2, call(2, "nope.tool"));
  EXPECT_EQ(error_code(hidden), error_code(unknown));
  EXPECT_EQ(error_message(hidden), "tools/call: unknown tool: canary.structured");
  scoped.handle(call(3, "canary.echo", {{"text", "in"}}));
  ASSERT_TRUE(scoped_outbox.wait_for(3).has_value());
  EXPECT_EQ(first_text(*scoped_outbox.wait_for(3)), "in " AIRLOCK_CANARY);
}

// --- talking to the client during a call (ABI 1.2), with the interactive fixture

class InteractiveSession : public ::testing::Test {
 protected:
  explicit InteractiveSession(boost::json::object capabilities = {}) { initialize(session, outbox, std::move(capabilities)); }

  // tools/call with params._meta = `meta` when given.
  static std::string call_with_meta(const boost::json::value& id, std::string_view tool, boost::json::object arguments,
                                    boost::json::object meta) {
    return request(id, "tools/call",
                   boost::json::object{{"name", tool}, {"arguments", std::move(arguments)}, {"_meta", std::move(meta)}});
  }

  // The messages sent for the call keyed `key` (its id as JSON text), in order.
  std::vector<Sent> for_call(std::string_view key) const {
    std::vector<Sent> out;
    for (auto& s : outbox.sent())
      if (s.request == key) out.push_back(s);
    return out;
  }

  Server server{{.fixtures = {"interactive"}}};
  Outbox outbox;
  Session session{server.state(), outbox.sender()};
};

class ClientWithSamplingAndRoots : public InteractiveSession {
 protected:
  ClientWithSamplingAndRoots()
      : InteractiveSession({{"sampling", boost::json::object{}}, {"roots", {{"listChanged", true}}}}) {}

  // Answers the one request to the client with `method`, once it is sent.
  boost::json::object answer_client_request(std::string_view method, std::string_view member, boost::json::value body) {
    const auto sent = outbox.wait_for_method(method);
    if (!sent) throw std::runtime_error("the session sent no " + std::string(method));
    boost::json::object response{{"jsonrpc", "2.0"}, {"id", sent->message.at("id")}, {member, std::move(body)}};
    session.handle(boost::json::serialize(response));
    return sent->message;
  }
};

TEST_F(InteractiveSession, EchoesANumericProgressTokenAsANumberBeforeTheResponse) {
  session.handle(call_with_meta(7, "interactive.progress", {}, {{"progressToken", 7}}));
  const auto response = outbox.wait_for(7);
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(first_text(*response), "7");
  const auto sent = for_call("7");
  ASSERT_EQ(sent.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(sent[i].message,
              boost::json::parse(fmt::format(R"({{"jsonrpc":"2.0","method":"notifications/progress","params":
                  {{"progressToken":7,"progress":{0},"total":100,"message":"Completed step {0} of 100"}}}})",
                                             i * 50)))
        << boost::json::serialize(sent[i].message);
    EXPECT_FALSE(sent[i].final);
  }
  EXPECT_EQ(sent[3].message.at("id"), 7);
  EXPECT_TRUE(sent[3].final);
}

TEST_F(InteractiveSession, EchoesAStringProgressTokenAsAString) {
  session.handle(call_with_meta("c", "interactive.progress", {}, {{"progressToken", "tok-1"}}));
  const auto response = outbox.wait_for("c");
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(first_text(*response), "tok-1");
  const auto progress = outbox.with_method("notifications/progress");
  ASSERT_EQ(progress.size(), 3u);
  for (const auto& p : progress) EXPECT_EQ(p.message.at("params").at("progressToken"), "tok-1");
}

TEST_F(InteractiveSession, SendsNoProgressWithoutATokenOrWithOneOfAnotherType) {
  session.handle(call(1, "interactive.progress"));
  session.handle(call_with_meta(2, "interactive.progress", {}, {{"progressToken", 1.5}}));
  session.handle(call_with_meta(3, "interactive.progress", {}, {{"other", 1}}));
  for (int id = 1; id <= 3; ++id) {
    const auto response = outbox.wait_for(id);
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(first_text(*response), "no token");
  }
  EXPECT_TRUE(outbox.with_method("notifications/progress").empty());
}

TEST_F(InteractiveSession, RefusesProgressThatDoesNotIncreaseAndSendsOnlyTheRest) {
  session.handle(call_with_meta(1, "interactive.report", {{"values", {1, 1, 0.5, 2.5}}, {"total", 0}}, {{"progressToken", 1}}));
  const auto response = outbox.wait_for(1);
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->at("result").at("structuredContent").at("statuses"),
            boost::json::parse("[0, 4, 4, 0]"));  // OK, INVALID_ARGUMENT, INVALID_ARGUMENT, OK
  const auto progress = outbox.with_method("notifications/progress");
  ASSERT_EQ(progress.size(), 2u);
  EXPECT_EQ(progress[0].message.at("params"), boost::json::parse(R"({"progressToken":1,"progress":1})"))
      << "total 0 and an empty message are left out";
  EXPECT_EQ(progress[1].message.at("params").at("progress").to_number<double>(), 2.5);
}

TEST_F(InteractiveSession, RefusesNonIncreasingProgressEvenWhenNoTokenWasSent) {
  session.handle(call(1, "interactive.report", {{"values", {3, 2}}}));
  const auto response = outbox.wait_for(1);
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->at("result").at("structuredContent").at("statuses"), boost::json::parse("[0, 4]"));
}

TEST_F(InteractiveSession, LogsAtInfoAndAboveBeforeAnySetLevel) {
  session.handle(call(1, "interactive.log", {{"level", "debug"}}));
  ASSERT_TRUE(outbox.wait_for(1).has_value());
  EXPECT_TRUE(outbox.with_method("notifications/message").empty());
  session.handle(call(2, "interactive.log"));
  const auto response = outbox.wait_for(2);
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(first_text(*response), "Tool with logging executed successfully");
  const auto logs = for_call("2");
  ASSERT_EQ(logs.size(), 4u);
  EXPECT_EQ(logs[0].message, boost::json::parse(R"({"jsonrpc":"2.0","method":"notifications/message",
      "params":{"level":"info","data":"Tool execution started"}})"));
  EXPECT_EQ(logs[1].message.at("params").at("data"), "Tool processing data");
  EXPECT_EQ(logs[2].message.at("params").at("data"), "Tool execution completed");
  EXPECT_TRUE(logs[3].final);
}

TEST_F(InteractiveSession, LogsFromTheLevelTheClientSet) {
  answer(session, outbox, "l1", request("l1", "logging/setLevel", boost::json::object{{"level", "debug"}}));
  session.handle(call(1, "interactive.log", {{"level", "debug"}}));
  ASSERT_TRUE(outbox.wait_for(1).has_value());
  EXPECT_EQ(for_call("1").size(), 4u);
  EXPECT_EQ(for_call("1")[0].message.at("params").at("level"), "debug");

  answer(session, outbox, "l2", request("l2", "logging/setLevel", boost::json::object{{"level", "error"}}));
  session.handle(call(2, "interactive.log", {{"level", "warning"}}));
  session.handle(call(3, "interactive.log", {{"level", "critical"}}));
  ASSERT_TRUE(outbox.wait_for(2).has_value());
  ASSERT_TRUE(outbox.wait_for(3).has_value());
  EXPECT_EQ(for_call("2").size(), 1u) << "the response only";
  EXPECT_EQ(for_call("3").size(), 4u);
}

TEST_F(ClientWithSamplingAndRoots, SendsASamplingRequestAndAnswersWithTheClientsReply) {
  session.handle(call("s", "interactive.sample", {{"prompt", "Test prompt"}}));
  const auto sent = answer_client_request(
      "sampling/createMessage", "result",
      boost::json::parse(R"({"role":"assistant","content":{"type":"text","text":"from the client"},
                             "model":"test-model","stopReason":"endTurn"})"));
  const auto response = outbox.wait_for("s");
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(first_text(*response), "LLM response: from the client");

  ASSERT_TRUE(sent.at("id").is_string());
  EXPECT_THAT(std::string(sent.at("id").as_string()), testing::StartsWith("airlock-"));
  EXPECT_EQ(sent.at("params"), boost::json::parse(R"({"messages":[{"role":"user","content":{"type":"text",
      "text":"Test prompt"}}],"maxTokens":100})"));
  const auto request_sent = outbox.with_method("sampling/createMessage");
  ASSERT_EQ(request_sent.size(), 1u);
  EXPECT_EQ(request_sent[0].request, "\"s\"");
  EXPECT_FALSE(request_sent[0].final);
}

TEST_F(ClientWithSamplingAndRoots, GivesEveryRequestToTheClientItsOwnId) {
  session.handle(call(1, "interactive.ask", {{"method", "roots/list"}}));
  answer_client_request("roots/list", "result", boost::json::parse(R"({"roots":[]})"));
  ASSERT_TRUE(outbox.wait_for(1).has_value());
  session.handle(call(2, "interactive.ask", {{"method", "roots/list"}}));
  const auto second = outbox.wait_for(2, 200ms);
  EXPECT_FALSE(second.has_value()) << "waits for its own answer, not the first one's";
  const auto requests = outbox.with_method("roots/list");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[0].message.at("id"), requests[1].message.at("id"));
  session.handle(boost::json::serialize(
      boost::json::object{{"jsonrpc", "2.0"}, {"id", requests[1].message.at("id")}, {"result", {{"roots", boost::json::array{}}}}}));
  const auto answered = outbox.wait_for(2);
  ASSERT_TRUE(answered.has_value());
  EXPECT_EQ(answered->at("result").at("structuredContent"), boost::json::parse(R"({"status":0,"reply":{"roots":[]}})"));
}

TEST_F(ClientWithSamplingAndRoots, HandsTheToolTheClientsErrorObject) {
  session.handle(call(1, "interactive.ask", {{"method", "roots/list"}}));
  answer_client_request("roots/list", "error", boost::json::parse(R"({"code":-1,"message":"User rejected"})"));
  const auto response = outbox.wait_for(1);
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->at("result").at("structuredContent"),
            boost::json::parse(R"({"status":2,"reply":{"code":-1,"message":"User rejected"}})"));
}

TEST_F(InteractiveSession, RefusesARequestTheClientHasNoCapabilityForAndSendsNothing) {
  session.handle(call(1, "interactive.sample", {{"prompt", "p"}}));
  const auto response = outbox.wait_for(1);
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->at("result").at("isError"), true);
  EXPECT_EQ(first_text(*response), "sampling/createMessage: the client does not support it");
  EXPECT_TRUE(outbox.with_method("sampling/createMessage").empty());
}

TEST_F(ClientWithSamplingAndRoots, RefusesMethodsAServerMayNotSend) {
  session.handle(call(1, "interactive.ask", {{"method", "tools/list"}}));
  session.handle(call(2, "interactive.ask", {{"method", "elicitation/create"}}));  // no elicitation capability
  for (int id = 1; id <= 2; ++id) {
    const auto response = outbox.wait_for(id);
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->at("result").at("structuredContent").at("status"), AIRLOCK_STATUS_UNSUPPORTED);
  }
  EXPECT_EQ(outbox.messages().size(), 3u) << "initialize and the two answers only";
}

TEST_F(ClientWithSamplingAndRoots, TimesOutTellsTheClientAndIgnoresTheLateAnswer) {
  const auto start = Clock::now();
  session.handle(call(1, "interactive.ask", {{"method", "roots/list"}, {"timeout_ms", 50}}));
  const auto response = outbox.wait_for(1);
  ASSERT_TRUE(response.has_value());
  EXPECT_GE(Clock::now() - start, 50ms);
  EXPECT_EQ(response->at("result").at("structuredContent"), boost::json::parse(R"({"status":8,"reply":null})"));
  const auto request_sent = outbox.with_method("roots/list");
  ASSERT_EQ(request_sent.size(), 1u);
  const auto cancelled = outbox.with_method("notifications/cancelled");
  ASSERT_EQ(cancelled.size(), 1u);
  EXPECT_EQ(cancelled[0].message.at("params").at("requestId"), request_sent[0].message.at("id"));
  const std::size_t before = outbox.messages().size();
  session.handle(boost::json::serialize(
      boost::json::object{{"jsonrpc", "2.0"}, {"id", request_sent[0].message.at("id")}, {"result", {{"roots", boost::json::array{}}}}}));
  EXPECT_EQ(outbox.messages().size(), before);
}

TEST_F(ClientWithSamplingAndRoots, WakesAWaitingToolWhenItsCallIsCancelled) {
  session.handle(call(1, "interactive.ask", {{"method", "roots/list"}, {"timeout_ms", 30000}}));
  ASSERT_TRUE(outbox.wait_for_method("roots/list").has_value());
  const auto start = Clock::now();
  session.handle(cancel(1));
  ASSERT_TRUE(outbox.wait_for_method("notifications/cancelled").has_value());
  session.close(5s);
  EXPECT_LT(Clock::now() - start, 2s);
  EXPECT_TRUE(outbox.for_id(1).empty()) << "a cancelled call is never answered";
  EXPECT_EQ(outbox.with_method("notifications/cancelled")[0].message.at("params").at("requestId"),
            outbox.with_method("roots/list")[0].message.at("id"));
}

TEST_F(ClientWithSamplingAndRoots, CloseWakesAWaitingToolAtOnce) {
  session.handle(call(1, "interactive.ask", {{"method", "roots/list"}, {"timeout_ms", 30000}}));
  ASSERT_TRUE(outbox.wait_for_method("roots/list").has_value());
  const auto start = Clock::now();
  session.close(10s);
  EXPECT_LT(Clock::now() - start, 2s) << "no answer can come after close; the grace is not waited out";
  const auto answers = outbox.for_id(1);
  ASSERT_EQ(answers.size(), 1u) << "the tool still answers, within the grace";
  EXPECT_EQ(answers[0].at("result").at("structuredContent").at("status"), AIRLOCK_STATUS_CANCELLED);
  EXPECT_TRUE(outbox.with_method("notifications/cancelled").empty()) << "nobody is left to tell";
}

TEST(Session, ToolDeadlineCancelsAWaitOnTheClient) {
  Server server({.timeout_ms = 100, .fixtures = {"interactive"}});
  Outbox outbox;
  Session session(server.state(), outbox.sender());
  initialize(session, outbox, {{"roots", boost::json::object{}}});
  const auto start = Clock::now();
  session.handle(call(1, "interactive.ask", {{"method", "roots/list"}, {"timeout_ms", 30000}}));
  const auto response = outbox.wait_for(1);
  ASSERT_TRUE(response.has_value());
  EXPECT_THAT(first_text(*response), HasSubstr("timed out after 100 ms"));
  ASSERT_TRUE(outbox.wait_for_method("notifications/cancelled").has_value());
  session.close();
  EXPECT_LT(Clock::now() - start, 3s);
  EXPECT_EQ(outbox.with_method("notifications/cancelled")[0].request, "") << "the call's stream is done";
}

TEST_F(ClientWithSamplingAndRoots, GivesTheToolTheClientsCapabilities) {
  session.handle(call(1, "interactive.capabilities"));
  const auto response = outbox.wait_for(1);
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->at("result").at("structuredContent").at("capabilities"),
            boost::json::parse(R"({"sampling":{},"roots":{"listChanged":true}})"));
}

TEST(Session, EndsTheCallsStreamThroughTheTransportAndStillAnswers) {
  std::mutex mutex;
  std::vector<std::string> ended;
  Server other({.fixtures = {"interactive"}});
  Outbox other_outbox;
  Session with_stream(other.state(), other_outbox.sender());
  with_stream.set_end_stream([&](std::string_view request) {
    std::lock_guard lock(mutex);
    ended.emplace_back(request);
  });
  initialize(with_stream, other_outbox);
  with_stream.handle(call("r", "interactive.reconnect"));
  const auto response = other_outbox.wait_for("r");
  ASSERT_TRUE(response.has_value());
  EXPECT_THAT(first_text(*response), HasSubstr("Reconnection test completed successfully"));
  std::lock_guard lock(mutex);
  EXPECT_THAT(ended, ElementsAre("\"r\""));
}

TEST_F(InteractiveSession, EndStreamWithoutATransportHookDoesNothing) {
  session.handle(call(1, "interactive.reconnect"));
  const auto response = outbox.wait_for(1);
  ASSERT_TRUE(response.has_value());
  EXPECT_FALSE(response->at("result").as_object().contains("isError"));
}

// --- the C entry points check a plugin's arguments before the session sees them

// A channel that records what reached it.
class RecordingChannel : public CallChannel {
 public:
  airlock_status progress(double p, double, std::string_view) override {
    progress_.push_back(p);
    return AIRLOCK_STATUS_OK;
  }
  airlock_status log(airlock_client_log_level, std::string_view, std::string_view message) override {
    logs_.emplace_back(message);
    return AIRLOCK_STATUS_OK;
  }
  Reply request(std::string_view, std::string_view params, std::chrono::milliseconds timeout) override {
    params_.emplace_back(params);
    timeout_ = timeout;
    return {AIRLOCK_STATUS_OK, R"({"ok":true})"};
  }
  std::string_view client_capabilities() const noexcept override { return R"({"roots":{}})"; }
  std::string_view request_meta() const noexcept override { return "{}"; }
  void end_stream() override {}

  std::vector<double> progress_;
  std::vector<std::string> logs_;
  std::vector<std::string> params_;
  std::chrono::milliseconds timeout_{};
};

class HostApiCallChannel : public ::testing::Test {
 protected:
  HostApiCallChannel() { handle.channel = &channel; }
  const airlock_host_api& api = host_api();
  RecordingChannel channel;
  airlock_call handle;
};

TEST_F(HostApiCallChannel, RefusesProgressThatIsNotAFiniteNumberOrHasBadText) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(api.call_progress(&handle, nan, 0, borrow("")), AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(api.call_progress(&handle, inf, 0, borrow("")), AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(api.call_progress(&handle, 1, 0, borrow("\xff")), AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(api.call_progress(nullptr, 1, 0, borrow("")), AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(channel.progress_.empty());
  EXPECT_EQ(api.call_progress(&handle, 1, nan, borrow("ok")), AIRLOCK_STATUS_OK);
  EXPECT_EQ(channel.progress_, std::vector<double>{1});
}

TEST_F(HostApiCallChannel, RefusesALevelOutsideTheEightAndTextThatIsNotUtf8) {
  EXPECT_EQ(api.call_log(&handle, 8, borrow(""), borrow("m")), AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(api.call_log(&handle, -1, borrow(""), borrow("m")), AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(api.call_log(&handle, AIRLOCK_CLIENT_LOG_INFO, borrow("\xc3"), borrow("m")), AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(api.call_log(&handle, AIRLOCK_CLIENT_LOG_INFO, borrow(""), borrow("\xed\xa0\x80")),
            AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(channel.logs_.empty());
  EXPECT_EQ(api.call_log(&handle, AIRLOCK_CLIENT_LOG_EMERGENCY, borrow("l"), borrow("é")), AIRLOCK_STATUS_OK);
  EXPECT_EQ(channel.logs_, std::vector<std::string>{"é"});
}

TEST_F(HostApiCallChannel, ClientRequestChecksItsParamsCompactsThemAndKeepsTheReply) {
  airlock_str reply{"stale", 5};
  EXPECT_EQ(api.call_client_request(&handle, borrow("roots/list"), borrow("[1]"), 0, &reply),
            AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(reply.ptr, nullptr);
  EXPECT_EQ(api.call_client_request(&handle, borrow("roots/list"), borrow("{"), 0, &reply),
            AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(api.call_client_request(&handle, borrow("roots/list"), borrow("{}"), 0, nullptr),
            AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(channel.params_.empty());

  EXPECT_EQ(api.call_client_request(&handle, borrow("roots/list"), borrow("{\n  \"a\": 1\n}"), 0, &reply),
            AIRLOCK_STATUS_OK);
  EXPECT_EQ(channel.params_.back(), R"({"a":1})") << "one line, whatever the plugin wrote";
  EXPECT_EQ(channel.timeout_, 60s) << "0 means the host's default";
  EXPECT_EQ(view(reply), R"({"ok":true})");
  airlock_str second{};
  EXPECT_EQ(api.call_client_request(&handle, borrow("roots/list"), borrow(""), 250, &second), AIRLOCK_STATUS_OK);
  EXPECT_EQ(channel.params_.back(), "{}");
  EXPECT_EQ(channel.timeout_, 250ms);
  EXPECT_EQ(view(reply), R"({"ok":true})") << "an earlier reply stays valid until on_call returns";
  EXPECT_NE(reply.ptr, second.ptr);
}

TEST(HostApiWithoutChannel, SendsNothingRefusesRequestsAndReadsEmptyObjects) {
  const airlock_host_api& api = host_api();
  airlock_call handle;
  EXPECT_EQ(api.call_progress(&handle, 1, 0, borrow("")), AIRLOCK_STATUS_OK);
  EXPECT_EQ(api.call_log(&handle, AIRLOCK_CLIENT_LOG_ERROR, borrow(""), borrow("m")), AIRLOCK_STATUS_OK);
  airlock_str reply{};
  EXPECT_EQ(api.call_client_request(&handle, borrow("roots/list"), borrow(""), 0, &reply), AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_EQ(view(api.call_client_capabilities(&handle)), "{}");
  EXPECT_EQ(view(api.call_request_meta(nullptr)), "{}");
  api.call_end_stream(&handle);
  api.call_end_stream(nullptr);
}

}  // namespace
}  // namespace airlock::host
