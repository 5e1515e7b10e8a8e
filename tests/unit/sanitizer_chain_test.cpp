// Tests for running a sanitizer chain over a tool result: which strings text
// sanitizers see, the order of steps and their fusion into one walk, failing
// closed without plugin text, and tool_result_shape_error. The sanitizers are
// the real ones from the plugin directory and the canary fixture, plus a few
// recording steps made here to watch the order of calls.
#include "pipeline/sanitizer_chain.hpp"

#include "pipeline/tool_result_shape.hpp"
#include "plugins/host_api.hpp"
#include "unit_support.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canary.h"

#include <memory>
#include <optional>
#include <string>
#include <chrono>
#include <thread>
#include <vector>

namespace airlock::host {
namespace {

using testing::ElementsAre;
using testing::HasSubstr;
using testing::Not;

constexpr std::string_view kCanaryTail = "7f3a9c";

// The plugin directory and the canary fixture, loaded once for the file.
const PluginRegistry& registry() {
  static const auto loaded =
      unit::load_registry(unit::config_with_dirs({unit::kPluginDir, unit::fixture_dir("canary")}));
  return *loaded;
}

const Sanitizer* real(std::string_view name) {
  const Sanitizer* s = registry().find_sanitizer(name);
  if (!s) throw std::runtime_error("no loaded sanitizer " + std::string(name));
  return s;
}

SanitizerChain chain_of(std::vector<const Sanitizer*> steps) { return SanitizerChain("test", std::move(steps)); }

SanitizerChain chain_of(std::initializer_list<std::string_view> names) {
  std::vector<const Sanitizer*> steps;
  for (auto name : names) steps.push_back(real(name));
  return chain_of(std::move(steps));
}

boost::json::object object_of(std::string_view json) { return boost::json::parse(json).as_object(); }

const RequestContext kContext{"2025-11-25", "session-1", "alice", "42"};

std::optional<ChainFailure> run(const SanitizerChain& chain, boost::json::object& result,
                                std::string_view arguments = "{}") {
  return chain.run(result, ChainCall{kContext, "test.tool", arguments});
}

boost::json::object text_result(std::string_view text) {
  return boost::json::object{
      {"content", boost::json::array{boost::json::object{{"type", "text"}, {"text", text}}}}};
}

std::string first_text(const boost::json::object& result) {
  return std::string(result.at("content").as_array().at(0).as_object().at("text").as_string());
}

// --- sanitizers made here, to record the order of calls

// A text step that logs "<tag>:<input>" and appends its tag to the text.
struct Recorder {
  std::string tag;
  std::vector<std::string>* log;
};

airlock_status record_text(void* data, airlock_str text, airlock_text_writer* out) noexcept {
  auto* r = static_cast<Recorder*>(data);
  r->log->push_back(r->tag + ":" + std::string(view(text)));
  const std::string output = std::string(view(text)) + r->tag;
  return host_api().text_write(out, borrow(output));
}

// A result step that logs what it was told and answers as configured.
struct ResultStep {
  airlock_status status = AIRLOCK_STATUS_UNCHANGED;
  std::optional<std::string> write;  // written with result_write when set
  std::vector<std::string>* log = nullptr;
  // What the last call saw.
  std::string tool_name, arguments, result, protocol_version, session_id, caller, request_id;
};

airlock_status run_result_step(void* data, const airlock_request_context* context, airlock_str tool_name,
                               airlock_str arguments, airlock_str result, airlock_result_writer* out) noexcept {
  auto* r = static_cast<ResultStep*>(data);
  if (r->log) r->log->push_back("result");
  r->tool_name = view(tool_name);
  r->arguments = view(arguments);
  r->result = view(result);
  r->protocol_version = view(context->protocol_version);
  r->session_id = view(context->session_id);
  r->caller = view(context->caller);
  r->request_id = view(context->request_id);
  if (r->write) host_api().result_write(out, borrow(*r->write));
  return r->status;
}

Sanitizer text_step(const std::string& name, Recorder& recorder) {
  Sanitizer s;
  s.name = name;
  s.kind = SanitizerKind::text;
  s.data = &recorder;
  s.on_text = &record_text;
  return s;
}

Sanitizer result_step(ResultStep& step) {
  Sanitizer s;
  s.name = "test.result";
  s.kind = SanitizerKind::result;
  s.data = &step;
  s.on_result = &run_result_step;
  return s;
}

// --- which strings text sanitizers see

TEST(SanitizerChain, StripsControlCharactersFromContentText) {
  auto result = text_result("\x1b[31mred\x1b[0m and \x07" "bell");
  ASSERT_EQ(run(chain_of({"airlock.strip-control"}), result), std::nullopt);
  EXPECT_EQ(first_text(result), "red and bell");
}

TEST(SanitizerChain, StripsTheTextOfAnEmbeddedResource) {
  auto result = object_of(R"({"content":[{"type":"resource","resource":
      {"uri":"file:///notes.txt","mimeType":"text/plain","text":"a\u001b[2Jb\u0007c"}}]})");
  ASSERT_EQ(run(chain_of({"airlock.strip-control"}), result), std::nullopt);
  const auto& resource = result.at("content").as_array().at(0).as_object().at("resource").as_object();
  EXPECT_EQ(resource.at("text"), "abc");
  EXPECT_EQ(resource.at("uri"), "file:///notes.txt");
}

