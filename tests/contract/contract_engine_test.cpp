// The harness's own parts, without a plugin: the destination reader, the
// shrinker, the corpus, the argument generator and the report's escaping.
#include "check/check_report.hpp"
#include "check/corpus.hpp"
#include "check/destinations.hpp"
#include "check/schema_instances.hpp"
#include "check/shrink.hpp"
#include "util/utf8.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace airlock::host::check {
namespace {

using testing::Contains;
using testing::ElementsAre;
using testing::IsEmpty;

constexpr std::string_view kSeedRedirect = "https://allowed.example/r?to=https%3A%2F%2Fattacker.example";

TEST(Destinations, FindsSchemeUrlsInertFormsAndBareHosts) {
  const auto found = destinations("go https://a.example/x, hxxps[:]//b[.]example\\y and c.example or www[.]d[.]example");
  EXPECT_THAT(found, Contains("https://a.example"));
  EXPECT_THAT(found, Contains("hxxps[:]//b[.]example"));
  EXPECT_THAT(found, Contains("c.example"));
  EXPECT_THAT(found, Contains("www[.]d[.]example"));
}

TEST(Destinations, FlagsTheSeedsRedirectDecoded) {
  const std::string decoded = "https://allowed.example/r?to=https://attacker.example";
  EXPECT_THAT(made_up_destinations(kSeedRedirect, decoded), Contains("https://attacker.example"));
}

TEST(Destinations, FlagsUserinfoStrippedIntoANewUrl) {
  EXPECT_THAT(made_up_destinations("http://good.example@evil.example/", "http://evil.example/"),
              Contains("http://evil.example"));
}

TEST(Destinations, FlagsADefangedUrlRevived) {
  EXPECT_THAT(made_up_destinations("hxxps://evil[.]example", "https://evil.example"),
              Contains("https://evil.example"));
}

TEST(Destinations, AcceptsDefangingEscapingTruncatingAndRedacting) {
  EXPECT_THAT(made_up_destinations("https://a.example hxxp://b.example", "hxxps://a[.]example hxxp://b[.]example"),
              IsEmpty());
  EXPECT_THAT(made_up_destinations("[x](https://a.example) <b>.example", "\\[x\\](https://a.example) &lt;b&gt;.example"),
              IsEmpty());
  EXPECT_THAT(made_up_destinations("see https://evil.example/long", "see https://evil.ex\xE2\x80\xA6[truncated]"),
              IsEmpty());
  EXPECT_THAT(made_up_destinations("https://user:ghp_secret@host.example/", "https://user:[REDACTED]@host.example/"),
              IsEmpty());
}

// inert-urls brackets the dot after an input backslash: "\\[" there is not
// escape-markup's escaped bracket, and nothing new was made.
TEST(Destinations, AcceptsABracketedDotAfterAnInputBackslash) {
  EXPECT_THAT(made_up_destinations("https://\\.example", "hxxps://\\[.]example"), IsEmpty());
  // Escape-markup over inert-urls still reads as the same destination.
  EXPECT_THAT(made_up_destinations("https://a.example", "hxxps://a\\[.\\]example"), IsEmpty());
}

TEST(Shrink, FindsTheOneLineAndThenTheBytesThatMatter) {
  std::string input;
  for (int i = 0; i < 200; ++i) input += "harmless line " + std::to_string(i) + "\n";
  input += "xx<script>xx\n";
  for (int i = 0; i < 200; ++i) input += "more " + std::to_string(i) + "\n";
  const std::string small = shrink(input, [](const std::string& s) { return s.find("<s") != std::string::npos; });
  EXPECT_EQ(small, "<s");
}

TEST(Shrink, ReturnsTheEmptyInputWhenThatFailsToo) {
  EXPECT_EQ(shrink("anything", [](const std::string&) { return true; }), "");
}

TEST(Shrink, StopsAtItsAttemptBudget) {
  int calls = 0;
  shrink(std::string(10000, 'x'), [&](const std::string& s) { return ++calls, s.size() > 3; }, {25, std::chrono::seconds(5)});
  EXPECT_LE(calls, 25);
}

TEST(Corpus, IsTheSameForTheSameSeedAndDiffersForAnother) {
  const auto a = generate_text_corpus(7, CorpusSize::fast);
  const auto b = generate_text_corpus(7, CorpusSize::fast);
  const auto c = generate_text_corpus(8, CorpusSize::fast);
  ASSERT_EQ(a.size(), b.size());
  bool differs = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].text, b[i].text) << a[i].name;
    differs = differs || a[i].text != c[i].text;
  }
  EXPECT_TRUE(differs);
}

