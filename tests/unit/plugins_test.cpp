// plugins_test.cpp — the lexical logic of the first-party sanitizers, tested
// directly: airlock::plugins::strip_control.
#include "strip_control.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using airlock::plugins::strip_control;
using namespace std::string_literals;

// The output, with nullopt read as "unchanged".
std::string stripped(std::string_view in) {
  std::optional<std::string> out = strip_control(in);
  return out ? *out : std::string(in);
}

struct Case {
  const char* what;
  std::string in;
  std::string out;
};

const std::vector<Case>& corpus() {
  static const std::vector<Case> cases = {
      {"plain ascii", "hello, world", "hello, world"},
      {"utf-8 text", "gr\xC3\xBC\xC3\x9F dich \xE2\x9C\x93", "gr\xC3\xBC\xC3\x9F dich \xE2\x9C\x93"},
      {"sgr colors", "\x1B[1;31mred\x1B[0m plain", "red plain"},
      {"256 and truecolor", "\x1B[38;5;196ma\x1B[48;2;1;2;3mb\x1B[m", "ab"},
      {"cursor moves", "\x1B[2J\x1B[H\x1B[10;20Hx\x1B[?25l\x1B[3A", "x"},
      {"private csi with intermediates", "a\x1B[?1049hb\x1B[0 qc", "abc"},
      {"osc 8 hyperlink, bel", "\x1B]8;;https://evil.example/\x07" "click here\x1B]8;;\x07", "click here"},
      {"osc 8 hyperlink, st", "\x1B]8;;https://evil.example/\x1B\\link\x1B]8;;\x1B\\", "link"},
      {"osc window title", "\x1B]0;pwned\x07text", "text"},
      {"dcs string", "a\x1BPq#0;2;0;0;0\x1B\\b", "ab"},
      {"apc string", "a\x1B_Gf=100;AAAA\x1B\\b", "ab"},
      {"two-byte escapes", "a\x1B" "7b\x1B" "8c\x1B" "Dd\x1B" "Me\x1B=f\x1B>g", "abcdefg"},
      {"charset designation", "\x1B(0lqk\x1B(B", "lqk"},
      {"c0 controls", "a\x01" "b\x07" "c\x08" "d\x0B" "e\x0C" "f\x00g"s, "abcdefg"},
      {"del", "a\x7F" "b", "ab"},
      {"crlf becomes lf", "one\r\ntwo\r\n", "one\ntwo\n"},
      {"lone cr", "progress 10%\rprogress 99%", "progress 10%progress 99%"},
      {"tabs and newlines kept", "a\tb\nc\t\n", "a\tb\nc\t\n"},
      {"c1 next line", "a\xC2\x85" "b", "ab"},
      {"c1 singles", "\xC2\x80" "a\xC2\x8F" "b\xC2\x9A" "c", "abc"},
      {"c1 apc is a string", "a\xC2\x9F" "payload\xC2\x9C" "b", "ab"},
      {"c1 csi", "\xC2\x9B" "31mred\xC2\x9B" "0m", "red"},
      {"c1 osc with c1 st", "\xC2\x9D" "8;;http://x/\xC2\x9Clink\xC2\x9D" "8;;\xC2\x9C", "link"},
      {"c1 osc with bel", "\xC2\x9D" "0;title\x07text", "text"},
      {"latin-1 after c1 range kept", "\xC2\xA0\xC2\xA9", "\xC2\xA0\xC2\xA9"},
      {"bidi override kept", "abc\xE2\x80\xAE" "fed", "abc\xE2\x80\xAE" "fed"},
      {"zero-width chars kept", "a\xE2\x80\x8B" "b\xEF\xBB\xBF", "a\xE2\x80\x8B" "b\xEF\xBB\xBF"},
      {"invalid utf-8 kept", "a\xFF\xFE" "b\x80\xC3" "c", "a\xFF\xFE" "b\x80\xC3" "c"},
      {"lone continuation bytes kept", "\x9B" "31m\x85", "\x9B" "31m\x85"},
      {"trailing lone c2 kept", "abc\xC2", "abc\xC2"},
      {"invalid utf-8 next to a control", "\xFF\x1B[0m\xFE", "\xFF\xFE"},
      {"c2 joined to c1 by a removal", "a\xC2\x1B[m\x85" "b", "ab"},
      {"c2 joined to c1 csi by a removal", "\xC2\x07\x9B" "31m hi", " hi"},
      {"unterminated csi", "text\x1B[38;5", "text"},
      {"unterminated osc", "text\x1B]8;;http://x/ rest of input", "text"},
      {"unterminated c1 osc", "text\xC2\x9D" "0;title", "text"},
      {"unterminated dcs", "a\x1BPpayload", "a"},
      {"lone trailing esc", "text\x1B", "text"},
      {"esc before control", "a\x1B\nb", "a\nb"},
      {"esc before non-ascii", "a\x1B\xC3\xA9", "a\xC3\xA9"},
      {"double esc", "a\x1B\x1B[31mb", "ab"},
      {"csi broken by newline", "a\x1B[12\nb", "a\nb"},
      {"csi broken by esc", "a\x1B[1\x1B[31mb", "ab"},
      {"osc broken by another escape", "a\x1B]0;t\x1B[31mb", "ab"},
      {"nf escape broken by newline", "a\x1B(\nb", "a\nb"},
      // A fuzz finding (tests/fuzz/corpus/strip_control): a removal must not
      // join two halves of a host or URL into a destination of its own.
      {"removal inside a host", "foo.\x1B[1mbar", "foo. bar"},
      {"removal before a dot", "see evil\x07.example now", "see evil .example now"},
      {"removal between scheme and slashes", "http:\x01//evil.test", "http: //evil.test"},
      {"removal inside a bracketed dot", "a[\x1B[m.]b", "a[ .]b"},
      {"removal splitting a unicode dot", "a\xE3\x01\x80\x82" "b", "a\xE3 \x80\x82" "b"},
      {"removal inside a word without a dot", "bo\x1B[0mld text", "bold text"},
      {"removal between words", "one\x1B[0m two", "one two"},
      {"only controls", "\x1B[0m\r\x07", ""},
      {"empty", "", ""},
  };
  return cases;
}

