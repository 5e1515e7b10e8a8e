// Tests for the result pipeline: what a tool left (from the real canary tools,
// or set by hand) through payload check, chain, mirror and envelope, to the
// CallToolResult a client receives; the JSON-RPC response around it; and a
// resource or prompt on the same stages.
#include "pipeline/result_pipeline.hpp"

#include "plugins/host_api.hpp"
#include "unit_support.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canary.h"

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace airlock::host {
namespace {

using testing::HasSubstr;
using testing::Not;

constexpr std::string_view kCanaryTail = "7f3a9c";

const PluginRegistry& registry() {
  static const auto loaded = unit::load_registry(unit::config_with_dirs({unit::fixture_dir("canary")}));
  return *loaded;
}

const Tool& tool(std::string_view name) {
  const Tool* t = registry().find_tool(name);
  if (!t) throw std::runtime_error("no loaded tool " + std::string(name));
  return *t;
}

SanitizerChain chain_of(std::initializer_list<std::string_view> names) {
  std::vector<const Sanitizer*> steps;
  for (auto name : names) {
    const Sanitizer* s = registry().find_sanitizer(name);
    if (!s) throw std::runtime_error("no loaded sanitizer " + std::string(name));
    steps.push_back(s);
  }
  return SanitizerChain("test", std::move(steps));
}

ToolRoute route_for(std::string_view name, const SanitizerChain* chain = nullptr, Mirror mirror = Mirror::text) {
  return ToolRoute{&tool(name), chain, mirror, std::nullopt};
}

// Calls the real tool, as a worker would, and keeps what it left.
ToolCallOutcome call(const Tool& t, std::string_view arguments) {
  std::atomic<bool> cancelled{false};
  airlock_call handle;
  handle.cancelled = &cancelled;
  ToolCallOutcome outcome;
  outcome.status = t.on_call(t.tool_data, &handle, borrow(arguments));
  outcome.output = std::move(handle.output);
  return outcome;
}

const RequestContext kContext{"2025-11-25", "", "", "1"};

std::string run_raw(const ToolRoute& route, ToolCallOutcome outcome, std::string_view arguments = "{}") {
  return run_result_pipeline(route, std::move(outcome), kContext, arguments);
}

boost::json::object run(const ToolRoute& route, ToolCallOutcome outcome, std::string_view arguments = "{}") {
  return boost::json::parse(run_raw(route, std::move(outcome), arguments)).as_object();
}

ToolCallOutcome outcome_of(airlock_status status) {
  ToolCallOutcome outcome;
  outcome.status = status;
  return outcome;
}

boost::json::object error_result(std::string_view text) {
  return boost::json::object{
      {"content", boost::json::array{boost::json::object{{"type", "text"}, {"text", text}}}}, {"isError", true}};
}

const boost::json::object kWithheld = error_result(kWithheldText);

// --- tools that succeed

TEST(ResultPipeline, ReturnsTheTextATextToolWrote) {
  const auto route = route_for("canary.echo");
  const auto result = run(route, call(*route.tool, R"({"text":"hi"})"), R"({"text":"hi"})");
  EXPECT_EQ(result, boost::json::parse(R"({"content":[{"type":"text","text":"hi CANARY-7f3a9c"}]})").as_object());
}

TEST(ResultPipeline, MirrorsStructuredContentAsItsSerializedText) {
  const auto route = route_for("canary.structured");
  const auto result = run(route, call(*route.tool, "{}"));
  ASSERT_TRUE(result.contains("structuredContent"));
  EXPECT_EQ(result.at("structuredContent"), boost::json::parse(R"({"secret":"CANARY-7f3a9c","n":1})"));
  const auto& content = result.at("content").as_array();
  ASSERT_EQ(content.size(), 1u);
  EXPECT_EQ(content[0].at("type"), "text");
  EXPECT_EQ(content[0].at("text").as_string(), boost::json::serialize(result.at("structuredContent")));
  EXPECT_FALSE(result.contains("isError"));
}

TEST(ResultPipeline, WritesNoTextBlockWhenMirroringIsOff) {
  const auto route = route_for("canary.structured", nullptr, Mirror::none);
  const auto result = run(route, call(*route.tool, "{}"));
  EXPECT_TRUE(result.at("content").as_array().empty());
  EXPECT_EQ(result.at("structuredContent"), boost::json::parse(R"({"secret":"CANARY-7f3a9c","n":1})"));
}

TEST(ResultPipeline, KeepsAToolsOwnTextInsteadOfMirroring) {
  ToolCallOutcome outcome = outcome_of(AIRLOCK_STATUS_OK);
  outcome.output.content.push_back(boost::json::object{{"type", "text"}, {"text", "my own words"}});
  outcome.output.structured = boost::json::object{{"n", 1}};
  const auto result = run(route_for("canary.structured"), std::move(outcome));
  const auto& content = result.at("content").as_array();
  ASSERT_EQ(content.size(), 1u);
  EXPECT_EQ(content[0].at("text"), "my own words");
}

TEST(ResultPipeline, MirrorsTheStructuredContentTheChainLeft) {
  const auto redact = chain_of({"canary.redact"});
  const auto route = route_for("canary.structured", &redact);
  const std::string raw = run_raw(route, call(*route.tool, "{}"));
  EXPECT_THAT(raw, Not(HasSubstr(kCanaryTail)));
  const auto result = boost::json::parse(raw).as_object();
  EXPECT_EQ(result.at("structuredContent").at("secret"), "[redacted]");
  EXPECT_EQ(result.at("content").at(0).at("text").as_string(), boost::json::serialize(result.at("structuredContent")));
}

TEST(ResultPipeline, ReturnsAWholeResultAsTheToolSetIt) {
  ToolCallOutcome outcome = outcome_of(AIRLOCK_STATUS_OK);
  outcome.output.whole = boost::json::parse(
      R"({"content":[{"type":"resource_link","uri":"file:///a","name":"a"}],"_meta":{"trace":"t-1"}})").as_object();
  const auto result = run(route_for("canary.echo"), std::move(outcome));
  EXPECT_EQ(result, boost::json::parse(
      R"({"content":[{"type":"resource_link","uri":"file:///a","name":"a"}],"_meta":{"trace":"t-1"}})").as_object());
}

// --- isError

TEST(ResultPipeline, ErasesIsErrorFalse) {
  ToolCallOutcome outcome = outcome_of(AIRLOCK_STATUS_OK);
  outcome.output.whole = boost::json::parse(R"({"content":[{"type":"text","text":"ok"}],"isError":false})").as_object();
  const auto result = run(route_for("canary.echo"), std::move(outcome));
  EXPECT_FALSE(result.contains("isError"));
  EXPECT_EQ(result.at("content").at(0).at("text"), "ok");
}

TEST(ResultPipeline, KeepsIsErrorTrueFromAWholeResult) {
  ToolCallOutcome outcome = outcome_of(AIRLOCK_STATUS_OK);
  outcome.output.whole = boost::json::parse(R"({"content":[{"type":"text","text":"no"}],"isError":true})").as_object();
  const auto result = run(route_for("canary.echo"), std::move(outcome));
  EXPECT_EQ(result, error_result("no"));
}

TEST(ResultPipeline, TurnsAToolErrorIntoAnIsErrorResultWithItsMessage) {
  const auto route = route_for("canary.throws");
  ToolCallOutcome outcome = call(*route.tool, "{}");
  ASSERT_EQ(outcome.status, AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_EQ(run(route, std::move(outcome)), error_result("boom " AIRLOCK_CANARY));
}

TEST(ResultPipeline, PassesAToolErrorMessageThroughTheChain) {
  const auto redact = chain_of({"canary.redact"});
  const auto route = route_for("canary.throws", &redact);
  const std::string raw = run_raw(route, call(*route.tool, "{}"));
  EXPECT_EQ(boost::json::parse(raw), boost::json::value(error_result("boom [redacted]")));
  EXPECT_THAT(raw, Not(HasSubstr(kCanaryTail)));
}

TEST(ResultPipeline, GivesAToolErrorWithoutMessageAGenericOne) {
  EXPECT_EQ(run(route_for("canary.echo"), outcome_of(AIRLOCK_STATUS_TOOL_ERROR)), error_result("the tool failed"));
}

TEST(ResultPipeline, TurnsAnErrorMessageSetWithStatusOkIntoAnIsErrorResult) {
  ToolCallOutcome outcome = outcome_of(AIRLOCK_STATUS_OK);
  outcome.output.error_message = "quota exceeded";
  outcome.output.content.push_back(boost::json::object{{"type", "text"}, {"text", "partial"}});
  EXPECT_EQ(run(route_for("canary.echo"), std::move(outcome)), error_result("quota exceeded"));
}

// Any status but OK and TOOL_ERROR is the host's fixed text: nothing the
// plugin left behind (text, error message) reaches the client.
TEST(ResultPipeline, ShowsOnlyFixedTextWhenAToolFailsInternally) {
  for (const airlock_status status : {AIRLOCK_STATUS_INTERNAL, AIRLOCK_STATUS_CANCELLED,
                                      AIRLOCK_STATUS_INVALID_ARGUMENT, AIRLOCK_STATUS_UNCHANGED, 99}) {
    ToolCallOutcome outcome = outcome_of(status);
    outcome.output.error_message = "internal " AIRLOCK_CANARY;
    outcome.output.content.push_back(boost::json::object{{"type", "text"}, {"text", AIRLOCK_CANARY}});
    outcome.output.structured = boost::json::object{{"s", AIRLOCK_CANARY}};
    const std::string raw = run_raw(route_for("canary.echo"), std::move(outcome));
    EXPECT_EQ(boost::json::parse(raw), boost::json::value(error_result("the tool failed with an internal error")))
        << "status " << status;
    EXPECT_THAT(raw, Not(HasSubstr(kCanaryTail))) << "status " << status;
  }
}

// --- withheld

TEST(ResultPipeline, WithholdsAnOkResultWithNothingSet) {
  EXPECT_EQ(run(route_for("canary.echo"), outcome_of(AIRLOCK_STATUS_OK)), kWithheld);
}

TEST(ResultPipeline, WithholdsAWholeResultThatAlsoHasTextBlocks) {
  ToolCallOutcome outcome = outcome_of(AIRLOCK_STATUS_OK);
  outcome.output.whole = boost::json::parse(R"({"content":[]})").as_object();
  outcome.output.content.push_back(boost::json::object{{"type", "text"}, {"text", "extra"}});
  EXPECT_EQ(run(route_for("canary.echo"), std::move(outcome)), kWithheld);
}

TEST(ResultPipeline, WithholdsAMalformedWholeResult) {
  for (const char* whole : {R"({"structuredContent":{}})", R"({"content":[{"type":"text"}]})",
                            R"({"content":[],"isError":"yes"})", R"({"content":[],"_meta":[]})"}) {
    ToolCallOutcome outcome = outcome_of(AIRLOCK_STATUS_OK);
    outcome.output.whole = boost::json::parse(whole).as_object();
    EXPECT_EQ(run(route_for("canary.echo"), std::move(outcome)), kWithheld) << whole;
  }
}

TEST(ResultPipeline, WithholdsTheResultWhenTheChainFails) {
  for (const auto step : {"canary.fail", "canary.throwing", "canary.bad-output"}) {
    const auto chain = chain_of({"canary.redact", step});
    const auto route = route_for("canary.echo", &chain);
    const std::string raw = run_raw(route, call(*route.tool, R"({"text":"hi"})"), R"({"text":"hi"})");
    const auto result = boost::json::parse(raw).as_object();
    EXPECT_EQ(result, kWithheld) << step;
    EXPECT_EQ(result.at("content").at(0).at("text").as_string(), kWithheldText) << step;
    EXPECT_THAT(raw, Not(HasSubstr(kCanaryTail))) << step;
  }
}

TEST(ResultPipeline, WithholdsAToolErrorWhenTheChainFails) {
  const auto chain = chain_of({"canary.fail"});
  const auto route = route_for("canary.throws", &chain);
  const std::string raw = run_raw(route, call(*route.tool, "{}"));
  EXPECT_EQ(boost::json::parse(raw), boost::json::value(kWithheld));
  EXPECT_THAT(raw, Not(HasSubstr(kCanaryTail)));
}

}  // namespace
}  // namespace airlock::host

// --- the frame, and resources and prompts on the same stages

namespace airlock::host {
namespace {

using testing::StartsWith;

boost::json::object parsed(std::string_view text) { return boost::json::parse(text).as_object(); }

TEST(ResultPipeline, WritesTheCompleteResponseAroundTheResultWhenGivenTheRequestId) {
  const auto route = route_for("canary.echo");
  std::string out = "before:";  // appended to, never overwritten
  const boost::json::value id = 5;
  const auto verdict =
      run_result_pipeline(route, call(*route.tool, R"({"text":"hi"})"), kContext, R"({"text":"hi"})", out, &id);
  ASSERT_THAT(out, StartsWith("before:"));
  const auto response = parsed(std::string_view(out).substr(7));
  EXPECT_EQ(response.at("jsonrpc"), "2.0");
  EXPECT_EQ(response.at("id"), 5);
  EXPECT_EQ(response.at("result"),
            boost::json::parse(R"({"content":[{"type":"text","text":"hi CANARY-7f3a9c"}]})"));
  // The verdict points at the result inside the response: what the audit trail digests.
  EXPECT_EQ(boost::json::parse(verdict.result_in(out)), response.at("result"));
}

TEST(ResultPipeline, AWithheldToolResultIsStillAResultInsideTheResponse) {
  const auto chain = chain_of({"canary.fail"});
  const auto route = route_for("canary.echo", &chain);
  std::string out;
  const boost::json::value id = "call-1";
  const auto verdict =
      run_result_pipeline(route, call(*route.tool, R"({"text":"hi"})"), kContext, R"({"text":"hi"})", out, &id);
  EXPECT_EQ(verdict.withheld, "chain");
  const auto response = parsed(out);
  EXPECT_EQ(response.at("id"), "call-1");
  EXPECT_EQ(response.at("result"), kWithheld);
  EXPECT_THAT(out, Not(HasSubstr(kCanaryTail)));
}

ContentRoute content_route(const SanitizerChain* chain, std::size_t budget = 1u << 20) {
  return ContentRoute{chain, budget, std::chrono::milliseconds(1000)};
}

TEST(ContentPipeline, AResourceThatPassesItsChainIsTheWholeResponseWithItsTextSanitized) {
  const auto chain = chain_of({"canary.redact"});
  const auto route = content_route(&chain);
  auto result = parsed(R"({"contents":[{"uri":"canary://CANARY-7f3a9c","mimeType":"text/plain",)"
                       R"("text":"key CANARY-7f3a9c"}]})");
  std::string out;
  const auto verdict = run_content_pipeline({ContentKind::resource, "canary://x", route}, std::move(result),
                                            kContext, boost::json::value("r1"), out);
  EXPECT_TRUE(verdict.withheld.empty());
  EXPECT_FALSE(verdict.error);
  const auto response = parsed(out);
  EXPECT_EQ(response.at("id"), "r1");
  const auto& content = response.at("result").at("contents").at(0);
  EXPECT_EQ(content.at("text"), "key [redacted]");
  // A URI is not text a model reads as prose: the chain's text steps leave it.
  EXPECT_EQ(content.at("uri"), "canary://CANARY-7f3a9c");
  EXPECT_EQ(boost::json::parse(verdict.result_in(out)), response.at("result"));
}

TEST(ContentPipeline, APromptThatFailsItsChainIsAnErrorResponseWithFixedTextOnly) {
  const auto chain = chain_of({"canary.fail"});
  const auto route = content_route(&chain);
  auto result = parsed(R"({"description":"d CANARY-7f3a9c","messages":[{"role":"user",)"
                       R"("content":{"type":"text","text":"CANARY-7f3a9c"}}]})");
  std::string out;
  const auto verdict = run_content_pipeline({ContentKind::prompt, "canary.prompt", route}, std::move(result),
                                            kContext, boost::json::value(9), out);
  EXPECT_EQ(verdict.withheld, "chain");
  EXPECT_EQ(verdict.step, "canary.fail");
  EXPECT_TRUE(verdict.error);
  EXPECT_TRUE(verdict.result_in(out).empty());
  const auto response = parsed(out);
  EXPECT_EQ(response.at("id"), 9);
  EXPECT_FALSE(response.contains("result"));
  EXPECT_EQ(response.at("error").at("code"), -32603);
  EXPECT_EQ(response.at("error").at("message").as_string(), kPromptWithheldText);
  EXPECT_THAT(out, Not(HasSubstr(kCanaryTail)));
}

TEST(ContentPipeline, AResourceOverItsBudgetIsWithheldWholeNeverCut) {
  const auto route = content_route(nullptr, 64);
  auto result = parsed(R"({"contents":[{"uri":"canary://big","text":")" + std::string(200, 'z') + R"("}]})");
  std::string out;
  const auto verdict = run_content_pipeline({ContentKind::resource, "canary://big", route}, std::move(result),
                                            kContext, boost::json::value(1), out);
  EXPECT_EQ(verdict.withheld, "budget");
  EXPECT_EQ(parsed(out).at("error").at("message").as_string(), kResourceOverBudgetText);
  EXPECT_THAT(out, Not(HasSubstr("zzz")));
}

TEST(ContentPipeline, TextThatIsNotUtf8WithholdsTheContent) {
  const auto route = content_route(nullptr);
  boost::json::object result{
      {"contents", boost::json::array{boost::json::object{{"uri", "canary://bad"}, {"text", "\xff\xfe"}}}}};
  std::string out;
  const auto verdict = run_content_pipeline({ContentKind::resource, "canary://bad", route}, std::move(result),
                                            kContext, boost::json::value(2), out);
  EXPECT_EQ(verdict.withheld, "chain");
  EXPECT_EQ(parsed(out).at("error").at("message").as_string(), kResourceWithheldText);
}

}  // namespace
}  // namespace airlock::host