TEST(Corpus, CoversEveryFamilyTheContractNames) {
  const auto items = generate_text_corpus(1, CorpusSize::full);
  auto has = [&](std::string_view needle) {
    return std::any_of(items.begin(), items.end(),
                       [&](const CorpusItem& i) { return i.text.find(needle) != std::string::npos; });
  };
  EXPECT_TRUE(has("\x1B["));                 // ANSI
  EXPECT_TRUE(has("\x1B]8;;"));              // OSC 8
  EXPECT_TRUE(has("\xC2\x9B"));              // C1
  EXPECT_TRUE(has("\xE2\x80\xAE"));          // bidi override
  EXPECT_TRUE(has("\xE2\x80\x8B"));          // zero-width space
  EXPECT_TRUE(has("\xC0\xAF"));              // overlong
  EXPECT_TRUE(has("%3A%2F%2F"));             // percent-encoded
  EXPECT_TRUE(has("xn--"));                  // punycode
  EXPECT_TRUE(has("](https://"));            // markdown link
  EXPECT_TRUE(has("<script>"));              // HTML
  EXPECT_TRUE(has("AKIA"));                  // secret-like
  EXPECT_TRUE(std::any_of(items.begin(), items.end(), [](const CorpusItem& i) { return i.text.empty(); }));
  EXPECT_TRUE(std::any_of(items.begin(), items.end(), [](const CorpusItem& i) { return i.text.size() >= (1u << 20); }));
  EXPECT_TRUE(std::any_of(items.begin(), items.end(), [](const CorpusItem& i) { return !valid_utf8(i.text); }));
}

TEST(Corpus, WrapsTextInEveryResultShapeAsValidJson) {
  for (int shape = 0; shape < kResultShapes; ++shape) {
    boost::system::error_code ec;
    boost::json::parse_options options;
    options.max_depth = 128;  // as the host parses results
    const auto v = boost::json::parse(render_result(shape, "caf\xC3\xA9 <b>"), ec, {}, options);
    EXPECT_FALSE(ec) << shape;
    EXPECT_TRUE(v.is_object()) << shape;
  }
}

TEST(SchemaInstances, StartsWithTheEmptyObjectAndKeepsOnlyValidOthers) {
  const auto schema = boost::json::parse(R"({"type":"object","properties":{
      "text":{"type":"string","minLength":2,"maxLength":5},
      "n":{"type":"integer","minimum":3,"maximum":9},
      "mode":{"enum":["a","b"]},
      "tags":{"type":"array","items":{"type":"string"},"minItems":1}},
    "required":["text","n"]})").as_object();
  auto validator = SchemaValidator::compile(schema);
  ASSERT_TRUE(validator) << validator.error().message;
  Prng prng(1);
  const auto args = generate_arguments(schema, **validator, prng, 8);
  ASSERT_GE(args.size(), 3u);
  EXPECT_EQ(args[0].json, "{}");
  EXPECT_FALSE(args[0].valid);  // "text" and "n" are required
  for (std::size_t i = 1; i < args.size(); ++i) {
    EXPECT_TRUE(args[i].valid) << args[i].json;
    EXPECT_FALSE((**validator).validate(boost::json::parse(args[i].json))) << args[i].json;
  }
}

TEST(SchemaInstances, FollowsLocalRefsAndPicksABranchOfOneOf) {
  const auto schema = boost::json::parse(R"({"type":"object","$defs":{"id":{"type":"integer","minimum":1}},
    "properties":{"id":{"$ref":"#/$defs/id"},
                  "target":{"oneOf":[{"type":"string","format":"uri"},{"type":"null"}]}},
    "required":["id","target"]})").as_object();
  auto validator = SchemaValidator::compile(schema);
  ASSERT_TRUE(validator) << validator.error().message;
  Prng prng(3);
  const auto args = generate_arguments(schema, **validator, prng, 6);
  ASSERT_GE(args.size(), 2u);
  EXPECT_TRUE(args[1].valid) << args[1].json;
}

TEST(Report, EscapesControlsBidiAndInvalidBytesReadably) {
  EXPECT_EQ(escape_bytes("a\x1B[1m\n\"\\\xE2\x80\xAE\xFF", 100), "a\\x1b[1m\\n\\\"\\\\\\u{202E}\\xff");
  EXPECT_EQ(escape_bytes("abcdef", 3), "abc… (6 bytes)");
}

TEST(Report, SummaryCountsPassedFailedAndSkippedChecks) {
  PluginReport p;
  p.file = "x.so";
  ComponentReport c;
  c.name = "a.b";
  c.checks = {CheckResult{"idempotence", Verdict::pass, {}, {}, 1, {}},
              CheckResult{"concurrency", Verdict::fail, "d", {}, 1, {}},
              CheckResult{"cancellation", Verdict::skip, "n/a", {}, 0, {}}};
  p.components.push_back(c);
  EXPECT_THAT(summary_line({p}), testing::StartsWith("1 plugin, 1 component, 3 checks: 1 passed, 1 failed, 1 skipped"));
  EXPECT_FALSE(p.passed());
}

}  // namespace
}  // namespace airlock::host::check