// The model reads a resource link's name, title and description, so they are
// text like any other; its URI is a destination and stays byte for byte.
TEST(SanitizerChain, StripsTheTextFieldsOfAResourceLinkButNotItsUri) {
  auto result = object_of(R"({"content":[{"type":"resource_link","uri":"file:///a\u0007b",
      "name":"n\u001b[31ma","title":"t\u0007i","description":"d\u0007e"}]})");
  ASSERT_EQ(run(chain_of({"airlock.strip-control"}), result), std::nullopt);
  const auto& link = result.at("content").as_array().at(0).as_object();
  EXPECT_EQ(link.at("name"), "na");
  EXPECT_EQ(link.at("title"), "ti");
  EXPECT_EQ(link.at("description"), "de");
  EXPECT_EQ(link.at("uri"), "file:///a\u0007b");
}

// Keys are text the model reads (the mirror and the client show them), so
// they pass the chain as values do, and keep their order and their values.
TEST(SanitizerChain, StripsEveryStringInStructuredContentKeysIncluded) {
  auto result = object_of(R"({"content":[],"structuredContent":{
      "top":"a\u0007b",
      "k\u0007ey":"v\u0007al",
      "list":["c\u0007d",1,true,null,["e\u0007f",{"de\u0007ep":"g\u0007h"}]],
      "nested":{"mo\u0007re":{"leaf":"i\u0007j"}},
      "number":7}})");
  ASSERT_EQ(run(chain_of({"airlock.strip-control"}), result), std::nullopt);
  const boost::json::value expected = boost::json::parse(R"({
      "top":"ab",
      "key":"val",
      "list":["cd",1,true,null,["ef",{"deep":"gh"}]],
      "nested":{"more":{"leaf":"ij"}},
      "number":7})");
  EXPECT_EQ(boost::json::value(result.at("structuredContent")), expected);
  EXPECT_EQ(boost::json::serialize(result.at("structuredContent")), boost::json::serialize(expected))
      << "the keys kept their order";
}

TEST(SanitizerChain, WithholdsAResultWhoseKeysTheChainMakesEqual) {
  auto result = object_of(R"({"content":[],"structuredContent":{"inner":{"a\u0007b":1,"ab":2}}})");
  const auto failure = run(chain_of({"airlock.identity", "airlock.strip-control"}), result);
  ASSERT_NE(failure, std::nullopt);
  EXPECT_EQ(failure->sanitizer, "airlock.identity+airlock.strip-control");
  EXPECT_THAT(failure->reason, HasSubstr("same key"));
}

TEST(SanitizerChain, LeavesMetaAndNonTextFieldsToResultSanitizers) {
  const std::string json = R"({"content":[
      {"type":"image","data":"QUJD\u0007","mimeType":"image/png\u0007"},
      {"type":"text\u0007x","text":"t"}],
      "_meta":{"note":"a\u0007b","list":["c\u0007d"]}})";
  auto result = object_of(json);
  ASSERT_EQ(run(chain_of({"airlock.strip-control"}), result), std::nullopt);
  EXPECT_EQ(result, object_of(json));
}

TEST(SanitizerChain, RunsCSanitizersAlongsideCppOnes) {
  auto result = text_result("x\x07y");
  ASSERT_EQ(run(chain_of({"airlock.identity", "airlock.strip-control", "airlock.identity"}), result), std::nullopt);
  EXPECT_EQ(first_text(result), "xy");
}

