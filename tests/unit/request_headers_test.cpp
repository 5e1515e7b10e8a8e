// Tests for the SEP-2243 request metadata headers held to the body: value
// decoding (OWS, the =?base64?...?= sentinel, the literal charset) and the
// Mcp-Method, Mcp-Name and Mcp-Param-* checks, with the conformance suite's
// vectors among them.
#include "mcp/request_headers.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace airlock::host {
namespace {

using testing::HasSubstr;
using testing::Optional;

// Header lines as a transport would hold them: names matched ignoring case,
// repeated names kept as separate lines.
class Headers final : public HeaderView {
 public:
  Headers(std::initializer_list<std::pair<std::string, std::string>> lines) : lines_(lines) {}

  std::size_t count(std::string_view name) const override {
    std::size_t n = 0;
    for (const auto& line : lines_) n += same_name(line.first, name) ? 1u : 0u;
    return n;
  }
  std::optional<std::string_view> get(std::string_view name) const override {
    for (const auto& line : lines_)
      if (same_name(line.first, name)) return line.second;
    return std::nullopt;
  }

 private:
  static bool same_name(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    return true;
  }
  std::vector<std::pair<std::string, std::string>> lines_;
};

boost::json::value json(std::string_view text) { return boost::json::parse(text); }

// --- decode_header_value ---

TEST(DecodeHeaderValue, TrimsOwsAndKeepsInnerSpace) {
  EXPECT_THAT(decode_header_value("  T  "), Optional(std::string("T")));
  EXPECT_THAT(decode_header_value("\t us west 1 \t"), Optional(std::string("us west 1")));
  EXPECT_THAT(decode_header_value(""), Optional(std::string()));
  EXPECT_THAT(decode_header_value("   "), Optional(std::string()));
}

TEST(DecodeHeaderValue, DecodesTheBase64Sentinel) {
  EXPECT_THAT(decode_header_value("=?base64?SGVsbG8=?="), Optional(std::string("Hello")));
  EXPECT_THAT(decode_header_value("  =?base64?SGVsbG8=?=  "), Optional(std::string("Hello")));
  // UTF-8, and values a client must encode (leading space, control bytes) come back exactly.
  EXPECT_THAT(decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?="), Optional(std::string("Hello, \u4e16\u754c")));
  EXPECT_THAT(decode_header_value("=?base64?IHBhZGRlZCA=?="), Optional(std::string(" padded ")));
  EXPECT_THAT(decode_header_value("=?base64?YQ0KYg==?="), Optional(std::string("a\r\nb")));
  EXPECT_THAT(decode_header_value("=?base64?" "?="), Optional(std::string()));
}

TEST(DecodeHeaderValue, RefusesBadBase64InsideTheSentinel) {
  EXPECT_EQ(decode_header_value("=?base64?SGVsbG8?="), std::nullopt);       // padding missing (suite vector)
  EXPECT_EQ(decode_header_value("=?base64?SGVs!!!bG8=?="), std::nullopt);   // not the alphabet (suite vector)
  EXPECT_EQ(decode_header_value("=?base64?SGVsbG8==?="), std::nullopt);     // too much padding
  EXPECT_EQ(decode_header_value("=?base64?SGVsbG9=?="), std::nullopt);      // unused bits set: not the one encoding
  EXPECT_EQ(decode_header_value("=?base64?SGVs bG8=?="), std::nullopt);     // no space inside
  EXPECT_EQ(decode_header_value("=?base64?SGVsbG8-?="), std::nullopt);      // base64url is not accepted
  EXPECT_EQ(decode_header_value("=?base64?/w==?="), std::nullopt);          // 0xff is not UTF-8
}

TEST(DecodeHeaderValue, WithoutBothEndsOfTheSentinelItIsLiteral) {
  EXPECT_THAT(decode_header_value("SGVsbG8="), Optional(std::string("SGVsbG8=")));                    // suite vector
  EXPECT_THAT(decode_header_value("=?base64?SGVsbG8="), Optional(std::string("=?base64?SGVsbG8=")));  // suite vector
  EXPECT_THAT(decode_header_value("SGVsbG8=?="), Optional(std::string("SGVsbG8=?=")));
  EXPECT_THAT(decode_header_value("=?BASE64?SGVsbG8=?="), Optional(std::string("=?BASE64?SGVsbG8=?=")));  // case-sensitive
  EXPECT_THAT(decode_header_value("=?base64?="), Optional(std::string("=?base64?=")));  // ends overlap: too short
}

TEST(DecodeHeaderValue, ALiteralIsVisibleAsciiSpaceAndTabOnly) {
  EXPECT_THAT(decode_header_value("a\tb ~!"), Optional(std::string("a\tb ~!")));
  EXPECT_EQ(decode_header_value("caf\xc3\xa9"), std::nullopt);
  EXPECT_EQ(decode_header_value("a\x01" "b"), std::nullopt);
  EXPECT_EQ(decode_header_value("a\x7f"), std::nullopt);
  EXPECT_EQ(decode_header_value(std::string_view("a\0b", 3)), std::nullopt);
}

// --- Mcp-Method ---

// A fuzz finding (tests/fuzz/corpus/http_request/finding-non-utf8-protocol-
// header): admit_modern echoed a raw MCP-Protocol-Version value into its
// error message, and a byte >= 0x80 made the JSON-RPC response invalid UTF-8.
TEST(QuotedHeaderValue, ShowsEveryByteOutsidePrintableAsciiAsHex) {
  EXPECT_EQ(quoted_header_value("2026\xFF-07-28"), "'2026\\xff-07-28'");
  EXPECT_EQ(quoted_header_value("a\r\nb\x7f"), "'a\\x0d\\x0ab\\x7f'");
  EXPECT_EQ(quoted_header_value("tools/list"), "'tools/list'");
}

TEST(MethodHeader, AcceptsTheMatchingValueUnderAnyNameCaseAndWithOws) {
  EXPECT_EQ(check_method_header(Headers{{"Mcp-Method", "tools/list"}}, "tools/list"), std::nullopt);
  EXPECT_EQ(check_method_header(Headers{{"mcp-method", "tools/list"}}, "tools/list"), std::nullopt);
  EXPECT_EQ(check_method_header(Headers{{"MCP-METHOD", "tools/list"}}, "tools/list"), std::nullopt);
  EXPECT_EQ(check_method_header(Headers{{"Mcp-Method", "  tools/list\t"}}, "tools/list"), std::nullopt);
}

TEST(MethodHeader, RefusesAnotherValue) {
  EXPECT_THAT(check_method_header(Headers{{"Mcp-Method", "tools/lis"}}, "tools/list"),
              Optional(std::string("Mcp-Method header 'tools/lis' does not match the body's method 'tools/list'")));
  EXPECT_THAT(check_method_header(Headers{{"Mcp-Method", "prompts/list"}}, "tools/list"),
              Optional(HasSubstr("'prompts/list' does not match")));
  // Values are case-sensitive.
  EXPECT_THAT(check_method_header(Headers{{"Mcp-Method", "TOOLS/LIST"}}, "tools/list"),
              Optional(HasSubstr("'TOOLS/LIST' does not match")));
  // Mcp-Method is never base64-decoded.
  EXPECT_NE(check_method_header(Headers{{"Mcp-Method", "=?base64?dG9vbHMvbGlzdA==?="}}, "tools/list"), std::nullopt);
}

TEST(MethodHeader, RefusesAMissingOrRepeatedHeader) {
  EXPECT_THAT(check_method_header(Headers{{"Mcp-Name", "tools/list"}}, "tools/list"),
              Optional(std::string("Mcp-Method header is missing (the body's method is 'tools/list')")));
  EXPECT_THAT(check_method_header(Headers{{"Mcp-Method", "tools/list"}, {"mcp-method", "tools/list"}}, "tools/list"),
              Optional(std::string("Mcp-Method header is sent 2 times; it must be sent once")));
}

// --- Mcp-Name ---

TEST(NameHeader, AcceptsTheMatchingValueTrimmedOrEncoded) {
  EXPECT_EQ(check_name_header(Headers{{"Mcp-Name", "echo"}}, "echo"), std::nullopt);
  EXPECT_EQ(check_name_header(Headers{{"mcp-name", "  echo  "}}, "echo"), std::nullopt);
  EXPECT_EQ(check_name_header(Headers{{"Mcp-Name", "=?base64?ZWNobw==?="}}, "echo"), std::nullopt);
  EXPECT_EQ(check_name_header(Headers{{"Mcp-Name", "=?base64?IGVjaG8g?="}}, " echo "), std::nullopt);
  EXPECT_EQ(check_name_header(Headers{{"Mcp-Name", "file:///notes/a.txt"}}, "file:///notes/a.txt"), std::nullopt);
}

TEST(NameHeader, RefusesAMismatchAMissingOneARepeatedOneAndABadValue) {
  EXPECT_THAT(check_name_header(Headers{{"Mcp-Name", "wrong_tool_name"}}, "echo"),
              Optional(std::string("Mcp-Name header 'wrong_tool_name' does not match the body's 'echo'")));
  EXPECT_THAT(check_name_header(Headers{{"Mcp-Name", "Echo"}}, "echo"), Optional(HasSubstr("does not match")));
  EXPECT_THAT(check_name_header(Headers{{"Mcp-Method", "tools/call"}}, "echo"),
              Optional(std::string("Mcp-Name header is missing (the body names 'echo')")));
  EXPECT_THAT(check_name_header(Headers{{"Mcp-Name", "echo"}, {"Mcp-Name", "echo"}}, "echo"),
              Optional(HasSubstr("sent 2 times")));
  EXPECT_THAT(check_name_header(Headers{{"Mcp-Name", "=?base64?ZWNobw?="}}, "echo"),
              Optional(std::string(
                  "Mcp-Name header '=?base64?ZWNobw?=' is not padded standard base64 between =?base64? and ?=")));
  EXPECT_THAT(check_name_header(Headers{{"Mcp-Name", "\xc3\xa9"}}, "\xc3\xa9"),
              Optional(HasSubstr("'\\xc3\\xa9' holds a byte other than visible ASCII")));
}

// --- Mcp-Param-* ---

const std::vector<HeaderParam> kRegion{{"Region", {"region"}, HeaderParam::Type::string}};

TEST(ParamHeaders, SuiteVectorsForAStringParameter) {
  const auto args = [](std::string_view region) {
    boost::json::object o{{"region", region}, {"level", 0}};
    return boost::json::value(std::move(o));
  };
  // ServerAcceptsValidBase64
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Region", "=?base64?SGVsbG8=?="}}, kRegion, args("Hello")),
            std::nullopt);
  // ServerRejectsInvalidBase64Padding / Chars
  EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Region", "=?base64?SGVsbG8?="}}, kRegion, args("Hello")),
              Optional(std::string("Mcp-Param-Region header '=?base64?SGVsbG8?=' is not padded standard base64 "
                                   "between =?base64? and ?=")));
  EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="}}, kRegion, args("Hello")),
              Optional(HasSubstr("is not padded standard base64")));
  // ServerLiteralMissingBase64Prefix / Suffix
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Region", "SGVsbG8="}}, kRegion, args("SGVsbG8=")), std::nullopt);
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Region", "=?base64?SGVsbG8="}}, kRegion, args("=?base64?SGVsbG8=")),
            std::nullopt);
  // ServerRejectsMissingCustomHeader
  EXPECT_THAT(check_param_headers(Headers{{"Mcp-Method", "tools/call"}, {"Mcp-Name", "t"}}, kRegion, args("test-value")),
              Optional(std::string("Mcp-Param-Region header is missing but argument 'region' is in the body")));
}

