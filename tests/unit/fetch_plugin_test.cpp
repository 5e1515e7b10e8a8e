// airlock.fetch's pure logic (plugins/fetch): which content types it returns,
// how it repairs UTF-8, the source label of its untrusted text, and how it
// reads [plugin."airlock.fetch"]. The plugin end to end is in
// tests/integration/egress_test.cpp.
#include "fetch_config.hpp"
#include "response_text.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace airlock::plugins::fetch {
namespace {

using testing::HasSubstr;

constexpr std::string_view kFffd = "\xEF\xBF\xBD";

TEST(TextualContentType, AcceptsTextJsonXmlJavascriptTheirSuffixesAndNone) {
  for (const char* type : {"", "text/html", "TEXT/Plain; charset=utf-8", " application/json ", "application/xml",
                           "application/ld+json", "image/svg+xml", "application/javascript;charset=x"})
    EXPECT_TRUE(is_textual_content_type(type)) << type;
}

TEST(TextualContentType, RefusesBinaryAndMalformedTypes) {
  for (const char* type : {"image/png", "application/octet-stream", "application/+json", "text", "/html", "text/",
                           "application/pdf", "application/jsonx", "xtext/html"})
    EXPECT_FALSE(is_textual_content_type(type)) << type;
}

TEST(RepairUtf8, KeepsValidTextByteForByte) {
  for (const std::string& text : {std::string("abc"), std::string("caf\xC3\xA9"), std::string("\xF0\x9F\x98\x80"),
                                  std::string("a\0b", 3), std::string("\xF4\x8F\xBF\xBF")})
    EXPECT_EQ(text, repair_utf8(text));
}

TEST(RepairUtf8, ReplacesEachMaximalIllFormedSubpartWithOneReplacementCharacter) {
  const std::string r(kFffd);
  EXPECT_EQ("a" + r + "b", repair_utf8("a\xFF" "b"));               // never a lead byte
  EXPECT_EQ(r + r, repair_utf8("\xC0\xAF"));                         // overlong
  EXPECT_EQ(r + r + r, repair_utf8("\xED\xA0\x80"));                 // a surrogate
  EXPECT_EQ(r + r + r + r, repair_utf8("\xF4\x90\x80\x80"));         // above U+10FFFF
  EXPECT_EQ(r, repair_utf8("\xF0\x9F\x98"));                         // cut short at the end
  EXPECT_EQ(r + "x", repair_utf8("\xE2\x82" "x"));                   // cut short before ASCII
  EXPECT_EQ(r + "\xC3\xA9", repair_utf8("\x80\xC3\xA9"));            // a stray continuation byte
}

TEST(WebSource, IsWebAndTheHostWhenItFitsTheSourceSyntax) {
  EXPECT_EQ("web:docs.test", web_source("http://docs.test:8080/x?y"));
  EXPECT_EQ("web:Example.ORG", web_source("https://Example.ORG/"));
  EXPECT_EQ("web:127.0.0.1", web_source("http://127.0.0.1:5/"));
  EXPECT_EQ("web:h.test", web_source("http://u:p@h.test/"));
  EXPECT_EQ("web:h.test", web_source("http://h.test#f"));
  EXPECT_EQ("web:" + std::string(60, 'a'), web_source("http://" + std::string(60, 'a') + "/"));
}

TEST(WebSource, IsPlainWebOtherwise) {
  EXPECT_EQ("web", web_source("http://[::1]:5/"));
  EXPECT_EQ("web", web_source("http://" + std::string(61, 'a') + "/"));
  EXPECT_EQ("web", web_source("not a url"));
  EXPECT_EQ("web", web_source("http:///path"));
}

TEST(QuoteBriefly, CutsWithoutSplittingACharacter) {
  EXPECT_EQ("abc", quote_briefly("abc", 5));
  EXPECT_EQ("abc...", quote_briefly("abcdef", 3));
  EXPECT_EQ("a...", quote_briefly("a\xC3\xA9", 2));
}

FetchConfig read(std::string_view json) { return read_fetch_config(boost::json::parse(json).as_object()); }

TEST(FetchConfig, DefaultsToOneToolNamedFetch) { EXPECT_EQ(read("{}").names, std::vector<std::string>{"fetch"}); }

TEST(FetchConfig, ServesOneToolPerName) {
  EXPECT_EQ(read(R"({"names":["fetch","docs_fetch","a.b-c"]})").names,
            (std::vector<std::string>{"fetch", "docs_fetch", "a.b-c"}));
}

TEST(FetchConfig, RefusesBadNamesNamingWhatIsWrong) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"names":[]})", "at least one"},
      {R"({"names":"fetch"})", "must be an array"},
      {R"({"names":["a",1]})", "entry 2 is not a string"},
      {R"({"names":["has space"]})", "\"has space\" is not a valid tool name"},
      {R"({"names":[""]})", "\"\" is not a valid tool name"},
      {R"({"names":["a","a"]})", "\"a\" is listed twice"},
      {R"({"name":["a"]})", "unknown key \"name\""},
  };
  for (const auto& [json, expected] : cases) {
    try {
      read(json);
      ADD_FAILURE() << json << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("[plugin.\"airlock.fetch\"]")) << json;
      EXPECT_THAT(e.what(), HasSubstr(expected)) << json;
    }
  }
}

TEST(FetchConfig, RefusesANameLongerThanSixtyFourBytes) {
  EXPECT_NO_THROW(read(R"({"names":[")" + std::string(64, 'a') + R"("]})"));
  EXPECT_THROW(read(R"({"names":[")" + std::string(65, 'a') + R"("]})"), std::invalid_argument);
}

}  // namespace
}  // namespace airlock::plugins::fetch