TEST(SanitizerChain, LeavesTheResultAloneWithNoSteps) {
  auto result = text_result("x\x07y");
  ASSERT_EQ(run(chain_of(std::vector<const Sanitizer*>{}), result), std::nullopt);
  EXPECT_EQ(first_text(result), "x\x07y");
}

// --- order and fusion

// The canary split by a BEL: redact only matches it once strip-control has
// joined it again, so the two orders give different text.
TEST(SanitizerChain, RunsStepsInTheOrderWritten) {
  const std::string split = "key: CANARY-\x07" "7f3a9c";
  {
    auto result = text_result(split);
    ASSERT_EQ(run(chain_of({"airlock.strip-control", "canary.redact"}), result), std::nullopt);
    EXPECT_EQ(first_text(result), "key: [redacted]");
  }
  {
    auto result = text_result(split);
    ASSERT_EQ(run(chain_of({"canary.redact", "airlock.strip-control"}), result), std::nullopt);
    EXPECT_EQ(first_text(result), "key: " AIRLOCK_CANARY);
  }
}

TEST(SanitizerChain, FusesConsecutiveTextStepsIntoOneWalk) {
  std::vector<std::string> log;
  Recorder a{"A", &log}, b{"B", &log};
  const Sanitizer sa = text_step("test.a", a), sb = text_step("test.b", b);
  auto result = object_of(R"({"content":[{"type":"text","text":"x"}],"structuredContent":{"s":"y"}})");
  ASSERT_EQ(run(chain_of({&sa, &sb}), result), std::nullopt);
  // Each leaf passes every step before the next leaf is visited; an
  // object's keys are leaves too, visited after its values.
  EXPECT_THAT(log, ElementsAre("A:x", "B:xA", "A:y", "B:yA", "A:s", "B:sA"));
  EXPECT_EQ(first_text(result), "xAB");
  EXPECT_EQ(result.at("structuredContent").at("sAB"), "yAB");
}

TEST(SanitizerChain, RunsAResultStepBetweenTwoTextWalks) {
  std::vector<std::string> log;
  Recorder a{"A", &log}, b{"B", &log};
  ResultStep r;
  r.log = &log;
  const Sanitizer sa = text_step("test.a", a), sb = text_step("test.b", b), sr = result_step(r);
  auto result = object_of(R"({"content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]})");
  ASSERT_EQ(run(chain_of({&sa, &sr, &sb}), result), std::nullopt);
  EXPECT_THAT(log, ElementsAre("A:x", "A:y", "result", "B:xA", "B:yA"));
  // The result step saw the output of the text walk before it.
  EXPECT_EQ(boost::json::parse(r.result),
            boost::json::parse(R"({"content":[{"type":"text","text":"xA"},{"type":"text","text":"yA"}]})"));
}

// Resources and prompts: text steps only, one walk, over the strings the
// content pipeline picked, with the same deadline rule as a tool result.
TEST(SanitizerChain, RunTextRunsOnlyTheTextStepsInOneWalkOverTheLeavesItIsGiven) {
  std::vector<std::string> log;
  Recorder a{"A", &log}, b{"B", &log};
  ResultStep r;
  r.log = &log;
  const Sanitizer sa = text_step("test.a", a), sb = text_step("test.b", b), sr = result_step(r);
  boost::json::string x("x"), y("y"), untouched("u");
  ASSERT_EQ(chain_of({&sa, &sr, &sb}).run_text({&x, &y}, std::chrono::seconds(1)), std::nullopt);
  EXPECT_THAT(log, ElementsAre("A:x", "B:xA", "A:y", "B:yA"));  // no "result"
  EXPECT_EQ(x, "xAB");
  EXPECT_EQ(y, "yAB");
  EXPECT_EQ(untouched, "u");
}

airlock_status slow_text(void*, airlock_str, airlock_text_writer*) noexcept {
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  return AIRLOCK_STATUS_UNCHANGED;
}

