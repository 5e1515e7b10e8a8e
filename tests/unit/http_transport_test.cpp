// Tests for the HTTP transport's parts that need no socket: the request
// checks (Host, Origin, Accept, Content-Type, protocol header), SSE framing,
// event ids, and an HttpSession routing a real Session's messages onto
// streams and keeping them for resumption. Sockets are the integration
// tests' job (tests/integration/http_*).
#include "transport/http/http_session.hpp"
#include "transport/http/request_guard.hpp"
#include "transport/http/session_table.hpp"
#include "transport/http/sse.hpp"

#include "test_server.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <set>
#include <thread>

namespace airlock::host::http {
namespace {

using testing::HasSubstr;
using testing::Not;
using namespace std::chrono_literals;

// ---- request checks --------------------------------------------------------

TEST(HostPolicy, LoopbackNamesPassOnAnyPortByDefault) {
  const HostPolicy policy = make_host_policy("127.0.0.1", {}, {});
  EXPECT_TRUE(host_allowed("localhost:3100", policy));
  EXPECT_TRUE(host_allowed("LOCALHOST", policy));
  EXPECT_TRUE(host_allowed("127.0.0.1:8808", policy));
  EXPECT_TRUE(host_allowed("[::1]:8808", policy));
  EXPECT_FALSE(host_allowed("evil.example.com", policy));
  EXPECT_FALSE(host_allowed("localhost.evil.example.com:80", policy));
  EXPECT_FALSE(host_allowed("", policy));
}

TEST(HostPolicy, ConfiguredEntriesReplaceTheDefaultAndPinPorts) {
  const HostPolicy policy = make_host_policy("127.0.0.1", {"mcp.internal:8808"}, {});
  EXPECT_TRUE(host_allowed("mcp.internal:8808", policy));
  EXPECT_FALSE(host_allowed("mcp.internal:9999", policy));
  EXPECT_FALSE(host_allowed("localhost:8808", policy));
}

TEST(HostPolicy, ANonLoopbackBindAddsItsOwnAddress) {
  const HostPolicy policy = make_host_policy("10.1.2.3", {}, {});
  EXPECT_TRUE(host_allowed("10.1.2.3:8808", policy));
  EXPECT_TRUE(host_allowed("localhost", policy));
}

TEST(HostPolicy, OriginsFollowTheHostListUnlessListed) {
  const HostPolicy loopback = make_host_policy("127.0.0.1", {}, {});
  EXPECT_TRUE(origin_allowed("", loopback));  // not a browser
  EXPECT_TRUE(origin_allowed("http://localhost:3100", loopback));
  EXPECT_TRUE(origin_allowed("https://127.0.0.1", loopback));
  EXPECT_FALSE(origin_allowed("http://evil.example.com", loopback));
  EXPECT_FALSE(origin_allowed("null", loopback));
  EXPECT_FALSE(origin_allowed("file://localhost", loopback));
  EXPECT_FALSE(origin_allowed("http://user@localhost", loopback));

  const HostPolicy listed = make_host_policy("127.0.0.1", {}, {"https://app.example.com"});
  EXPECT_TRUE(origin_allowed("https://app.example.com", listed));
  EXPECT_FALSE(origin_allowed("http://localhost:3100", listed));
}

TEST(Accept, ReadsMediaRangesAndRefusals) {
  auto both = parse_accept("application/json, text/event-stream");
  EXPECT_TRUE(both.json && both.sse);
  auto json = parse_accept("application/json;q=0.9");
  EXPECT_TRUE(json.json);
  EXPECT_FALSE(json.sse);
  auto any = parse_accept("*/*");
  EXPECT_TRUE(any.json && any.sse);
  auto absent = parse_accept("");
  EXPECT_TRUE(absent.json && absent.sse);
  auto refused = parse_accept("text/event-stream;q=0, application/json");
  EXPECT_TRUE(refused.json);
  EXPECT_FALSE(refused.sse);
  auto neither = parse_accept("text/html");
  EXPECT_FALSE(neither.json || neither.sse);
}

TEST(ContentType, JsonWithParametersInAnyCase) {
  EXPECT_TRUE(is_json_content_type("application/json"));
  EXPECT_TRUE(is_json_content_type("Application/JSON; charset=utf-8"));
  EXPECT_FALSE(is_json_content_type("text/plain"));
  EXPECT_FALSE(is_json_content_type("application/jsonp"));
  EXPECT_FALSE(is_json_content_type(""));
}

TEST(ProtocolHeader, EveryVersionSpokenAndTheOneClientsStillSend) {
  EXPECT_TRUE(protocol_header_accepted("2025-11-25"));
  EXPECT_TRUE(protocol_header_accepted("2025-06-18"));
  EXPECT_TRUE(protocol_header_accepted("2025-03-26"));
  EXPECT_FALSE(protocol_header_accepted("2024-11-05x"));
  EXPECT_FALSE(protocol_header_accepted("banana"));
}

// ---- framing and ids -------------------------------------------------------

TEST(Sse, EventsCarryIdAndOneDataLinePerLine) {
  std::string out;
  append_sse_event(out, "3-1", R"({"a":1})");
  EXPECT_EQ(out, "id: 3-1\nevent: message\ndata: {\"a\":1}\n\n");
  out.clear();
  append_sse_event(out, "3-2", "one\r\ntwo\nthree\rfour");
  EXPECT_EQ(out, "id: 3-2\nevent: message\ndata: one\ndata: two\ndata: three\ndata: four\n\n");
  out.clear();
  append_sse_priming(out, "3-0", 1500);
  EXPECT_EQ(out, "id: 3-0\nretry: 1500\ndata: \n\n");
}

// Every mix of CR, LF and CRLF, against the rule written out plainly: a
// line ends at CRLF, at a lone CR or at a lone LF.
TEST(Sse, SplitsDataLinesAtEveryKindOfBreak) {
  const auto by_rule = [](std::string_view data) {
    std::string out = "event: message\n";
    std::string line;
    for (std::size_t i = 0; i < data.size(); ++i) {
      if (data[i] != '\r' && data[i] != '\n') {
        line.push_back(data[i]);
        continue;
      }
      out += "data: " + line + "\n";
      line.clear();
      if (data[i] == '\r' && i + 1 < data.size() && data[i + 1] == '\n') ++i;
    }
    return out + "data: " + line + "\n\n";
  };
  std::mt19937 random(35);
  for (int round = 0; round < 3000; ++round) {
    std::string data;
    const std::size_t length = random() % 40;
    for (std::size_t i = 0; i < length; ++i) data.push_back("ab\r\n"[random() % 4]);
    std::string out;
    append_sse_event(out, "", data);
    ASSERT_EQ(out, by_rule(data)) << testing::PrintToString(data);
  }
}

TEST(EventId, RoundTripsAndRejectsNoise) {
  const auto at = parse_event_id(format_event_id({7, 42}));
  ASSERT_TRUE(at);
  EXPECT_EQ(at->stream, 7u);
  EXPECT_EQ(at->seq, 42u);
  EXPECT_FALSE(parse_event_id("7"));
  EXPECT_FALSE(parse_event_id("7-"));
  EXPECT_FALSE(parse_event_id("-1"));
  EXPECT_FALSE(parse_event_id("7-4x"));
  EXPECT_FALSE(parse_event_id("99999999999-1"));
}

TEST(SessionId, SixtyFourHexDigitsNeverRepeated) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    const std::string id = new_session_id();
    ASSERT_EQ(id.size(), 64u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_TRUE(seen.insert(id).second);
  }
}

// ---- HttpSession -----------------------------------------------------------

class CountingSink : public StreamSink {
 public:
  void wake() override { wakes.fetch_add(1); }
  std::atomic<int> wakes{0};
};

class HttpSessionTest : public testing::Test {
 protected:
  std::unique_ptr<HttpSession> make(std::size_t replay_bytes = 1 << 20) {
    return std::make_unique<HttpSession>(server_.state(), "s", "", HttpSession::Limits{replay_bytes, 750});
  }