TEST(ParamHeaders, StringsCompareByteForByteAfterTrimming) {
  const boost::json::value args = json(R"({"region":"us-west1"})");
  EXPECT_EQ(check_param_headers(Headers{{"mcp-param-region", "  us-west1 "}}, kRegion, args), std::nullopt);
  EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Region", "US-WEST1"}}, kRegion, args),
              Optional(std::string(
                  "Mcp-Param-Region header 'US-WEST1' does not match argument 'region', which is 'us-west1'")));
  // A value with edge spaces only matches when encoded.
  const boost::json::value padded = json(R"({"region":" us-west1"})");
  EXPECT_NE(check_param_headers(Headers{{"Mcp-Param-Region", " us-west1"}}, kRegion, padded), std::nullopt);
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Region", "=?base64?IHVzLXdlc3Qx?="}}, kRegion, padded), std::nullopt);
  // The empty string is a value, so its header is required.
  const boost::json::value empty = json(R"({"region":""})");
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Region", ""}}, kRegion, empty), std::nullopt);
  EXPECT_NE(check_param_headers(Headers{}, kRegion, empty), std::nullopt);
}

TEST(ParamHeaders, IntegersCompareNumerically) {
  const std::vector<HeaderParam> level{{"Level", {"level"}, HeaderParam::Type::integer}};
  const boost::json::value forty_two = json(R"({"level":42})");
  for (const char* same : {"42", " 42 ", "42.0", "4.2e1", "420e-1", "042", "+42", "=?base64?NDI=?="})
    EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Level", same}}, level, forty_two), std::nullopt) << same;
  // A body integer written as 42.0 is still 42.
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Level", "42"}}, level, json(R"({"level":42.0})")), std::nullopt);
  EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Level", "43"}}, level, forty_two),
              Optional(std::string("Mcp-Param-Level header '43' does not match argument 'level', which is '42'")));
  EXPECT_NE(check_param_headers(Headers{{"Mcp-Param-Level", "-42"}}, level, forty_two), std::nullopt);
  EXPECT_NE(check_param_headers(Headers{{"Mcp-Param-Level", "420"}}, level, forty_two), std::nullopt);
  for (const char* not_integer : {"42.5", "4.25e1", "forty-two", "0x2a", "", "-", "1e", "42 0", "Infinity"})
    EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Level", not_integer}}, level, forty_two),
                Optional(HasSubstr("is not an integer")))
        << not_integer;
  // Zero has one value whatever its sign or spelling.
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Level", "-0.0"}}, level, json(R"({"level":0})")), std::nullopt);
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Level", "0"}}, level, json(R"({"level":-0.0})")), std::nullopt);
  // Negative and large values, exactly.
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Level", "-9223372036854775808"}}, level,
                                json(R"({"level":-9223372036854775808})")),
            std::nullopt);
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Level", "18446744073709551615"}}, level,
                                json(R"({"level":18446744073709551615})")),
            std::nullopt);
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Level", "1e21"}}, level, json(R"({"level":1e21})")), std::nullopt);
  EXPECT_NE(check_param_headers(Headers{{"Mcp-Param-Level", "9007199254740993"}}, level,
                                json(R"({"level":9007199254740992})")),
            std::nullopt);
  EXPECT_NE(check_param_headers(Headers{{"Mcp-Param-Level", "1e999999999999"}}, level, forty_two), std::nullopt);
  // A body value that is no integer cannot be matched.
  EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Level", "42.5"}}, level, json(R"({"level":42.5})")),
              Optional(std::string("Mcp-Param-Level header cannot match argument 'level': it is '42.5', not an integer")));
  EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Level", "42"}}, level, json(R"({"level":"42"})")),
              Optional(HasSubstr("not an integer")));
}