TEST(SanitizerChain, RunTextWithholdsAWalkThatOverranItsDeadlineAndNamesItsSteps) {
  Sanitizer slow;
  slow.name = "test.slow";
  slow.kind = SanitizerKind::text;
  slow.on_text = &slow_text;
  boost::json::string leaf("text");
  const auto failure = chain_of({&slow}).run_text({&leaf}, std::chrono::milliseconds(5));
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->sanitizer, "test.slow");
  EXPECT_THAT(failure->reason, HasSubstr("over its 5 ms deadline"));
  // A walk within its deadline passes.
  EXPECT_EQ(chain_of({&slow}).run_text({&leaf}, std::chrono::seconds(2)), std::nullopt);
}

TEST(SanitizerChain, StopsAtTheFirstFailingStep) {
  std::vector<std::string> log;
  Recorder after{"Z", &log};
  const Sanitizer s_after = text_step("test.after", after);
  {
    auto result = text_result("x");
    const auto failure = run(chain_of({real("canary.fail"), real("canary.bad-output"), &s_after}), result);
    ASSERT_TRUE(failure.has_value());
    EXPECT_EQ(failure->sanitizer, "canary.fail");
  }
  {
    auto result = text_result("x");
    const auto failure = run(chain_of({real("canary.bad-output"), real("canary.fail"), &s_after}), result);
    ASSERT_TRUE(failure.has_value());
    EXPECT_EQ(failure->sanitizer, "canary.bad-output");
  }
  EXPECT_TRUE(log.empty());
}

// --- result steps

TEST(SanitizerChain, TellsAResultStepAboutTheRequest) {
  ResultStep r;
  const Sanitizer sr = result_step(r);
  auto result = text_result("x");
  ASSERT_EQ(run(chain_of({&sr}), result, R"({"q":1})"), std::nullopt);
  EXPECT_EQ(r.tool_name, "test.tool");
  EXPECT_EQ(r.arguments, R"({"q":1})");
  EXPECT_EQ(boost::json::parse(r.result), boost::json::value(text_result("x")));
  EXPECT_EQ(r.protocol_version, "2025-11-25");
  EXPECT_EQ(r.session_id, "session-1");
  EXPECT_EQ(r.caller, "alice");
  EXPECT_EQ(r.request_id, "42");
  EXPECT_EQ(first_text(result), "x");  // UNCHANGED
}

TEST(SanitizerChain, ReplacesTheResultWithAResultStepsOutput) {
  ResultStep r;
  r.status = AIRLOCK_STATUS_OK;
  r.write = R"({"content":[{"type":"text","text":"replaced"}],"_meta":{"by":"test"}})";
  const Sanitizer sr = result_step(r);
  auto result = text_result("x");
  ASSERT_EQ(run(chain_of({&sr}), result), std::nullopt);
  EXPECT_EQ(result, object_of(*r.write));
}

TEST(SanitizerChain, FailsAResultStepThatWritesSomethingOtherThanAToolResult) {
  ResultStep r;
  r.status = AIRLOCK_STATUS_OK;
  r.write = R"({"content":"not an array CANARY-7f3a9c"})";
  const Sanitizer sr = result_step(r);
  auto result = text_result("x");
  const auto failure = run(chain_of({&sr}), result);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->sanitizer, "test.result");
  EXPECT_EQ(failure->reason, "wrote a result that is not a tool result: content is not an array");
  EXPECT_THAT(failure->reason, Not(HasSubstr(kCanaryTail)));
}

TEST(SanitizerChain, FailsAResultStepThatWritesJsonThatIsNotAnObject) {
  ResultStep r;
  r.status = AIRLOCK_STATUS_OK;
  r.write = R"(["x"])";
  const Sanitizer sr = result_step(r);
  auto result = text_result("x");
  const auto failure = run(chain_of({&sr}), result);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->reason, "wrote JSON that is not an object");
}

TEST(SanitizerChain, FailsAResultStepThatReturnsOkWithoutWriting) {
  ResultStep r;
  r.status = AIRLOCK_STATUS_OK;
  const Sanitizer sr = result_step(r);
  auto result = text_result("x");
  const auto failure = run(chain_of({&sr}), result);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->reason, "returned OK without writing a result");
}

TEST(SanitizerChain, FailsAResultStepThatWritesAndSaysUnchanged) {
  ResultStep r;
  r.status = AIRLOCK_STATUS_UNCHANGED;
  r.write = R"({"content":[]})";
  const Sanitizer sr = result_step(r);
  auto result = text_result("x");
  const auto failure = run(chain_of({&sr}), result);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->reason, "wrote output and returned UNCHANGED");
}