  // Sends `text` as a request on a new stream and returns the stream.
  std::uint32_t request(HttpSession& session, std::string_view id, std::string text, bool json = false) {
    auto stream = session.open_request_stream(std::string(id), json);
    EXPECT_TRUE(stream);
    session.mcp().handle(text);
    return stream.value_or(0);
  }

  static std::string initialize(int id) {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
           R"(,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
  }

  unit::TestServer server_;
};

TEST_F(HttpSessionTest, ARequestStreamOpensWithPrimingAndEndsAfterItsResponse) {
  auto session = make();
  const auto stream = request(*session, "0", initialize(0));
  auto sink = std::make_shared<CountingSink>();
  std::uint64_t cursor = 0;
  ASSERT_EQ(session->attach(stream, sink, 0, cursor, false), HttpSession::Attach::ok);
  const auto pulled = session->pull(stream, cursor, sink.get());
  EXPECT_TRUE(pulled.ended);
  EXPECT_THAT(pulled.bytes, testing::StartsWith("id: " + format_event_id({stream, 0}) + "\nretry: 750\ndata: \n\n"));
  EXPECT_THAT(pulled.bytes, HasSubstr("id: " + format_event_id({stream, 1}) + "\nevent: message\ndata: "));
  EXPECT_THAT(pulled.bytes, HasSubstr(R"("protocolVersion":"2025-11-25")"));
}

TEST_F(HttpSessionTest, AnIdInFlightCannotOpenASecondStream) {
  auto session = make();
  request(*session, "0", initialize(0));
  ASSERT_TRUE(session->open_request_stream("7", false));
  EXPECT_FALSE(session->open_request_stream("7", false));
}

TEST_F(HttpSessionTest, AResultProducedWhileNobodyListensIsReplayedOnResume) {
  auto session = make();
  request(*session, "0", initialize(0));
  const auto stream = request(*session, "1",
                              R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"canary.slow","arguments":{"ms":30}}})");
  // The client read the priming event, then its connection dropped.
  auto first = std::make_shared<CountingSink>();
  std::uint64_t cursor = 0;
  ASSERT_EQ(session->attach(stream, first, 0, cursor, false), HttpSession::Attach::ok);
  session->pull(stream, cursor, first.get());
  session->detach(stream, first.get());

  // Long after the result exists, it resumes from the priming event's id.
  for (int i = 0; i < 200 && session->busy(); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_FALSE(session->busy());
  auto resumed = std::make_shared<CountingSink>();
  ASSERT_EQ(session->attach(stream, resumed, 1, cursor, true), HttpSession::Attach::ok);
  const auto pulled = session->pull(stream, cursor, resumed.get());
  EXPECT_TRUE(pulled.ended);
  EXPECT_FALSE(pulled.lost);
  EXPECT_THAT(pulled.bytes, HasSubstr(R"("id":1,"result")"));
  EXPECT_THAT(pulled.bytes, HasSubstr("slept 30"));
  EXPECT_THAT(pulled.bytes, Not(HasSubstr("retry:")));  // replay starts after the id given
}

