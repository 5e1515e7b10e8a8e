// One attempt's client input under MCP 2026-07-28 (MRTR): which answers count,
// which questions the request's capabilities allow, what a malformed answer
// does, and what the next attempt inherits.
#include "mcp/input_round.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace airlock::host {
namespace {

namespace json = boost::json;

constexpr std::string_view kElicit = "elicitation/create";
constexpr std::string_view kSample = "sampling/createMessage";
constexpr std::string_view kRoots = "roots/list";

constexpr std::string_view kElicitParams = R"({"message":"What is your name?","requestedSchema":{"type":"object"}})";
constexpr std::string_view kSampleParams = R"({"messages":[],"maxTokens":50})";

json::object object(std::string_view text) { return json::parse(text).as_object(); }

json::object all_capabilities() {
  return object(R"({"elicitation":{},"sampling":{},"roots":{"listChanged":true}})");
}

const json::object kAccepted = object(R"({"action":"accept","content":{"name":"Ada"}})");

InputRound fresh(json::object capabilities = all_capabilities()) {
  return InputRound(std::move(capabilities), {}, nullptr);
}

InputRound answered(std::string_view input_responses, RoundState carried = {},
                    json::object capabilities = all_capabilities()) {
  const auto responses = object(input_responses);
  return InputRound(std::move(capabilities), std::move(carried), &responses);
}

// --- questions without answers

TEST(InputRound, UnansweredQuestionIsRecorded) {
  auto round = fresh();
  EXPECT_FALSE(round.input_required());
  const auto reply = round.ask("user_name", kElicit, kElicitParams);
  EXPECT_EQ(reply.status, AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_TRUE(reply.json.empty());
  EXPECT_TRUE(round.input_required());
  EXPECT_EQ(round.input_requests(),
            object(R"({"user_name":{"method":"elicitation/create","params":{"message":"What is your name?",
                      "requestedSchema":{"type":"object"}}}})"));
  EXPECT_FALSE(round.malformed_key());
}