TEST(ParamHeaders, BooleansAreTrueOrFalse) {
  const std::vector<HeaderParam> verbose{{"Verbose", {"verbose"}, HeaderParam::Type::boolean}};
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Verbose", "true"}}, verbose, json(R"({"verbose":true})")),
            std::nullopt);
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Verbose", "false"}}, verbose, json(R"({"verbose":false})")),
            std::nullopt);
  EXPECT_NE(check_param_headers(Headers{{"Mcp-Param-Verbose", "true"}}, verbose, json(R"({"verbose":false})")),
            std::nullopt);
  for (const char* wrong : {"True", "1", "yes", "FALSE"})
    EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Verbose", wrong}}, verbose, json(R"({"verbose":true})")),
                Optional(HasSubstr("does not match argument 'verbose', which is 'true'")))
        << wrong;
  EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Verbose", "true"}}, verbose, json(R"({"verbose":"true"})")),
              Optional(HasSubstr("not a boolean")));
}

TEST(ParamHeaders, AnAbsentOrNullArgumentMustHaveNoHeader) {
  const std::vector<HeaderParam> verbose{{"Verbose", {"verbose"}, HeaderParam::Type::boolean}};
  EXPECT_EQ(check_param_headers(Headers{}, verbose, json(R"({})")), std::nullopt);
  EXPECT_EQ(check_param_headers(Headers{}, verbose, json(R"({"verbose":null})")), std::nullopt);
  EXPECT_EQ(check_param_headers(Headers{}, verbose, boost::json::value()), std::nullopt);  // no arguments at all
  EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Verbose", "false"}}, verbose, json(R"({"verbose":null})")),
              Optional(std::string("Mcp-Param-Verbose header is sent but argument 'verbose' is absent or null")));
  EXPECT_NE(check_param_headers(Headers{{"Mcp-Param-Verbose", ""}}, verbose, json(R"({})")), std::nullopt);
}