TEST_F(HttpSessionTest, ResumingTakesTheStreamFromTheOldConnection) {
  auto session = make();
  request(*session, "0", initialize(0));
  const auto stream = session->open_request_stream("1", false).value();
  auto old_sink = std::make_shared<CountingSink>();
  auto new_sink = std::make_shared<CountingSink>();
  std::uint64_t a = 0, b = 0;
  ASSERT_EQ(session->attach(stream, old_sink, 0, a, false), HttpSession::Attach::ok);
  EXPECT_EQ(session->attach(stream, new_sink, 0, b, false), HttpSession::Attach::busy);
  ASSERT_EQ(session->attach(stream, new_sink, 1, b, true), HttpSession::Attach::ok);
  EXPECT_GE(old_sink->wakes.load(), 1);  // told to end its response
  EXPECT_TRUE(session->pull(stream, a, old_sink.get()).ended);
  EXPECT_FALSE(session->pull(stream, b, new_sink.get()).ended);
}

TEST_F(HttpSessionTest, JsonStreamsHoldOnlyTheResponse) {
  auto session = make();
  const auto stream = request(*session, "0", initialize(0), true);
  const auto body = session->take_json_response(stream);
  ASSERT_TRUE(body);
  EXPECT_THAT(*body, testing::StartsWith(R"({"jsonrpc":"2.0","id":0,"result":)"));
  EXPECT_FALSE(session->take_json_response(stream));
}