TEST(StripControl, StripsEveryCorpusItemAsExpected) {
  for (const Case& c : corpus()) EXPECT_EQ(stripped(c.in), c.out) << c.what;
}

TEST(StripControl, IsIdempotentOnEveryCorpusItem) {
  for (const Case& c : corpus()) {
    const std::string once = stripped(c.in);
    EXPECT_EQ(strip_control(once), std::nullopt) << c.what;
  }
}

TEST(StripControl, ReturnsNulloptWhenNothingIsStripped) {
  for (const Case& c : corpus()) {
    if (c.in == c.out) EXPECT_EQ(strip_control(c.in), std::nullopt) << c.what;
    else EXPECT_NE(strip_control(c.in), std::nullopt) << c.what;
  }
}

TEST(StripControl, FindsWhatToStripAtEveryOffsetOfTheWideScan) {
  // The scan takes 16 or 32 bytes at a time; each strippable kind at each
  // offset of several blocks, among C2 pairs that are not C1 controls and
  // bytes above 0x7f that a signed compare could take for controls.
  std::string clean;
  for (int i = 0; i < 150; ++i) clean += i % 10 == 0 ? "\xC2\xA9"s : i % 7 == 0 ? "\xE9"s : "a"s;
  ASSERT_EQ(strip_control(clean), std::nullopt);
  for (std::size_t at = 0; at <= clean.size(); ++at) {
    if (at > 0 && static_cast<unsigned char>(clean[at - 1]) == 0xC2) continue;  // inside a pair
    for (const std::string& control : {"\x01"s, "\x7F"s, "\xC2\x85"s, "\r"s}) {  // none starts a sequence
      const std::string text = clean.substr(0, at) + control + clean.substr(at);
      const auto out = strip_control(text);
      ASSERT_TRUE(out.has_value()) << "at " << at;
      EXPECT_EQ(*out, clean) << "at " << at;
    }
  }
}

TEST(StripControl, IsDeterministic) {
  for (const Case& c : corpus()) EXPECT_EQ(strip_control(c.in), strip_control(c.in)) << c.what;
}

TEST(StripControl, IsIdempotentOnEveryFourByteString) {
  // Every short combination of the bytes that matter, so a removal that joins
  // neighbours into a new control cannot hide.
  const std::string alphabet = "\x1B[]\\P0m;\x07\n\r\t\xC2\x9B\x9D\x9C\x85 a\x7F"s;
  for (char a : alphabet)
    for (char b : alphabet)
      for (char c : alphabet)
        for (char d : alphabet) {
          const std::string in{a, b, c, d};
          const std::string once = stripped(in);
          ASSERT_EQ(strip_control(once), std::nullopt) << "input bytes: " << testing::PrintToString(in);
        }
}

TEST(StripControl, HandlesOneMebibyteOfMixedInput) {
  std::string in;
  std::string expected;
  while (in.size() < (1u << 20)) {
    in += "\x1B[1;32mok\x1B[0m line\r\n\xC2\x9B" "2Kfoo\t\xE2\x80\xAE\n";
    expected += "ok line\nfoo\t\xE2\x80\xAE\n";
  }
  const std::optional<std::string> out = strip_control(in);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(*out, expected);
  EXPECT_EQ(strip_control(*out), std::nullopt);
}

TEST(StripControl, LeavesOneMebibyteOfCleanInputUnchanged) {
  const std::string in(1u << 20, 'x');
  EXPECT_EQ(strip_control(in), std::nullopt);
}

TEST(StripControl, DropsAnUnterminatedOneMebibyteSequence) {
  const std::string in = "keep\x1B]8;;" + std::string(1u << 20, 'u');
  EXPECT_EQ(stripped(in), "keep");
}

}  // namespace
