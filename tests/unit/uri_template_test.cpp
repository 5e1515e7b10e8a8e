// Tests for RFC 6570 level-1 URI templates: what parses, and which URIs match
// with which values.
#include "plugins/uri_template.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace airlock::host {
namespace {

using testing::HasSubstr;
using Values = std::vector<std::pair<std::string, std::string>>;

UriTemplate parsed(std::string_view text) {
  auto t = UriTemplate::parse(text);
  if (!t) throw std::runtime_error(t.error().message);
  return std::move(*t);
}

TEST(UriTemplate, MatchesOneVariableBetweenLiterals) {
  const UriTemplate t = parsed("test://template/{id}/data");
  EXPECT_EQ(t.variables(), std::vector<std::string>{"id"});
  EXPECT_EQ(t.match("test://template/123/data"), (Values{{"id", "123"}}));
  EXPECT_EQ(t.match("test://template//data"), std::nullopt);        // values are never empty
  EXPECT_EQ(t.match("test://template/1/2/data"), std::nullopt);     // nor hold a '/'
  EXPECT_EQ(t.match("test://template/123/data/x"), std::nullopt);   // the whole URI matches
  EXPECT_EQ(t.match("test://other/123/data"), std::nullopt);
}

TEST(UriTemplate, AVariableAtTheEndTakesTheRestOfTheSegment) {
  const UriTemplate t = parsed("file:///notes/{name}");
  EXPECT_EQ(t.match("file:///notes/a%20b.txt"), (Values{{"name", "a%20b.txt"}}));
  EXPECT_EQ(t.match("file:///notes/a?q"), std::nullopt);
  EXPECT_EQ(t.match("file:///notes/"), std::nullopt);
}

TEST(UriTemplate, BacktracksWhenTheNextLiteralAlsoOccursInsideAValue) {
  const UriTemplate t = parsed("x://{a}-{b}.json");
  EXPECT_EQ(t.match("x://one-two-three.json"), (Values{{"a", "one"}, {"b", "two-three"}}));
  EXPECT_EQ(t.match("x://one.json"), std::nullopt);
}

TEST(UriTemplate, ATemplateWithoutVariablesMatchesOnlyItself) {
  const UriTemplate t = parsed("x://fixed");
  EXPECT_EQ(t.match("x://fixed"), Values{});
  EXPECT_EQ(t.match("x://fixed2"), std::nullopt);
}

TEST(UriTemplate, RefusesWhatLevelOneCannotSay) {
  EXPECT_THAT(UriTemplate::parse("x://{+path}").error().message, HasSubstr("RFC 6570 level 1"));
  EXPECT_THAT(UriTemplate::parse("x://{a,b}").error().message, HasSubstr("RFC 6570 level 1"));
  EXPECT_THAT(UriTemplate::parse("x://{a}{b}").error().message, HasSubstr("side by side"));
  EXPECT_THAT(UriTemplate::parse("x://{a}/{a}").error().message, HasSubstr("appears twice"));
  EXPECT_THAT(UriTemplate::parse("x://{a").error().message, HasSubstr("without its '}'"));
  EXPECT_THAT(UriTemplate::parse("x://a}").error().message, HasSubstr("without its '{'"));
  EXPECT_THAT(UriTemplate::parse("x://{}").error().message, HasSubstr("empty"));
}

// A fuzz finding (tests/fuzz/corpus/uri_template): many variables in one
// segment against a long run of their separator tried every split of the
// run, 2^30 here; failed (variable, offset) states are now remembered, which
// leaves variables x length x segment length at worst.
TEST(UriTemplate, MatchesManyVariablesInOneSegmentInPolynomialTime) {
  std::string text = "x://";
  for (int i = 0; i < 30; ++i) text += "{v" + std::to_string(i) + "}a";
  const UriTemplate t = parsed(text);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(t.match("x://" + std::string(1000, 'a') + "b"), std::nullopt);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_NE(t.match("x://" + std::string(1000, 'a')), std::nullopt);
}

}  // namespace
}  // namespace airlock::host