TEST(ParamHeaders, RepeatedLinesAreRefused) {
  EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Region", "us"}, {"mcp-param-region", "us"}}, kRegion,
                                  json(R"({"region":"us"})")),
              Optional(std::string("Mcp-Param-Region header is sent 2 times; it must be sent once")));
  EXPECT_NE(check_param_headers(Headers{{"Mcp-Param-Region", "us"}, {"Mcp-Param-Region", "eu"}}, kRegion,
                                json(R"({"region":"null"})")),
            std::nullopt);
}

TEST(ParamHeaders, NestedPathsReachIntoObjects) {
  const std::vector<HeaderParam> nested{{"Region", {"filter", "region"}, HeaderParam::Type::string}};
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Region", "eu"}}, nested, json(R"({"filter":{"region":"eu"}})")),
            std::nullopt);
  EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Region", "us"}}, nested, json(R"({"filter":{"region":"eu"}})")),
              Optional(HasSubstr("argument 'filter.region', which is 'eu'")));
  EXPECT_THAT(check_param_headers(Headers{}, nested, json(R"({"filter":{"region":"eu"}})")),
              Optional(HasSubstr("missing but argument 'filter.region' is in the body")));
  // No object on the way means no value, so no header.
  EXPECT_EQ(check_param_headers(Headers{}, nested, json(R"({"filter":"eu"})")), std::nullopt);
  EXPECT_EQ(check_param_headers(Headers{}, nested, json(R"({"filter":null})")), std::nullopt);
  EXPECT_NE(check_param_headers(Headers{{"Mcp-Param-Region", "eu"}}, nested, json(R"({"region":"eu"})")), std::nullopt);
}

