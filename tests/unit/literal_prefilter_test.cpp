// literal_prefilter_test.cpp — the literal prefilter of airlock.redact-secrets
// (plugins/redact-secrets/literal_prefilter.hpp): it finds an atom at every
// position and in any case, stands aside when it cannot vouch for a pattern,
// and never changes what the redactor redacts.
#include "literal_prefilter.hpp"
#include "redact_secrets.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

using airlock::plugins::builtin_secret_patterns;
using airlock::plugins::LiteralPrefilter;
using airlock::plugins::SecretRedactor;
using ::testing::Contains;

re2::RE2::Options latin1() {
  re2::RE2::Options options;
  options.set_encoding(re2::RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  return options;
}

LiteralPrefilter builtin_prefilter() {
  std::vector<std::string_view> sources;
  for (const auto& pattern : builtin_secret_patterns()) sources.push_back(pattern.regex);
  return LiteralPrefilter(sources, latin1());
}

TEST(LiteralPrefilter, RulesOutTextForTheBuiltinPatterns) {
  const LiteralPrefilter filter = builtin_prefilter();
  ASSERT_TRUE(filter.active());
  EXPECT_THAT(filter.atoms(), Contains("akia"));
  EXPECT_THAT(filter.atoms(), Contains("aws_secret_access_key"));
  EXPECT_THAT(filter.atoms(), Contains("eyj"));
  std::string alphabet(4096, ' ');
  for (std::size_t i = 0; i < alphabet.size(); ++i) alphabet[i] = static_cast<char>('a' + i % 26);
  EXPECT_FALSE(filter.may_match(alphabet));
  EXPECT_FALSE(filter.may_match(""));
  EXPECT_FALSE(filter.may_match("as"));
  EXPECT_TRUE(SecretRedactor(SecretRedactor::Options{}).prefiltered());
}

// Every length from empty to past two AVX2 blocks, every offset, both cases:
// the block scans, their edges and the byte-wise tail all find the atom.
TEST(LiteralPrefilter, FindsAnAtomAtEveryPositionInAnyCase) {
  const LiteralPrefilter filter = builtin_prefilter();
  for (const std::string_view atom : {"akia", "AkIa", "EYJ", "aWs_SeCrEt_AcCeSs_KeY", "-----BEGIN "}) {
    for (std::size_t length = atom.size(); length <= 80; ++length) {
      for (std::size_t at = 0; at + atom.size() <= length; ++at) {
        std::string text(length, 'q');
        text.replace(at, atom.size(), atom);
        ASSERT_TRUE(filter.may_match(text)) << atom << " at " << at << " of " << length;
        // Without its first byte, the atom is not there.
        text[at] = 'q';
        ASSERT_FALSE(filter.may_match(text)) << atom << " cut at " << at << " of " << length;
      }
    }
  }
}

// The AVX2 pass puts the prefixes in eight buckets, several to a bucket
// when there are more than eight: every atom, of the built-in patterns and
// of twenty operator literals with twenty different prefixes, is found at
// every offset of a block and in either case.
TEST(LiteralPrefilter, FindsEveryAtomWhateverItsBucket) {
  std::vector<std::string> literals;
  for (int i = 0; i < 20; ++i)
    literals.push_back(std::string{static_cast<char>('a' + i), static_cast<char>('a' + (i * 7) % 26),
                                   static_cast<char>('a' + (i * 11) % 26)} +
                       "_k[0-9]{4}");
  std::vector<std::string_view> sources(literals.begin(), literals.end());
  const LiteralPrefilter operators(sources, latin1());
  ASSERT_TRUE(operators.active());
  ASSERT_EQ(operators.atoms().size(), 20u);
  const LiteralPrefilter builtin = builtin_prefilter();
  for (const LiteralPrefilter* filter : {&operators, &builtin}) {
    for (const std::string& atom : filter->atoms()) {
      std::string upper = atom;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      for (std::size_t at = 0; at < 40; ++at) {
        for (const std::string& form : {atom, upper}) {
          std::string text(80, '.');
          text.replace(at, form.size(), form);
          ASSERT_TRUE(filter->may_match(text)) << form << " at " << at;
        }
      }
    }
  }
}

// Mixes of the bytes of prefixes that share a bucket are candidates at
// most: the check byte by byte rules them out.
TEST(LiteralPrefilter, RulesOutMixesOfTheBuiltinPrefixes) {
  const LiteralPrefilter filter = builtin_prefilter();
  std::string mixes;
  for (const std::string_view a : {"gh", "gi", "ak", "as", "aw", "ai", "ey", "be", "pr", "xo"})
    for (const char c : std::string_view("ostuipzjwkiax-"))
      mixes.append(a).push_back(c), mixes.push_back(' ');
  for (const std::string& atom : filter.atoms()) {
    // Mixes that are an atom's prefix are, rightly, candidates; leave them out.
    for (std::size_t at; (at = mixes.find(atom.substr(0, 3))) != std::string::npos;) mixes.erase(at, 3);
  }
  EXPECT_FALSE(filter.may_match(mixes)) << mixes;
}

TEST(LiteralPrefilter, ComparesCaseOnlyForLetters) {
  const LiteralPrefilter filter(std::vector<std::string_view>{R"(x_y-z\.[0-9]+)"}, latin1());
  ASSERT_TRUE(filter.active());
  EXPECT_TRUE(filter.may_match("..X_Y-Z.1"));
  // '_' | 0x20 is DEL and '-' | 0x20 is '-': the folded scan may stop at
  // them, and the byte-wise check tells them apart.
  EXPECT_FALSE(filter.may_match("..x\x7Fy-z.1"));
  EXPECT_FALSE(filter.may_match("..x_y\rz.1"));
}

TEST(LiteralPrefilter, StandsAsideForAPatternThatNeedsNoLiteral) {
  EXPECT_FALSE(LiteralPrefilter(std::vector<std::string_view>{"[0-9]{16}"}, latin1()).active());
  EXPECT_FALSE(LiteralPrefilter(std::vector<std::string_view>{"akia", "[0-9]{16}"}, latin1()).active());
  // A literal shorter than kMinAtom is not required either.
  EXPECT_FALSE(LiteralPrefilter(std::vector<std::string_view>{"ab[0-9]{10}"}, latin1()).active());
  // Then the redactor searches every text, and still finds the secret.
  const SecretRedactor redactor({.builtin = true, .patterns = {"[0-9]{16}"}});
  EXPECT_FALSE(redactor.prefiltered());
  EXPECT_EQ(redactor("card 1234567890123456 ok"), "card [REDACTED] ok");
}

// FilteredRE2 requires what every match holds: an alternative too short to
// require leaves the filter inactive; longer ones become one atom each, and
// a match needs one of them.
TEST(LiteralPrefilter, RequiresOnlyWhatEveryMatchHolds) {
  EXPECT_FALSE(LiteralPrefilter(std::vector<std::string_view>{"ab|xyzw"}, latin1()).active());
  EXPECT_FALSE(LiteralPrefilter(std::vector<std::string_view>{"a.c"}, latin1()).active());
  const LiteralPrefilter either(std::vector<std::string_view>{"qq(?:a|bcd)zz"}, latin1());
  ASSERT_TRUE(either.active());
  EXPECT_TRUE(either.may_match("..QQaZZ.."));
  EXPECT_TRUE(either.may_match("..qqbcdzz.."));
  EXPECT_FALSE(either.may_match("..qqzz.. bcd"));
  const LiteralPrefilter repeated(std::vector<std::string_view>{"(?:Ab)+cde"}, latin1());
  ASSERT_TRUE(repeated.active());
  EXPECT_TRUE(repeated.may_match("xxCDEyy"));  // the atom, not the whole match
  EXPECT_FALSE(repeated.may_match("ababab"));
}

TEST(LiteralPrefilter, StandsAsideForANonAsciiLiteralOrAnotherEncoding) {
  EXPECT_FALSE(LiteralPrefilter(std::vector<std::string_view>{"geheim-\xC3\xA9[0-9]+"}, latin1()).active());
  re2::RE2::Options utf8;
  EXPECT_FALSE(LiteralPrefilter(std::vector<std::string_view>{"akia[0-9]+"}, utf8).active());
  const SecretRedactor redactor({.builtin = false, .patterns = {"geheim-\xC3\xA9[0-9]+"}});
  EXPECT_EQ(redactor("x geheim-\xC3\xA9" "42 y"), "x [REDACTED] y");
}

TEST(LiteralPrefilter, KeepsACaseInsensitiveOperatorPattern) {
  const SecretRedactor redactor({.builtin = false, .patterns = {"(?i)acme-token-[0-9]+"}});
  EXPECT_TRUE(redactor.prefiltered());
  EXPECT_EQ(redactor("a AcMe-ToKeN-42 b"), "a [REDACTED] b");
  EXPECT_EQ(redactor("a acme-token b"), std::nullopt);
}

// The redactor with and without the filter, on texts woven from pieces of
// secrets in random case among filler: every answer the same.
TEST(LiteralPrefilter, NeverChangesWhatIsRedacted) {
  const SecretRedactor filtered({.builtin = true, .patterns = {"(?i)acme-[0-9]{4}", "Zq9_[a-z]{3}"}});
  const SecretRedactor searched(
      {.builtin = true, .patterns = {"(?i)acme-[0-9]{4}", "Zq9_[a-z]{3}"}, .prefilter = false});
  ASSERT_TRUE(filtered.prefiltered());
  const std::vector<std::string> pieces = {
      "AKIA",       "ASIA",   "IOSFODNN7EXAMPLE", "aws_secret_access_key", " = ", "ghp_",    "github_pat_",
      "xoxb-",      "AIza",   "Bearer ",          "-----BEGIN ",           "RSA ", "PRIVATE KEY-----",
      "-----END ",  "eyJ",    ".eyJ",             "hbGciOi",               ".",   "acme-",   "1234",
      "Zq9_",       "abc",    "0123456789abcdef", " ",                     "\n",  "\"",      "[REDACTED]",
      "q",          "é",      "\xff"};
  std::mt19937 random(20261207);
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const int count = static_cast<int>(random() % 12);
    for (int i = 0; i < count; ++i) {
      std::string piece = pieces[random() % pieces.size()];
      if (random() % 4 == 0)
        for (char& c : piece) c = static_cast<char>(random() % 2 ? std::toupper(static_cast<unsigned char>(c))
                                                                 : std::tolower(static_cast<unsigned char>(c)));
      text += piece;
      text.append(random() % 40, 'q');
    }
    ASSERT_EQ(filtered(text), searched(text)) << text;
  }
}

}  // namespace