TEST_F(HttpSessionTest, OverBudgetTheOldestDeliveredEventsGoFirst) {
  auto session = make(600);
  request(*session, "0", initialize(0));
  std::vector<std::uint32_t> streams;
  auto sink = std::make_shared<CountingSink>();
  for (int id = 1; id <= 8; ++id) {
    streams.push_back(request(*session, std::to_string(id),
                              R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"ping"})"));
    std::uint64_t cursor = 0;
    ASSERT_EQ(session->attach(streams.back(), sink, 0, cursor, false), HttpSession::Attach::ok);
    session->pull(streams.back(), cursor, sink.get());
    session->detach(streams.back(), sink.get());
  }
  // The first answered streams were dropped whole; the last is still there.
  std::uint64_t cursor = 0;
  EXPECT_EQ(session->attach(streams.front(), sink, 1, cursor, true), HttpSession::Attach::unknown_stream);
  EXPECT_EQ(session->attach(streams.back(), sink, 1, cursor, true), HttpSession::Attach::ok);
  EXPECT_THAT(session->pull(streams.back(), cursor, sink.get()).bytes, HasSubstr(R"("id":8,"result":{})"));
}

// The connection that wrote a stream's answer and end says so; the stream
// goes then, unless it is unanswered or another connection resumed it.
TEST_F(HttpSessionTest, AStreamWrittenWholeIsForgottenButNotOneResumedOrUnanswered) {
  auto session = make();
  request(*session, "0", initialize(0));
  auto deliver = [&](std::uint32_t stream, const std::shared_ptr<CountingSink>& sink) {
    std::uint64_t cursor = 0;
    EXPECT_EQ(session->attach(stream, sink, 0, cursor, false), HttpSession::Attach::ok);
    const auto pulled = session->pull(stream, cursor, sink.get());
    session->detach(stream, sink.get());
    return pulled;
  };
  auto sink = std::make_shared<CountingSink>();
  std::uint64_t cursor = 0;

  const auto delivered = request(*session, "1", R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
  ASSERT_TRUE(deliver(delivered, sink).ended);
  session->forget_delivered(delivered);
  EXPECT_EQ(session->attach(delivered, sink, 1, cursor, true), HttpSession::Attach::unknown_stream);

  // Its answer not made yet: a resume will want it.
  const auto running = request(*session, "2",
                               R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"canary.slow","arguments":{"ms":200}}})");
  ASSERT_FALSE(deliver(running, sink).ended);
  session->forget_delivered(running);
  EXPECT_EQ(session->attach(running, sink, 1, cursor, true), HttpSession::Attach::ok);
  session->detach(running, sink.get());

  // Resumed by another connection before the first one's write completed.
  const auto resumed = request(*session, "3", R"({"jsonrpc":"2.0","id":3,"method":"ping"})");
  ASSERT_TRUE(deliver(resumed, sink).ended);
  auto other = std::make_shared<CountingSink>();
  ASSERT_EQ(session->attach(resumed, other, 1, cursor, true), HttpSession::Attach::ok);
  session->forget_delivered(resumed);
  EXPECT_THAT(session->pull(resumed, cursor, other.get()).bytes, HasSubstr(R"("id":3,"result":{})"));
}

TEST_F(HttpSessionTest, OneStandaloneStreamAtATimeUntilTheSessionCloses) {
  auto session = make();
  request(*session, "0", initialize(0));
  auto sink = std::make_shared<CountingSink>();
  std::uint64_t cursor = 0;
  ASSERT_EQ(session->attach(HttpSession::kStandaloneStream, sink, std::nullopt, cursor, false), HttpSession::Attach::ok);
  auto second = std::make_shared<CountingSink>();
  std::uint64_t other = 0;
  EXPECT_EQ(session->attach(HttpSession::kStandaloneStream, second, std::nullopt, other, false),
            HttpSession::Attach::busy);
  const auto pulled = session->pull(HttpSession::kStandaloneStream, cursor, sink.get());
  EXPECT_FALSE(pulled.ended);
  EXPECT_TRUE(pulled.bytes.empty());
  session->end_all_streams();
  EXPECT_TRUE(session->pull(HttpSession::kStandaloneStream, cursor, sink.get()).ended);
}

}  // namespace
}  // namespace airlock::host::http