TEST(ParamHeaders, EveryParameterIsCheckedAndUnrelatedHeadersAreIgnored) {
  const std::vector<HeaderParam> params{{"Region", {"region"}, HeaderParam::Type::string},
                                        {"Priority", {"priority"}, HeaderParam::Type::integer}};
  const boost::json::value args = json(R"({"region":"us","priority":3,"query":"q"})");
  EXPECT_EQ(check_param_headers(Headers{{"Mcp-Param-Region", "us"}, {"Mcp-Param-Priority", "3"},
                                        {"Mcp-Param-Query", "anything"}},
                                params, args),
            std::nullopt);
  EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Region", "us"}}, params, args),
              Optional(HasSubstr("Mcp-Param-Priority header is missing")));
  EXPECT_EQ(check_param_headers(Headers{}, {}, args), std::nullopt);
}

TEST(ParamHeaders, MessagesSpellOutBytesThatAreNotPrintable) {
  const boost::json::value args = json(R"({"region":"a\u0001b"})");
  EXPECT_THAT(check_param_headers(Headers{{"Mcp-Param-Region", "=?base64?YQJi?="}}, kRegion, args),
              Optional(HasSubstr("header 'a\\x02b' does not match argument 'region', which is 'a\\x01b'")));
}

}  // namespace
}  // namespace airlock::host