TEST(InputRound, EveryQuestionOfOneRunGoesIntoOneResult) {
  auto round = fresh();
  EXPECT_EQ(round.ask("user_name", kElicit, kElicitParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_EQ(round.ask("greeting", kSample, kSampleParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_EQ(round.ask("client_roots", kRoots, "{}").status, AIRLOCK_STATUS_INPUT_REQUIRED);
  const auto requests = round.input_requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests.at("user_name").at("method").as_string(), kElicit);
  EXPECT_EQ(requests.at("greeting").at("method").as_string(), kSample);
  EXPECT_EQ(requests.at("greeting").at("params"), object(kSampleParams));
  EXPECT_EQ(requests.at("client_roots"), object(R"({"method":"roots/list","params":{}})"));
}

TEST(InputRound, AskingTheSameQuestionTwiceRecordsItOnce) {
  auto round = fresh();
  EXPECT_EQ(round.ask("q", kElicit, kElicitParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_EQ(round.ask("q", kElicit, R"({"message":"again"})").status, AIRLOCK_STATUS_INPUT_REQUIRED);
  const auto requests = round.input_requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests.at("q").at("params"), object(kElicitParams));  // the first wording
}

TEST(InputRound, OneKeyCannotNameTwoMethods) {
  auto round = fresh();
  EXPECT_EQ(round.ask("q", kElicit, kElicitParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_EQ(round.ask("q", kRoots, "{}").status, AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(round.input_requests().at("q").at("method").as_string(), kElicit);
}

// --- key-less questions

TEST(InputRound, KeylessQuestionsAreNumberedInOrder) {
  auto round = fresh();
  EXPECT_EQ(round.ask(std::nullopt, kElicit, kElicitParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_EQ(round.ask("named", kRoots, "{}").status, AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_EQ(round.ask(std::nullopt, kSample, kSampleParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  const auto requests = round.input_requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests.at("input-1").at("method").as_string(), kElicit);
  EXPECT_EQ(requests.at("input-2").at("method").as_string(), kSample);
  EXPECT_TRUE(requests.contains("named"));
}

TEST(InputRound, KeylessAnswersComeBackByPosition) {
  auto round = answered(R"({"input-2":{"action":"decline"}})");
  EXPECT_EQ(round.ask(std::nullopt, kElicit, kElicitParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  const auto second = round.ask(std::nullopt, kElicit, kElicitParams);
  EXPECT_EQ(second.status, AIRLOCK_STATUS_OK);
  EXPECT_EQ(json::parse(second.json), object(R"({"action":"decline"})"));
  EXPECT_TRUE(round.input_requests().contains("input-1"));
}

TEST(InputRound, RefusedKeylessQuestionsStillTakeTheirNumber) {
  // The numbering must not depend on what the client declared this time.
  auto round = fresh(object(R"({"elicitation":{}})"));
  EXPECT_EQ(round.ask(std::nullopt, kSample, kSampleParams).status, AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_EQ(round.ask(std::nullopt, kElicit, "not json").status, AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(round.ask(std::nullopt, kElicit, kElicitParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  const auto requests = round.input_requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_TRUE(requests.contains("input-3"));
}

TEST(InputRound, KeylessQuestionsFromManyThreadsGetDistinctNumbers) {
  auto round = fresh();
  constexpr int kThreads = 8;
  constexpr int kEach = 25;
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&round] {
        for (int i = 0; i < kEach; ++i) round.ask(std::nullopt, kElicit, kElicitParams);
      });
  }
  const auto requests = round.input_requests();
  ASSERT_EQ(requests.size(), static_cast<std::size_t>(kThreads * kEach));
  for (int n = 1; n <= kThreads * kEach; ++n) EXPECT_TRUE(requests.contains("input-" + std::to_string(n))) << n;
}

// --- which answers count

TEST(InputRound, WithoutStateEveryAnswerCounts) {
  // A client may answer before it was asked (ignore-extra-params case).
  auto round = answered(R"({"user_name":{"action":"accept","content":{"name":"Ada"}}})");
  const auto reply = round.ask("user_name", kElicit, kElicitParams);
  ASSERT_EQ(reply.status, AIRLOCK_STATUS_OK);
  EXPECT_EQ(json::parse(reply.json), kAccepted);
  EXPECT_FALSE(round.input_required());
}

TEST(InputRound, WithStateOnlyAnswersToItsQuestionsCount) {
  RoundState carried;
  carried.pending["asked"] = kElicit;
  auto round = answered(R"({"asked":{"action":"accept","content":{"name":"Ada"}},
                            "unasked":{"action":"accept","content":{"name":"Eve"}}})",
                        carried);
  EXPECT_EQ(round.ask("asked", kElicit, kElicitParams).status, AIRLOCK_STATUS_OK);
  EXPECT_EQ(round.ask("unasked", kElicit, kElicitParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_EQ(round.input_requests().size(), 1u);
  EXPECT_TRUE(round.input_requests().contains("unasked"));
}

TEST(InputRound, AnswerToAnotherMethodIsNoAnswer) {
  RoundState carried;
  carried.pending["q"] = kSample;
  auto round = answered(R"({"q":{"action":"accept","content":{}}})", carried);
  EXPECT_EQ(round.ask("q", kElicit, kElicitParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_FALSE(round.malformed_key());
}

TEST(InputRound, UnknownKeysAreIgnored) {
  auto round = answered(R"({"stranger":{"whatever":1},"user_name":{"action":"cancel"}})");
  EXPECT_EQ(round.ask("user_name", kElicit, kElicitParams).status, AIRLOCK_STATUS_OK);
  EXPECT_FALSE(round.malformed_key());
  EXPECT_FALSE(round.next_state().answers.contains("stranger"));
}

TEST(InputRound, WrongKeyIsAnotherQuestionNotAnError) {
  auto round = answered(R"({"wrong_key":{"action":"accept","content":{"name":"Ada"}}})");
  EXPECT_EQ(round.ask("user_name", kElicit, kElicitParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_FALSE(round.malformed_key());
  EXPECT_TRUE(round.input_requests().contains("user_name"));
}

TEST(InputRound, CarriedAnswerServesAgainWithoutBeingResent) {
  RoundState carried;
  carried.answers["step1"] = json::object{{"method", kElicit}, {"result", kAccepted}};
  carried.pending["step2"] = kElicit;
  auto round = InputRound(all_capabilities(), carried, nullptr);
  const auto reply = round.ask("step1", kElicit, kElicitParams);
  ASSERT_EQ(reply.status, AIRLOCK_STATUS_OK);
  EXPECT_EQ(json::parse(reply.json), kAccepted);
  EXPECT_EQ(round.ask("step1", kRoots, "{}").status, AIRLOCK_STATUS_INVALID_ARGUMENT);  // key taken this run
}

TEST(InputRound, CarriedAnswerForAnotherMethodIsNoAnswer) {
  RoundState carried;
  carried.answers["q"] = json::object{{"method", kSample}, {"result", object(R"({"role":"assistant",
                                       "content":{"type":"text","text":"hi"},"model":"m"})")}};
  carried.pending["other"] = kElicit;
  auto round = InputRound(all_capabilities(), carried, nullptr);
  EXPECT_EQ(round.ask("q", kElicit, kElicitParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
}

// --- the capability gate

TEST(InputRound, OnlyDeclaredCapabilitiesMayBeAsked) {
  auto round = fresh(object(R"({"sampling":{}})"));
  const auto refused = round.ask("elicit_input", kElicit, kElicitParams);
  EXPECT_EQ(refused.status, AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_TRUE(refused.json.empty());
  EXPECT_EQ(round.ask("sample_input", kSample, kSampleParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_EQ(round.ask("client_roots", kRoots, "{}").status, AIRLOCK_STATUS_UNSUPPORTED);
  const auto requests = round.input_requests();
  ASSERT_EQ(requests.size(), 1u);  // nothing refused reaches the client
  EXPECT_TRUE(requests.contains("sample_input"));
}

TEST(InputRound, NothingDeclaredNothingAsked) {
  auto round = fresh(json::object{});
  EXPECT_EQ(round.ask("a", kElicit, kElicitParams).status, AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_EQ(round.ask("b", kSample, kSampleParams).status, AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_EQ(round.ask("c", kRoots, "{}").status, AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_FALSE(round.input_required());
}

TEST(InputRound, NullCapabilityIsNotDeclared) {
  auto round = fresh(object(R"({"elicitation":null,"roots":{}})"));
  EXPECT_EQ(round.ask("a", kElicit, kElicitParams).status, AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_EQ(round.ask("c", kRoots, "{}").status, AIRLOCK_STATUS_INPUT_REQUIRED);
}

TEST(InputRound, UrlElicitationNeedsElicitationUrl) {
  constexpr std::string_view kUrl =
      R"({"mode":"url","message":"Sign in","url":"https://login.test/x","elicitationId":"e1"})";
  EXPECT_EQ(fresh(object(R"({"elicitation":{}})")).ask("u", kElicit, kUrl).status, AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_EQ(fresh(object(R"({"elicitation":{"form":{}}})")).ask("u", kElicit, kUrl).status,
            AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_EQ(fresh(object(R"({"elicitation":{"url":null}})")).ask("u", kElicit, kUrl).status,
            AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_EQ(fresh(object(R"({"elicitation":{"url":{}}})")).ask("u", kElicit, kUrl).status,
            AIRLOCK_STATUS_INPUT_REQUIRED);
  // Form mode (explicit or by default) needs only "elicitation".
  EXPECT_EQ(fresh(object(R"({"elicitation":{}})")).ask("f", kElicit, R"({"mode":"form","message":"m"})").status,
            AIRLOCK_STATUS_INPUT_REQUIRED);
}

TEST(InputRound, SamplingWithToolsNeedsSamplingTools) {
  constexpr std::string_view kWithTools = R"({"messages":[],"maxTokens":10,"tools":[{"name":"t","inputSchema":{}}]})";
  EXPECT_EQ(fresh(object(R"({"sampling":{}})")).ask("s", kSample, kWithTools).status, AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_EQ(fresh(object(R"({"sampling":{"context":{}}})")).ask("s", kSample, kWithTools).status,
            AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_EQ(fresh(object(R"({"sampling":{"tools":{}}})")).ask("s", kSample, kWithTools).status,
            AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_EQ(fresh(object(R"({"sampling":{}})")).ask("s", kSample, kSampleParams).status,
            AIRLOCK_STATUS_INPUT_REQUIRED);
}

TEST(InputRound, MethodsAServerMayNotAskAreUnsupported) {
  auto round = fresh();
  for (std::string_view method : {"tools/list", "ping", "elicitation/complete", "", "Elicitation/create"})
    EXPECT_EQ(round.ask("k", method, "{}").status, AIRLOCK_STATUS_UNSUPPORTED) << method;
  EXPECT_FALSE(round.input_required());
}

TEST(InputRound, CapabilityGateComesBeforeAnAnswer) {
  // An answer the client sent for a capability it did not declare is not used.
  auto round = answered(R"({"q":{"action":"accept","content":{}}})", {}, object(R"({"sampling":{}})"));
  EXPECT_EQ(round.ask("q", kElicit, kElicitParams).status, AIRLOCK_STATUS_UNSUPPORTED);
}

// --- bad questions

TEST(InputRound, BadKeysAreInvalid) {
  auto round = fresh();
  const std::string too_long(65, 'k');
  for (std::string_view key : {std::string_view(""), std::string_view("has space"), std::string_view("a/b"),
                               std::string_view("ключ"), std::string_view("a:b"), std::string_view(too_long)})
    EXPECT_EQ(round.ask(key, kElicit, kElicitParams).status, AIRLOCK_STATUS_INVALID_ARGUMENT) << key;
  for (std::string_view key : {"a", "A.b-c_9", "user_name"})
    EXPECT_EQ(round.ask(key, kElicit, kElicitParams).status, AIRLOCK_STATUS_INPUT_REQUIRED) << key;
  EXPECT_EQ(round.ask(std::string(64, 'k'), kElicit, kElicitParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_EQ(round.input_requests().size(), 4u);
  EXPECT_FALSE(round.malformed_key());
}

TEST(InputRound, ParamsMustBeAnObject) {
  auto round = fresh();
  for (std::string_view params : {"[]", "\"text\"", "1", "null", "", "{", "{} {}"})
    EXPECT_EQ(round.ask("k", kElicit, params).status, AIRLOCK_STATUS_INVALID_ARGUMENT) << params;
  EXPECT_FALSE(round.input_required());
  EXPECT_FALSE(round.malformed_key());
}

// --- answer shapes

struct ShapeCase {
  std::string_view method;
  std::string_view answer;
  bool fits;
};

TEST(InputRound, AnswersAreCheckedAgainstTheirMethod) {
  const ShapeCase cases[] = {
      {kElicit, R"({"action":"accept","content":{"name":"Ada"}})", true},
      {kElicit, R"({"action":"accept"})", true},
      {kElicit, R"({"action":"decline"})", true},
      {kElicit, R"({"action":"cancel","_meta":{}})", true},
      {kElicit, R"({"action":"maybe"})", false},
      {kElicit, R"({"action":"ACCEPT"})", false},
      {kElicit, R"({"action":1})", false},
      {kElicit, R"({"content":{}})", false},
      {kElicit, R"({"action":"accept","content":"Ada"})", false},
      {kElicit, R"({"action":"accept","content":null})", false},
      {kElicit, R"(12345)", false},
      {kElicit, R"("accept")", false},
      {kElicit, R"(null)", false},
      {kSample, R"({"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m1"})", true},
      {kSample, R"({"role":"assistant","content":[{"type":"text","text":"a"}],"model":"m1","stopReason":"x"})", true},
      {kSample, R"({"content":{"type":"text","text":"Paris"},"model":"m1"})", false},
      {kSample, R"({"role":"assistant","content":"Paris","model":"m1"})", false},
      {kSample, R"({"role":"assistant","content":{"type":"text","text":"Paris"}})", false},
      {kSample, R"({"role":"assistant","content":{},"model":7})", false},
      {kSample, R"({"role":null,"content":{},"model":"m"})", false},
      {kRoots, R"({"roots":[]})", true},
      {kRoots, R"({"roots":[{"uri":"file:///a","name":"a"},{"uri":"file:///b"}]})", true},
      {kRoots, R"({"roots":[{"name":"a"}]})", false},
      {kRoots, R"({"roots":[{"uri":1}]})", false},
      {kRoots, R"({"roots":["file:///a"]})", false},
      {kRoots, R"({"roots":{}})", false},
      {kRoots, R"({})", false},
  };
  for (const auto& c : cases) {
    const std::string responses = std::string(R"({"k":)") + std::string(c.answer) + "}";
    auto round = answered(responses);
    const auto reply = round.ask("k", c.method, c.method == kRoots ? "{}" : kElicitParams);
    if (c.fits) {
      EXPECT_EQ(reply.status, AIRLOCK_STATUS_OK) << c.method << " " << c.answer;
      EXPECT_EQ(json::parse(reply.json), json::parse(c.answer)) << c.answer;
      EXPECT_FALSE(round.malformed_key()) << c.answer;
    } else {
      EXPECT_EQ(reply.status, AIRLOCK_STATUS_INVALID_ARGUMENT) << c.method << " " << c.answer;
      EXPECT_TRUE(reply.json.empty());
      EXPECT_EQ(round.malformed_key(), "k") << c.answer;
      EXPECT_FALSE(round.input_required()) << "a malformed answer is not asked again: " << c.answer;
    }
  }
}

TEST(InputRound, FirstMalformedKeyIsKept) {
  auto round = answered(R"({"a":{"action":"accept"},"b":12345,"c":{"roots":7}})");
  EXPECT_EQ(round.ask("a", kElicit, kElicitParams).status, AIRLOCK_STATUS_OK);
  EXPECT_EQ(round.ask("b", kElicit, kElicitParams).status, AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(round.ask("c", kRoots, "{}").status, AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(round.malformed_key(), "b");
}

TEST(InputRound, MalformedAnswerOnlyCountsWhenAsked) {
  auto round = answered(R"({"user_name":12345})");
  EXPECT_FALSE(round.malformed_key());
  EXPECT_EQ(round.ask("user_name", kElicit, kElicitParams).status, AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(round.malformed_key(), "user_name");
}

// --- what the next attempt inherits

TEST(InputRound, NextStateHoldsAnswersUsedAndQuestionsOpen) {
  RoundState carried;
  carried.answers["old"] = json::object{{"method", kRoots}, {"result", object(R"({"roots":[]})")}};
  carried.pending["fresh"] = kElicit;
  carried.pending["later"] = kSample;
  auto round = answered(R"({"fresh":{"action":"accept","content":{"name":"Ada"}}})", carried);
  EXPECT_EQ(round.ask("fresh", kElicit, kElicitParams).status, AIRLOCK_STATUS_OK);
  EXPECT_EQ(round.ask("later", kSample, kSampleParams).status, AIRLOCK_STATUS_INPUT_REQUIRED);
  const auto next = round.next_state();
  EXPECT_EQ(next.answers, object(R"({"old":{"method":"roots/list","result":{"roots":[]}},
                                     "fresh":{"method":"elicitation/create","result":{"action":"accept",
                                              "content":{"name":"Ada"}}}})"));
  EXPECT_EQ(next.pending, object(R"({"later":"sampling/createMessage"})"));
}

TEST(InputRound, NextStateOfAnUntouchedRoundIsEmpty) {
  const auto next = fresh().next_state();
  EXPECT_TRUE(next.answers.empty());
  EXPECT_TRUE(next.pending.empty());
}

// The multi-round fixture: step2 is asked only once step1 is answered, and
// each retry sends only the answer to the last question.
struct Outcome {
  bool complete;
  std::string text;
  RoundState next;
  json::object requests;
};

Outcome run_multi_round_tool(InputRound& round) {
  const auto step1 = round.ask("step1", kElicit, R"({"message":"Step 1: What is your name?"})");
  if (step1.status != AIRLOCK_STATUS_OK) return {false, {}, round.next_state(), round.input_requests()};
  const auto step2 = round.ask("step2", kElicit, R"({"message":"Step 2: What is your favorite color?"})");
  if (step2.status != AIRLOCK_STATUS_OK) return {false, {}, round.next_state(), round.input_requests()};
  const auto name = json::parse(step1.json).at("content").at("name").as_string();
  const auto color = json::parse(step2.json).at("content").at("color").as_string();
  return {true, "Multi-round complete for " + std::string(name) + " who likes " + std::string(color), {}, {}};
}

TEST(InputRound, MultiRoundCarriesEarlierAnswersThroughTheSealedState) {
  const RequestStateSealer sealer(RequestStateSealer::Key{}, std::chrono::seconds(60));
  const StateBinding binding{"", "tools/call", "d"};
  const auto now = std::chrono::system_clock::now();

  InputRound round1(all_capabilities(), {}, nullptr);
  const auto first = run_multi_round_tool(round1);
  ASSERT_FALSE(first.complete);
  EXPECT_EQ(first.requests.size(), 1u);
  EXPECT_TRUE(first.requests.contains("step1"));
  const auto state1 = sealer.seal(first.next, binding, now);

  auto carried2 = sealer.open(state1, binding, now);
  ASSERT_TRUE(carried2);
  const auto responses2 = object(R"({"step1":{"action":"accept","content":{"name":"Ada"}}})");
  InputRound round2(all_capabilities(), *carried2, &responses2);
  const auto second = run_multi_round_tool(round2);
  ASSERT_FALSE(second.complete);
  EXPECT_EQ(second.requests.size(), 1u);
  EXPECT_TRUE(second.requests.contains("step2"));
  const auto state2 = sealer.seal(second.next, binding, now);

  // Round 3 sends only step2: step1's answer must come from the state.
  auto carried3 = sealer.open(state2, binding, now);
  ASSERT_TRUE(carried3);
  const auto responses3 = object(R"({"step2":{"action":"accept","content":{"color":"green"}}})");
  InputRound round3(all_capabilities(), *carried3, &responses3);
  const auto third = run_multi_round_tool(round3);
  ASSERT_TRUE(third.complete);
  EXPECT_EQ(third.text, "Multi-round complete for Ada who likes green");
  EXPECT_FALSE(round3.input_required());

  // Without the state the same retry cannot finish: step1 is asked again.
  InputRound stateless(all_capabilities(), {}, &responses3);
  const auto lost = run_multi_round_tool(stateless);
  ASSERT_FALSE(lost.complete);
  EXPECT_TRUE(lost.requests.contains("step1"));
}

TEST(InputRound, ReplayedAnswerForAnAnsweredQuestionIsIgnored) {
  // A state whose step1 is already answered no longer lists it as pending:
  // a retry that sends another step1 cannot overwrite the sealed answer.
  RoundState carried;
  carried.answers["step1"] = json::object{{"method", kElicit}, {"result", kAccepted}};
  carried.pending["step2"] = kElicit;
  auto round = answered(R"({"step1":{"action":"accept","content":{"name":"Eve"}}})", carried);
  const auto reply = round.ask("step1", kElicit, kElicitParams);
  ASSERT_EQ(reply.status, AIRLOCK_STATUS_OK);
  EXPECT_EQ(json::parse(reply.json), kAccepted);
}

}  // namespace
}  // namespace airlock::host