// --- failing closed, without plugin text

// Every failing canary step had the canary in front of it (the input) or in
// its hands (its exception, its output); none may reach the failure.
void expect_fails_closed(std::string_view step, std::string_view reason) {
  auto result = text_result("secret " AIRLOCK_CANARY);
  result["structuredContent"] = boost::json::object{{"s", AIRLOCK_CANARY}};
  const auto failure = run(chain_of({step}), result);
  ASSERT_TRUE(failure.has_value()) << step;
  EXPECT_EQ(failure->sanitizer, step);
  EXPECT_EQ(failure->reason, reason);
  EXPECT_THAT(failure->sanitizer, Not(HasSubstr(kCanaryTail)));
  EXPECT_THAT(failure->reason, Not(HasSubstr(kCanaryTail)));
}

TEST(SanitizerChain, FailsClosedWhenATextStepReturnsAnError) {
  expect_fails_closed("canary.fail", "failed (internal error)");
}

TEST(SanitizerChain, FailsClosedWhenATextStepThrows) {
  expect_fails_closed("canary.throwing", "failed (internal error)");
}

TEST(SanitizerChain, FailsClosedWhenAResultStepWritesSomethingThatIsNotJson) {
  expect_fails_closed("canary.bad-output", "wrote output that is not JSON");
}

// --- run_text_steps on one leaf

// A step that turns UTF-8 into other bytes is the one named; one that only
// passes on what the tool wrote is not blamed for it.
airlock_status append_lone_lead_byte(void*, airlock_str text, airlock_text_writer* out) noexcept {
  const std::string output = std::string(view(text)) + "\xc3";
  return host_api().text_write(out, borrow(output));
}

TEST(RunTextSteps, NamesTheStepThatBrokeUtf8) {
  Sanitizer breaker;
  breaker.name = "test.breaker";
  breaker.kind = SanitizerKind::text;
  breaker.on_text = &append_lone_lead_byte;
  const SanitizerChain chain = chain_of({real("airlock.strip-control"), &breaker, real("airlock.strip-control")});
  auto result = text_result("fine");
  const auto failure = run(chain, result);
  ASSERT_NE(failure, std::nullopt);
  EXPECT_EQ(failure->sanitizer, "test.breaker");
  EXPECT_THAT(failure->reason, HasSubstr("not valid UTF-8"));

  auto already_broken = text_result("tool wrote \xff");
  EXPECT_EQ(run(chain_of({&breaker}), already_broken), std::nullopt)
      << "text that was not UTF-8 before the step is the tool's, reported after the chain";
}

TEST(RunTextSteps, LeavesTheLeafUntouchedWhenEveryStepReturnsUnchanged) {
  boost::json::string leaf = "plain text, nothing to strip";
  const char* before = leaf.data();
  const std::vector<const Sanitizer*> steps = {real("airlock.identity"), real("airlock.strip-control"),
                                               real("canary.redact")};
  ASSERT_EQ(run_text_steps(steps, leaf), std::nullopt);
  EXPECT_EQ(leaf, "plain text, nothing to strip");
  EXPECT_EQ(leaf.data(), before);
}

TEST(RunTextSteps, ChainsTheOutputOfEachChangingStepIntoTheNext) {
  std::vector<std::string> log;
  Recorder a{"A", &log}, b{"B", &log}, c{"C", &log};
  const Sanitizer sa = text_step("test.a", a), sb = text_step("test.b", b), sc = text_step("test.c", c);
  boost::json::string leaf = "x";
  ASSERT_EQ(run_text_steps({&sa, real("airlock.identity"), &sb, &sc, real("airlock.identity")}, leaf),
            std::nullopt);
  EXPECT_EQ(leaf, "xABC");
  EXPECT_THAT(log, ElementsAre("A:x", "B:xA", "C:xAB"));
}

TEST(RunTextSteps, KeepsAChangeWhenALaterStepReturnsUnchanged) {
  boost::json::string leaf = "a\x1b[1mb";
  ASSERT_EQ(run_text_steps({real("airlock.strip-control"), real("airlock.identity")}, leaf), std::nullopt);
  EXPECT_EQ(leaf, "ab");
}

TEST(RunTextSteps, LeavesTheLeafAsItWasWhenAStepFails) {
  std::vector<std::string> log;
  Recorder a{"A", &log};
  const Sanitizer sa = text_step("test.a", a);
  boost::json::string leaf = "x";
  const auto failure = run_text_steps({&sa, real("canary.fail")}, leaf);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->sanitizer, "canary.fail");
  EXPECT_EQ(leaf, "x");
}

// --- tool_result_shape_error

std::optional<std::string> shape_error(std::string_view json) { return tool_result_shape_error(object_of(json)); }

TEST(ToolResultShape, AcceptsEveryContentBlockType) {
  EXPECT_EQ(shape_error(R"({"content":[
      {"type":"text","text":"t"},
      {"type":"image","data":"QUJD","mimeType":"image/png"},
      {"type":"audio","data":"QUJD","mimeType":"audio/wav"},
      {"type":"resource_link","uri":"file:///a","name":"a"},
      {"type":"resource","resource":{"uri":"file:///b","text":"b"}}],
      "structuredContent":{"a":1},"isError":false,"_meta":{}})"),
            std::nullopt);
  EXPECT_EQ(shape_error(R"({"content":[]})"), std::nullopt);
}

TEST(ToolResultShape, SaysContentIsMissing) { EXPECT_EQ(shape_error(R"({"structuredContent":{}})"), "content is missing"); }

TEST(ToolResultShape, SaysContentIsNotAnArray) {
  EXPECT_EQ(shape_error(R"({"content":{"type":"text","text":"t"}})"), "content is not an array");
}

TEST(ToolResultShape, NamesTheBadBlockByIndex) {
  EXPECT_EQ(shape_error(R"({"content":[{"type":"text","text":"t"},"text"]})"), "content[1] is not an object");
  EXPECT_EQ(shape_error(R"({"content":[{"text":"t"}]})"), "content[0].type is not a string");
  EXPECT_EQ(shape_error(R"({"content":[{"type":3}]})"), "content[0].type is not a string");
  EXPECT_EQ(shape_error(R"({"content":[{"type":"video","data":"x"}]})"),
            "content[0].type is not a known content type");
}

TEST(ToolResultShape, NamesTheMissingFieldOfEachBlockType) {
  EXPECT_EQ(shape_error(R"({"content":[{"type":"text"}]})"), "content[0].text is not a string");
  EXPECT_EQ(shape_error(R"({"content":[{"type":"text","text":5}]})"), "content[0].text is not a string");
  EXPECT_EQ(shape_error(R"({"content":[{"type":"image","data":"QUJD"}]})"), "content[0].mimeType is not a string");
  EXPECT_EQ(shape_error(R"({"content":[{"type":"audio","mimeType":"audio/wav"}]})"),
            "content[0].data is not a string");
  EXPECT_EQ(shape_error(R"({"content":[{"type":"resource_link","uri":"file:///a"}]})"),
            "content[0].name is not a string");
  EXPECT_EQ(shape_error(R"({"content":[{"type":"resource","resource":"file:///a"}]})"),
            "content[0].resource is not an object");
  EXPECT_EQ(shape_error(R"({"content":[{"type":"resource","resource":{"text":"b"}}]})"),
            "content[0].resource.uri is not a string");
}

TEST(ToolResultShape, SaysStructuredContentIsNotAnObject) {
  EXPECT_EQ(shape_error(R"({"content":[],"structuredContent":[1,2]})"), "structuredContent is not an object");
  EXPECT_EQ(shape_error(R"({"content":[],"structuredContent":"{}"})"), "structuredContent is not an object");
}

TEST(ToolResultShape, SaysIsErrorIsNotABoolean) {
  EXPECT_EQ(shape_error(R"({"content":[],"isError":"true"})"), "isError is not a boolean");
  EXPECT_EQ(shape_error(R"({"content":[],"isError":1})"), "isError is not a boolean");
}

TEST(ToolResultShape, SaysMetaIsNotAnObject) {
  EXPECT_EQ(shape_error(R"({"content":[],"_meta":"x"})"), "_meta is not an object");
}

TEST(ToolResultShape, NeverQuotesAValue) {
  const auto why = shape_error(R"({"content":[{"type":"CANARY-7f3a9c","text":"CANARY-7f3a9c"}]})");
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, Not(HasSubstr(kCanaryTail)));
}

}  // namespace
}  // namespace airlock::host
