// sanitizers_test.cpp — the four first-party text sanitizers: escape-markup,
// inert-urls, redact-secrets and truncate-strings. Their logic is tested
// directly, case by case; then all of them together on the shared corpus
// (sanitizer_corpus.hpp) and on random token strings for determinism,
// idempotence and destination preservation; then each real plugin .so,
// dlopened against the fake host of tests/abi.
#include "escape_markup.hpp"
#include "inert_urls.hpp"
#include "redact_secrets.hpp"
#include "truncate_strings.hpp"

#include "fake_host.hpp"
#include "sanitizer_corpus.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cctype>
#include <cstddef>
#include <cstring>
#include <memory>
#include <functional>
#include <optional>
#include <ostream>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using airlock::plugins::escape_markup;
using airlock::plugins::inert_urls;
using airlock::plugins::kRedactionMarker;
using airlock::plugins::kTruncationMarker;
using airlock::plugins::SecretRedactor;
using airlock::plugins::truncate_strings;
using airlock::test::kSeedRedirect;
using airlock::test::sanitizer_corpus;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace std::literals;

using SanitizeFn = std::function<std::optional<std::string>(std::string_view)>;

// The output, with nullopt read as "unchanged".
std::string applied(const SanitizeFn& fn, std::string_view in) {
  std::optional<std::string> out = fn(in);
  return out ? *out : std::string(in);
}

// Linear, for the mebibyte items of the corpus.
std::string replace_all(const std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(s.size());
  std::size_t copied = 0;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, copied)) {
    out.append(s, copied, at - copied);
    out.append(to);
    copied = at + from.size();
  }
  out.append(s, copied);
  return out;
}

const SecretRedactor& default_redactor() {
  static const SecretRedactor redactor{SecretRedactor::Options{}};
  return redactor;
}
std::optional<std::string> redact(std::string_view text) { return default_redactor()(text); }

// A table row: input, and the expected output (nullopt: unchanged).
struct Case {
  const char* what;
  std::string in;
  std::optional<std::string> out;
};

void expect_cases(const SanitizeFn& fn, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    EXPECT_EQ(fn(c.in), c.out) << c.what;
    EXPECT_EQ(fn(c.out.value_or(c.in)), std::nullopt) << c.what << " (second pass)";
  }
}

// ------------------------------------------------------------------------
// Destination preservation, as a checker: every destination in an output
// must be in the input as the same text, or be an inert form (one that
// carries the sanitizer's own markers) of a destination in the input.
// ------------------------------------------------------------------------

bool is_host_byte(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_' ||
         c == '%';
}
bool is_scheme_byte(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+' || c == '-' || c == '.';
}

// A label separator as the checker reads it: '.', the three dots browsers
// treat as one, each also inside inert-urls' brackets. Returns its length.
std::size_t separator_len(std::string_view t, std::size_t i) {
  const bool wrapped = t[i] == '[';
  const std::string_view rest = t.substr(wrapped ? i + 1 : i);
  for (std::string_view sep : {"."sv, "\xE3\x80\x82"sv, "\xEF\xBC\x8E"sv, "\xEF\xBD\xA1"sv}) {
    if (!rest.starts_with(sep)) continue;
    if (!wrapped) return sep.size();
    if (rest.substr(sep.size()).starts_with(']')) return sep.size() + 2;
  }
  return 0;
}

// The end of the host starting at `i` (ASCII labels and separators).
std::size_t host_end(std::string_view t, std::size_t i, bool& has_separator, bool& has_letter) {
  while (i < t.size()) {
    const auto c = static_cast<unsigned char>(t[i]);
    if (is_host_byte(c)) {
      has_letter = has_letter || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      ++i;
    } else if (const std::size_t len = separator_len(t, i); len != 0) {
      has_separator = true;
      i += len;
    } else {
      break;
    }
  }
  return i;
}

// Every `scheme://host` (colon maybe wrapped as [:], slashes maybe
// backslashes) and every bare dotted host name in `t`.
std::set<std::string> destinations(std::string_view t) {
  std::set<std::string> found;
  for (std::size_t i = 0; i < t.size();) {
    bool sep = false, letter = false;
    const std::size_t end = host_end(t, i, sep, letter);
    if (end == i) {
      ++i;
      continue;
    }
    if (sep && letter) found.emplace(t.substr(i, end - i));
    i = end;
  }
  for (std::size_t i = 0; i < t.size(); ++i) {
    std::size_t colon_len = t[i] == ':' ? 1 : t.substr(i, 3) == "[:]" ? 3 : 0;
    if (colon_len == 0) continue;
    std::size_t start = i;
    while (start > 0 && is_scheme_byte(static_cast<unsigned char>(t[start - 1]))) --start;
    std::size_t host = i + colon_len;
    while (host < t.size() && (t[host] == '/' || t[host] == '\\')) ++host;
    if (start == i || host == i + colon_len) continue;
    bool sep = false, letter = false;
    const std::size_t end = host_end(t, host, sep, letter);
    if (end > host) found.emplace(t.substr(start, end - start));
  }
  return found;
}

struct Sanitizer {
  std::string name;
  SanitizeFn fn;
  // Undoes the sanitizer's own documented inert markers.
  std::function<std::string(std::string)> undo;
};

void PrintTo(const Sanitizer& s, std::ostream* os) { *os << s.name; }

std::string undo_nothing(std::string s) { return s; }

std::string undo_escape_markup(std::string s) {
  s = replace_all(s, "\\[", "[");
  s = replace_all(s, "\\]", "]");
  s = replace_all(s, "&lt;", "<");
  return replace_all(s, "&gt;", ">");
}

std::string undo_inert_urls(std::string s) {
  for (std::string_view sep : {"."sv, "\xE3\x80\x82"sv, "\xEF\xBC\x8E"sv, "\xEF\xBD\xA1"sv, ":"sv})
    s = replace_all(s, "[" + std::string(sep) + "]", sep);
  // hxxp, hxxps, fxp in any case back to http, https, ftp in the same case.
  for (std::size_t i = 0; i + 3 <= s.size(); ++i) {
    auto lower = [&](std::size_t k) { return static_cast<char>(s[k] | 0x20); };
    if (i + 4 <= s.size() && lower(i) == 'h' && lower(i + 1) == 'x' && lower(i + 2) == 'x' && lower(i + 3) == 'p') {
      s[i + 1] = s[i + 1] == 'X' ? 'T' : 't';
      s[i + 2] = s[i + 2] == 'X' ? 'T' : 't';
    } else if (lower(i) == 'f' && lower(i + 1) == 'x' && lower(i + 2) == 'p') {
      s[i + 1] = s[i + 1] == 'X' ? 'T' : 't';
    }
  }
  return s;
}

std::string undo_truncate(std::string s) { return replace_all(s, kTruncationMarker, ""); }

// What is wrong with `out` as the output of `s` for `in`, or nothing.
std::vector<std::string> destination_problems(const Sanitizer& s, std::string_view in, std::string_view out) {
  std::vector<std::string> problems;
  const std::string undone_in = s.undo(std::string(in));
  for (const std::string& d : destinations(out)) {
    if (in.find(d) != std::string_view::npos) continue;
    const std::string u = s.undo(d);
    if (u == d || (in.find(u) == std::string_view::npos && undone_in.find(u) == std::string::npos))
      problems.push_back(s.name + " made up the destination '" + d.substr(0, 200) + "'");
  }
  // The seed's case, spelled out: a decoded redirect target never appears.
  if (in.find("://attacker.example") == std::string_view::npos &&
      undone_in.find("://attacker.example") == std::string::npos &&
      s.undo(std::string(out)).find("://attacker.example") != std::string::npos)
    problems.push_back(s.name + " decoded ://attacker.example");
  return problems;
}

// ------------------------------------------------------------------------
// The checker itself
// ------------------------------------------------------------------------

TEST(DestinationChecker, FindsSchemeUrlsAndBareHostsIncludingInertForms) {
  const std::set<std::string> found =
      destinations("go https://a.example/x, hxxps[:]//b[.]example\\y and c.example or www[.]d[.]example");
  EXPECT_TRUE(found.contains("https://a.example"));
  EXPECT_TRUE(found.contains("hxxps[:]//b[.]example"));
  EXPECT_TRUE(found.contains("c.example"));
  EXPECT_TRUE(found.contains("www[.]d[.]example"));
}

TEST(DestinationChecker, FlagsASanitizerThatDecodesTheSeedsRedirect) {
  const Sanitizer decoding{"decoding", nullptr, undo_nothing};
  const std::string decoded = replace_all(kSeedRedirect, "%3A%2F%2F", "://");
  const std::vector<std::string> problems = destination_problems(decoding, kSeedRedirect, decoded);
  EXPECT_THAT(problems, Contains(HasSubstr("made up the destination 'https://attacker.example'")));
  EXPECT_THAT(problems, Contains(HasSubstr("decoded ://attacker.example")));
}

TEST(DestinationChecker, FlagsASanitizerThatRevivesADefangedUrl) {
  const Sanitizer reviving{"reviving", nullptr, undo_inert_urls};
  EXPECT_THAT(destination_problems(reviving, "hxxps://evil[.]example", "https://evil.example"),
              Contains(HasSubstr("made up the destination 'https://evil.example'")));
}

TEST(DestinationChecker, AcceptsInertFormsOfTheInputsDestinations) {
  const Sanitizer inert{"inert", nullptr, undo_inert_urls};
  EXPECT_THAT(destination_problems(inert, "https://a.example hxxp://b.example", "hxxps://a[.]example hxxp://b[.]example"),
              IsEmpty());
}

// ------------------------------------------------------------------------
// airlock.escape-markup
// ------------------------------------------------------------------------

TEST(EscapeMarkup, EscapesEveryLinkImageAndTagForm) {
  expect_cases(escape_markup, {
      {"inline link", "[t](https://e.example/x)", "\\[t\\](https://e.example/x)"},
      {"image", "![a](https://e.example/p.png)", "!\\[a\\](https://e.example/p.png)"},
      {"reference link and definition", "[t][r]\n[r]: https://e.example", "\\[t\\]\\[r\\]\n\\[r\\]: https://e.example"},
      {"collapsed and shortcut references", "[t][] [t]", "\\[t\\]\\[\\] \\[t\\]"},
      {"footnote", "x[^1]", "x\\[^1\\]"},
      {"autolink", "<https://e.example>", "&lt;https://e.example&gt;"},
      {"html anchor", "<a href=\"https://e.example\">x</a>", "&lt;a href=\"https://e.example\"&gt;x&lt;/a&gt;"},
      {"html image", "<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"},
      {"html comment", "<!-- x -->", "&lt;!-- x --&gt;"},
      {"lone angle brackets", "a < b > c", "a &lt; b &gt; c"},
      {"escaped backslash before a bracket", "\\\\[x]", "\\\\\\[x\\]"},
      {"backslash before an angle bracket", "\\<b>", "\\&lt;b&gt;"},
      {"brackets around invalid utf-8", "\xFF[\xC3]\x80", "\xFF\\[\xC3\\]\x80"},
      {"javascript link", "[x](javascript:alert(1))", "\\[x\\](javascript:alert(1))"},
  });
}

TEST(EscapeMarkup, LeavesTextWithoutLiveMarkupUnchanged) {
  expect_cases(escape_markup, {
      {"plain", "hello (world) & friends!", std::nullopt},
      {"escaped brackets", "\\[x\\]", std::nullopt},
      {"three backslashes", "\\\\\\[", std::nullopt},
      {"entities", "&lt;b&gt; &amp; &#91;x&#93;", std::nullopt},
      {"the seed's url", kSeedRedirect, std::nullopt},
      {"empty", "", std::nullopt},
  });
}

TEST(EscapeMarkup, KeepsEveryUrlByteForByte) {
  const std::string out = applied(escape_markup, "[a](" + kSeedRedirect + ") <" + kSeedRedirect + ">");
  EXPECT_EQ(out, "\\[a\\](" + kSeedRedirect + ") &lt;" + kSeedRedirect + "&gt;");
}

TEST(EscapeMarkup, NeverLeavesALiveBracketOrAngleBracketInTheCorpus) {
  for (const auto& item : sanitizer_corpus()) {
    const std::string out = applied(escape_markup, item.text);
    ASSERT_EQ(out.find_first_of("<>"), std::string::npos) << item.name;
    std::size_t run = 0;
    for (char c : out) {
      if (c == '[' || c == ']') {
        ASSERT_EQ(run % 2, 1u) << item.name;
      }
      run = c == '\\' ? run + 1 : 0;
    }
  }
}

// The rules of escape_markup.hpp applied one byte at a time, as literally
// as they are written: the implementation jumps from byte of interest to
// byte of interest, sixteen at a time, and must agree everywhere.
std::string escape_markup_by_the_rules(std::string_view text) {
  std::string out;
  std::size_t run = 0;  // backslashes just before this byte
  for (const char c : text) {
    if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      if ((c == '[' || c == ']') && run % 2 == 0) out.push_back('\\');
      out.push_back(c);
    }
    run = c == '\\' ? run + 1 : 0;
  }
  return out;
}

TEST(EscapeMarkup, AgreesWithTheRulesAppliedByteByByte) {
  std::mt19937 rng(7);
  const std::string_view alphabet = "[]\\<>a\\";
  for (int n = 0; n < 20000; ++n) {
    std::string in(rng() % 80, ' ');
    for (char& c : in) c = alphabet[rng() % alphabet.size()];
    const std::string want = escape_markup_by_the_rules(in);
    const auto got = escape_markup(in);
    ASSERT_EQ(got.value_or(in), want) << testing::PrintToString(in);
    ASSERT_EQ(got.has_value(), want != in) << testing::PrintToString(in);
  }
}

TEST(EscapeMarkup, IsIdempotentOnEveryFiveByteString) {
  const std::string alphabet = "[]\\<>&;lt(a";
  std::string in(5, ' ');
  for (char a : alphabet)
    for (char b : alphabet)
      for (char c : alphabet)
        for (char d : alphabet)
          for (char e : alphabet) {
            in = {a, b, c, d, e};
            ASSERT_EQ(escape_markup(applied(escape_markup, in)), std::nullopt) << testing::PrintToString(in);
          }
}

// ------------------------------------------------------------------------
// airlock.inert-urls
// ------------------------------------------------------------------------

TEST(InertUrls, DefangsTheSeedsUrlAndKeepsItsRedirectEncoded) {
  EXPECT_EQ(inert_urls("https://attacker.example/r?to=https%3A%2F%2Fevil.example"),
            "hxxps://attacker[.]example/r?to=https%3A%2F%2Fevil.example");
  EXPECT_EQ(inert_urls(kSeedRedirect), "hxxps://allowed[.]example/r?to=https%3A%2F%2Fattacker.example");
}

TEST(InertUrls, DefangsWebSchemesAndTheirHosts) {
  expect_cases(inert_urls, {
      {"http", "see http://a.example/x.html now", "see hxxp://a[.]example/x.html now"},
      {"ftp", "ftp://files.example/pub", "fxp://files[.]example/pub"},
      {"case is kept", "HTTPS://A.EXAMPLE HtTp://a.b", "HXXPS://A[.]EXAMPLE HxXp://a[.]b"},
      {"userinfo and port", "http://good.example@evil.example:8080/p", "hxxp://good[.]example@evil[.]example:8080/p"},
      {"ipv4", "http://127.0.0.1/", "hxxp://127[.]0[.]0[.]1/"},
      {"ipv6", "http://[::1]:8080/a", "hxxp://[::1]:8080/a"},
      {"backslashes", "https:\\\\evil.example\\p", "hxxps:\\\\evil[.]example\\p"},
      {"one slash", "https:/evil.example", "hxxps:/evil[.]example"},
      {"punycode", "https://xn--80ak6aa92e.com/", "hxxps://xn--80ak6aa92e[.]com/"},
      {"ideographic dot", "https://evil\xE3\x80\x82" "example/", "hxxps://evil[\xE3\x80\x82]example/"},
      {"fullwidth dots", "http://a\xEF\xBC\x8E" "b\xEF\xBD\xA1" "c", "hxxp://a[\xEF\xBC\x8E]b[\xEF\xBD\xA1]c"},
      {"sentence end", "Visit http://e.example.", "Visit hxxp://e[.]example."},
      {"empty label", "http://a..b", "hxxp://a.[.]b"},
      {"trailing dot before a parenthesis", "http://a.b.(//evil.example)", "hxxp://a[.]b.(//evil.example)"},
      {"markdown link", "[x](https://e.example/p)", "[x](hxxps://e[.]example/p)"},
      {"html attribute", "<a href=\"http://e.example\">", "<a href=\"hxxp://e[.]example\">"},
      {"after a dot", "x.http://e.example", "x.hxxp://e[.]example"},
  });
}

TEST(InertUrls, BracketsTheColonOfOtherSchemesAndScriptUris) {
  expect_cases(inert_urls, {
      {"ssh", "ssh://git@host.example:22/r.git", "ssh[:]//git@host[.]example:22/r.git"},
      {"file", "file:///etc/passwd", "file[:]///etc/passwd"},
      {"websocket", "wss://e.example/s", "wss[:]//e[.]example/s"},
      {"scheme glued to a word", "xhttp://e.example", "xhttp[:]//e[.]example"},
      {"javascript", "javascript:alert(1)", "javascript[:]alert(1)"},
      {"vbscript", "VBScript:msgbox", "VBScript[:]msgbox"},
      {"mailto", "mailto:someone@evil.example", "mailto[:]someone@evil.example"},
      {"data with a media type", "data:text/html;base64,AAAA", "data[:]text/html;base64,AAAA"},
      {"data with a comma", "data:,hello", "data[:],hello"},
  });
}

TEST(InertUrls, DefangsBareWwwHosts) {
  expect_cases(inert_urls, {
      {"www", "go to www.evil.example/x today", "go to www[.]evil[.]example/x today"},
      {"upper case", "WWW.EVIL.EXAMPLE", "WWW[.]EVIL[.]EXAMPLE"},
      {"half defanged", "www[.]evil.example", "www[.]evil[.]example"},
      {"not after a letter", "awww.cute", std::nullopt},
      {"not without a label", "I like www.", std::nullopt},
  });
}

// The scan looks for `www` and colons sixteen positions at a time, reading
// two bytes past each block: a host at every offset from a block's start to
// the text's last bytes is found, in a buffer of exactly the text's size
// (a std::string's terminator would hide a read past the end).
TEST(InertUrls, FindsHostsAtEveryOffsetOfTheScan) {
  const std::string host = "wWw.evil.example", defanged = "wWw[.]evil[.]example";
  for (std::size_t before = 0; before < 110; ++before) {  // through blocks of 16 and of 32
    for (std::size_t after = 0; after < 40; ++after) {
      const std::string text = std::string(before, ' ') + host + std::string(after, ' ');
      const auto exact = std::make_unique<char[]>(text.size());
      std::memcpy(exact.get(), text.data(), text.size());
      const auto out = inert_urls(std::string_view(exact.get(), text.size()));
      ASSERT_TRUE(out.has_value()) << before << " bytes before, " << after << " after";
      EXPECT_EQ(*out, std::string(before, ' ') + defanged + std::string(after, ' '));
    }
  }
  // Pairs of w, and scheme-like words without their colon, start nothing.
  EXPECT_EQ(inert_urls(std::string(100, ' ') + "ww.a ww.b wxw.c Ww.d https ftp " + std::string(30, 'w') + ".x"),
            std::nullopt);
  // A colon in the last two bytes is found by the tail, after either scan.
  EXPECT_EQ(inert_urls(std::string(30, ' ') + "javascript:"), std::string(30, ' ') + "javascript[:]");
  EXPECT_EQ(inert_urls(std::string(100, ' ') + "javascript:"), std::string(100, ' ') + "javascript[:]");
}

TEST(InertUrls, DefangsEveryUrlInsideAnother) {
  expect_cases(inert_urls, {
      {"in a query", "https://a.example/?u=https://b.example", "hxxps://a[.]example/?u=hxxps://b[.]example"},
      {"in an authority", "http://a.b.http://c.d", "hxxp://a[.]b[.]hxxp://c[.]d"},
      {"other scheme in an authority", "http://a.b.c://x.y", "hxxp://a[.]b[.]c[:]//x[.]y"},
  });
}

TEST(InertUrls, LeavesDefangedUrlsAndTextWithoutUrlsUnchanged) {
  expect_cases(inert_urls, {
      {"defanged", "hxxps://attacker[.]example/r?to=https%3A%2F%2Fevil.example", std::nullopt},
      {"defanged other scheme", "ssh[:]//h[.]example javascript[:]x", std::nullopt},
      {"encoded redirect alone", "to=https%3A%2F%2Fattacker.example", std::nullopt},
      {"bare domains and files", "see evil.example, main.cpp or v1.2.3", std::nullopt},
      {"times and ports", "12:30, a:b, localhost:8080/x", std::nullopt},
      {"windows path", "C:\\Users\\x.txt", std::nullopt},
      {"data as prose", "data: 42", std::nullopt},
      {"protocol-relative", "//evil.example/x", std::nullopt},
      {"empty", "", std::nullopt},
  });
}

TEST(InertUrls, NeverDecodesPercentEncoding) {
  EXPECT_EQ(inert_urls("http://evil%2Eexample/?a=%2F%2Fb.example"), "hxxp://evil%2Eexample/?a=%2F%2Fb.example");
}

// Where `out` still holds a live web scheme, a live `scheme://`, a script URI
// or a dotted www host; empty when it holds none.
std::vector<std::string> live_urls(std::string_view out) {
  auto lower_word_before = [&](std::size_t i) {
    std::size_t w = i;
    while (w > 0 && std::isalnum(static_cast<unsigned char>(out[w - 1]))) --w;
    std::string word(out.substr(w, i - w));
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return word;
  };
  std::vector<std::string> live;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == ':') {
      const std::string word = lower_word_before(i);
      const bool inert = word == "hxxp" || word == "hxxps" || word == "fxp";
      const bool slash = i + 1 < out.size() && (out[i + 1] == '/' || out[i + 1] == '\\');
      if (slash && (word == "http" || word == "https" || word == "ftp")) live.push_back(word + ":/");
      if (out.substr(i + 1, 2) == "//" && i > 0 && is_scheme_byte(static_cast<unsigned char>(out[i - 1])) && !inert)
        live.push_back(word + "://");
      if (word == "javascript" || word == "vbscript" || word == "mailto") live.push_back(word + ":");
    }
    if ((i == 0 || !std::isalnum(static_cast<unsigned char>(out[i - 1]))) && i + 4 < out.size() && (out.substr(i, 4) == "www." || out.substr(i, 4) == "WWW.") &&
        std::isalnum(static_cast<unsigned char>(out[i + 4])))
      live.push_back("www.");
  }
  return live;
}

TEST(InertUrls, LeavesNoLiveSchemeInTheCorpus) {
  for (const auto& item : sanitizer_corpus()) EXPECT_THAT(live_urls(applied(inert_urls, item.text)), IsEmpty()) << item.name;
}

// ------------------------------------------------------------------------
// airlock.redact-secrets
// ------------------------------------------------------------------------

const std::string kGithubToken = "ghp_" + std::string(36, 'a');
const std::string kGoogleKey = "AIza" + std::string(35, 'B');

TEST(RedactSecrets, RedactsEveryBuiltinKind) {
  expect_cases(redact, {
      {"aws key id", "key AKIAIOSFODNN7EXAMPLE end", "key [REDACTED] end"},
      {"aws temporary key id", "ASIAIOSFODNN7EXAMPLE", "[REDACTED]"},
      {"aws secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nnext", "[REDACTED]\nnext"},
      {"aws secret in env form", "AWS_SECRET_ACCESS_KEY=abc123", "[REDACTED]"},
      {"aws secret in json", "{\"aws_secret_access_key\": \"abc\"}", "{\"[REDACTED]}"},
      {"github token", "t " + kGithubToken + " u", "t [REDACTED] u"},
      {"github fine-grained token", "github_pat_11ABCDEFG0123456789_abcd", "[REDACTED]"},
      {"slack token", "xoxb-123456789012-abcdefghij", "[REDACTED]"},
      {"google api key", "key=" + kGoogleKey, "key=[REDACTED]"},
      {"bearer token", "Authorization: Bearer abc.def-ghi_jkl~mno+pqr/stu==", "Authorization: [REDACTED]"},
      {"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "[REDACTED]"},
      {"unsigned jwt", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", "[REDACTED]"},
      {"private key block", "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\nb",
       "a\n[REDACTED]\nb"},
      {"two private key blocks", "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\nmid\n"
                                 "-----BEGIN EC PRIVATE KEY-----\ny\n-----END EC PRIVATE KEY-----",
       "[REDACTED]\nmid\n[REDACTED]"},
      {"pgp private key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nx\n-----END PGP PRIVATE KEY BLOCK-----",
       "[REDACTED]"},
      {"unterminated private key", "x -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1r", "x [REDACTED]"},
      {"secret in a url", "https://x:" + kGithubToken + "@github.com/o/r", "https://x:[REDACTED]@github.com/o/r"},
      {"several", "AKIAIOSFODNN7EXAMPLE, xoxp-1234567890-x and " + kGoogleKey, "[REDACTED], [REDACTED] and [REDACTED]"},
  });
}

TEST(RedactSecrets, MatchesBytesSoInvalidUtf8CannotCutASecretShort) {
  expect_cases(redact, {
      {"invalid byte in a secret value", "aws_secret_access_key=ab\xFF" "cd end", "[REDACTED] end"},
      {"invalid byte in a private key", "-----BEGIN PRIVATE KEY-----\nab\xFF\xC3(cd\n-----END PRIVATE KEY-----\nx",
       "[REDACTED]\nx"},
  });
  const SecretRedactor accented({.builtin = false, .patterns = {"geheim-\xC3\xA9[0-9]+"}});
  EXPECT_EQ(accented("ein geheim-\xC3\xA9" "42!"), "ein [REDACTED]!");
}

TEST(RedactSecrets, LeavesTextWithoutSecretsUnchanged) {
  expect_cases(redact, {
      {"prose", "The Bearer bonds of AKIA are ghp_short.", std::nullopt},
      {"public key", "-----BEGIN PUBLIC KEY-----\nMFww\n-----END PUBLIC KEY-----", std::nullopt},
      {"the seed's url", kSeedRedirect, std::nullopt},
      {"empty", "", std::nullopt},
  });
}

TEST(RedactSecrets, NeverRedactsItsOwnMarker) {
  expect_cases(redact, {
      {"marker", "[REDACTED]", std::nullopt},
      {"bearer marker", "Bearer [REDACTED]", std::nullopt},
      {"markers side by side", "[REDACTED][REDACTED]Bearer  [REDACTED]=", std::nullopt},
  });
  // A pre-redacted assignment goes whole once, then stays.
  EXPECT_EQ(redact("aws_secret_access_key = [REDACTED]"), "[REDACTED]");
}

TEST(RedactSecrets, NoBuiltinPatternMatchesTheMarkerOrTheEmptyString) {
  for (const auto& pattern : airlock::plugins::builtin_secret_patterns()) {
    // Each built-in alone as an operator pattern passes the checks operator patterns get.
    EXPECT_NO_THROW(SecretRedactor({.builtin = false, .patterns = {std::string(pattern.regex)}})) << pattern.name;
    const SecretRedactor alone({.builtin = false, .patterns = {std::string(pattern.regex)}});
    EXPECT_EQ(alone(kRedactionMarker), std::nullopt) << pattern.name;
  }
}

TEST(RedactSecrets, AddsOperatorPatternsAfterTheBuiltinOnes) {
  const SecretRedactor both({.builtin = true, .patterns = {"ACME-[0-9]{8}"}});
  EXPECT_EQ(both("ACME-12345678 AKIAIOSFODNN7EXAMPLE"), "[REDACTED] [REDACTED]");
  const SecretRedactor only({.builtin = false, .patterns = {"ACME-[0-9]{8}"}});
  EXPECT_EQ(only("ACME-12345678 AKIAIOSFODNN7EXAMPLE"), "[REDACTED] AKIAIOSFODNN7EXAMPLE");
}

std::string construction_error(const SecretRedactor::Options& options) {
  try {
    SecretRedactor redactor(options);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RedactSecrets, RefusesAnInvalidPatternNamingItsIndexAndRe2sError) {
  EXPECT_THAT(construction_error({.patterns = {"ok-[0-9]+", "(unclosed"}}),
              HasSubstr("patterns[1]: invalid RE2 pattern: missing ): (unclosed"));
  EXPECT_THAT(construction_error({.patterns = {"a{2,1}"}}), HasSubstr("patterns[0]: invalid RE2 pattern: invalid repetition size: {2,1}"));
  // Backreferences and lookaround, which would need backtracking, are not RE2.
  EXPECT_THAT(construction_error({.patterns = {"(a)\\1"}}), HasSubstr("patterns[0]: invalid RE2 pattern"));
  EXPECT_THAT(construction_error({.patterns = {"a(?=b)"}}), HasSubstr("patterns[0]: invalid RE2 pattern"));
}

TEST(RedactSecrets, RefusesPatternsThatCanMatchTheEmptyString) {
  for (const char* p : {"", "a*", "(?:x|)", "^", "$", "\\b", "\\B", "(?m)^", "(?m)$", "\\bx*"})
    EXPECT_THAT(construction_error({.patterns = {"k-[0-9]+", p}}), HasSubstr("patterns[1]: can match the empty string"))
        << p;
  for (const char* p : {"a+", "\\bfoo\\b", "^key=\\S+", "(?m)^secret: .+$"})
    EXPECT_EQ(construction_error({.patterns = {p}}), "(no error)") << p;
}

TEST(RedactSecrets, RefusesPatternsThatMatchTheMarker) {
  for (const char* p : {"REDACTED", "\\[", "[A-Z]{3}", "(?s).+", "\\]$"})
    EXPECT_THAT(construction_error({.patterns = {p}}), HasSubstr("patterns[0]: matches the marker [REDACTED]")) << p;
}

TEST(RedactSecrets, RefusesAPatternThatCannotBeGroupedWithTheOthers) {
  // Valid alone, but \Q quotes the closing parenthesis of its group.
  EXPECT_THAT(construction_error({.patterns = {"x-1", "\\Qsecret"}}),
              HasSubstr("patterns[1]: cannot be combined with the other patterns"));
}

TEST(RedactSecrets, RefusesToRedactNothing) {
  EXPECT_THAT(construction_error({.builtin = false, .patterns = {}}), HasSubstr("nothing to redact"));
}

TEST(RedactSecrets, MatchesInLinearTimeWherePatternsWouldBacktrack) {
  // (a+)+b on a long run of a's takes exponential time in a backtracking engine.
  const SecretRedactor nested({.builtin = true, .patterns = {"(a+)+b", "(x+x+)+y"}});
  const std::string as(std::size_t{1} << 20, 'a');
  EXPECT_EQ(nested(as), std::nullopt);
  EXPECT_EQ(nested(as + "b"), std::string(kRedactionMarker));
  EXPECT_EQ(nested(std::string(std::size_t{1} << 20, 'x')), std::nullopt);
}

// ------------------------------------------------------------------------
// airlock.truncate-strings
// ------------------------------------------------------------------------

bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

TEST(TruncateStrings, LeavesALeafWithinTheBudgetUnchanged) {
  EXPECT_EQ(truncate_strings(std::string(64, 'a'), 64), std::nullopt);
  EXPECT_EQ(truncate_strings("", 64), std::nullopt);
  EXPECT_EQ(truncate_strings(std::string(16384, 'a'), airlock::plugins::kDefaultMaxBytes), std::nullopt);
}

TEST(TruncateStrings, CutsALongerLeafToTheBudgetWithTheMarker) {
  EXPECT_EQ(kTruncationMarker, "\xE2\x80\xA6[truncated]");
  const std::optional<std::string> out = truncate_strings(std::string(65, 'a'), 64);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(*out, std::string(64 - kTruncationMarker.size(), 'a') + std::string(kTruncationMarker));
  EXPECT_EQ(out->size(), 64u);
}

TEST(TruncateStrings, NeverSplitsAMultiByteSequence) {
  for (std::string_view ch : {"\xC3\xA9"sv, "\xE2\x82\xAC"sv, "\xF0\x9F\x98\x80"sv}) {
    for (std::size_t shift = 0; shift < 4; ++shift) {
      std::string in(shift, 'a');
      while (in.size() < 200) in += ch;
      const std::string out = applied([](std::string_view t) { return truncate_strings(t, 64); }, in);
      ASSERT_TRUE(out.ends_with(kTruncationMarker));
      const std::string_view kept = std::string_view(out).substr(0, out.size() - kTruncationMarker.size());
      EXPECT_TRUE(is_valid_utf8(kept)) << ch.size() << "-byte characters after " << shift;
      EXPECT_LE(out.size(), 64u);
      EXPECT_GE(out.size(), 64u - (ch.size() - 1));
      EXPECT_TRUE(in.starts_with(kept));
    }
  }
}

TEST(TruncateStrings, KeepsInvalidBytesAndCutsStrayContinuationBytesWhereTheyAre) {
  const std::size_t budget = 64 - kTruncationMarker.size();
  EXPECT_EQ(truncate_strings(std::string(100, '\x80'), 64), std::string(budget, '\x80') + std::string(kTruncationMarker));
  EXPECT_EQ(truncate_strings(std::string(100, '\xFF'), 64), std::string(budget, '\xFF') + std::string(kTruncationMarker));
  // A lead byte with a continuation cut off goes with it.
  const std::string lead_at_end = std::string(budget - 1, 'a') + "\xE2\x82\xAC" + std::string(50, 'b');
  EXPECT_EQ(truncate_strings(lead_at_end, 64), std::string(budget - 1, 'a') + std::string(kTruncationMarker));
}

TEST(TruncateStrings, RefusesABudgetBelowTheMinimum) {
  EXPECT_THROW(truncate_strings("x", 63), std::invalid_argument);
  EXPECT_EQ(airlock::plugins::kMinMaxBytes, 64u);
}

TEST(TruncateStrings, IsIdempotentForEveryBudgetAndLength) {
  const std::string pieces[] = {"a", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\x80", "\xFF", "\xE2"};
  std::string in;
  for (std::size_t i = 0; in.size() < 220; ++i) in += pieces[(i * 5 + i / 3) % 7];
  for (std::size_t max = 64; max <= 80; ++max) {
    for (std::size_t len = 0; len <= in.size(); ++len) {
      const std::string once = applied([max](std::string_view t) { return truncate_strings(t, max); }, in.substr(0, len));
      ASSERT_LE(once.size(), max);
      ASSERT_EQ(truncate_strings(once, max), std::nullopt) << max << " " << len;
    }
  }
}

// ------------------------------------------------------------------------
// Every sanitizer on the corpus and on random token strings
// ------------------------------------------------------------------------

const std::vector<Sanitizer>& every_sanitizer() {
  static const std::vector<Sanitizer> all = {
      {"EscapeMarkup", escape_markup, undo_escape_markup},
      {"InertUrls", inert_urls, undo_inert_urls},
      {"RedactSecrets", redact, undo_nothing},
      {"TruncateStrings", [](std::string_view t) { return truncate_strings(t, airlock::plugins::kDefaultMaxBytes); },
       undo_truncate},
      {"TruncateStringsAt64", [](std::string_view t) { return truncate_strings(t, 64); }, undo_truncate},
  };
  return all;
}

class EverySanitizer : public ::testing::TestWithParam<Sanitizer> {};

TEST_P(EverySanitizer, IsDeterministicOnTheCorpus) {
  for (const auto& item : sanitizer_corpus()) EXPECT_EQ(GetParam().fn(item.text), GetParam().fn(item.text)) << item.name;
}

TEST_P(EverySanitizer, IsIdempotentOnTheCorpus) {
  for (const auto& item : sanitizer_corpus()) {
    const std::string once = applied(GetParam().fn, item.text);
    EXPECT_EQ(GetParam().fn(once), std::nullopt) << item.name;
  }
}

TEST_P(EverySanitizer, ReturnsNulloptExactlyWhenNothingChanges) {
  for (const auto& item : sanitizer_corpus()) {
    const std::optional<std::string> out = GetParam().fn(item.text);
    if (out) {
      EXPECT_NE(*out, item.text) << item.name;
    }
  }
}

TEST_P(EverySanitizer, PreservesEveryDestinationInTheCorpus) {
  for (const auto& item : sanitizer_corpus())
    EXPECT_THAT(destination_problems(GetParam(), item.text, applied(GetParam().fn, item.text)), IsEmpty()) << item.name;
}

TEST_P(EverySanitizer, NeverDecodesTheSeedsRedirect) {
  for (const std::string& in : {kSeedRedirect, "[x](" + kSeedRedirect + ")", "<a href=\"" + kSeedRedirect + "\">"}) {
    const std::string out = applied(GetParam().fn, in);
    EXPECT_EQ(out.find("https://attacker.example"), std::string::npos) << out;
    // Still there, still encoded, unless the budget cut it off.
    EXPECT_TRUE(out.find("https%3A%2F%2Fattacker.example") != std::string::npos || out.ends_with(kTruncationMarker))
        << out;
  }
}

TEST_P(EverySanitizer, IsIdempotentAndDestinationPreservingOnRandomTokenStrings) {
  // Tokens from every rule of every sanitizer, so that joins and overlaps
  // between their edits come up; the fixed seed keeps the test reproducible.
  const std::vector<std::string> tokens = {
      "http", "https", "ftp", "hxxp", "HTTPS", "javascript", "data", "text/", "mailto", "ssh", "www", "x", "1", "_",
      ":", "//", "/", "\\", ".", ",", "@", "[", "]", "[.]", "[:]", "(", ")", "<", ">", "&lt;", "!", " ", "\n", "e.example",
      "\xE3\x80\x82", "\xEF\xBC\x8E", "\xE2\x80\xAE", "\xFF", "\xC3", "%3A%2F%2F", "AKIA", "IOSFODNN7EXAMPLE",
      "Bearer ", "abcdefghij", "eyJ", "[REDACTED]", "aws_secret_access_key", "=", "\"", "ghp_", kGithubToken,
      "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", std::string(kTruncationMarker)};
  std::mt19937 random(20261109);
  std::uniform_int_distribution<std::size_t> pick(0, tokens.size() - 1);
  std::uniform_int_distribution<std::size_t> length(1, 14);
  const Sanitizer& s = GetParam();
  for (int n = 0; n < 20000; ++n) {
    std::string in;
    for (std::size_t k = length(random); k > 0; --k) in += tokens[pick(random)];
    const std::string once = applied(s.fn, in);
    ASSERT_EQ(s.fn(once), std::nullopt) << testing::PrintToString(in) << " -> " << testing::PrintToString(once);
    ASSERT_THAT(destination_problems(s, in, once), IsEmpty()) << testing::PrintToString(in);
    if (s.name == "InertUrls") {
      ASSERT_THAT(live_urls(once), IsEmpty()) << testing::PrintToString(in);
    }
  }
}

TEST_P(EverySanitizer, GivesTheSameAnswersOnManyThreadsAtOnce) {
  const auto& corpus = sanitizer_corpus();
  std::vector<std::optional<std::string>> expected;
  for (const auto& item : corpus) expected.push_back(GetParam().fn(item.text));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < mismatches.size(); ++t)
    threads.emplace_back([&, t] {
      // Each thread walks the corpus from a different place.
      for (std::size_t k = 0; k < corpus.size(); ++k) {
        const std::size_t i = (k + t * 7) % corpus.size();
        if (GetParam().fn(corpus[i].text) != expected[i]) ++mismatches[t];
      }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

INSTANTIATE_TEST_SUITE_P(FirstParty, EverySanitizer, ::testing::ValuesIn(every_sanitizer()),
                         [](const auto& info) { return info.param.name; });

// ------------------------------------------------------------------------
// The real plugins, dlopened against the fake host
// ------------------------------------------------------------------------

airlock_str str(std::string_view s) { return airlock_str{s.data(), s.size()}; }

// One plugin file, loaded RTLD_LOCAL like the host does, initialised with
// `config` as its [plugin."<name>"] table, destroyed and unloaded at scope exit.
class LoadedPlugin {
 public:
  LoadedPlugin(const char* path, std::string config = "{}") {
    ctx_.config = std::move(config);
    handle_ = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) throw std::runtime_error(dlerror());
    auto* init = reinterpret_cast<decltype(&airlock_plugin_init)>(dlsym(handle_, "airlock_plugin_init"));
    status_ = init ? init(&airlock::test::kFakeHost, &ctx_) : AIRLOCK_STATUS_UNSUPPORTED;
  }
  ~LoadedPlugin() {
    if (ctx_.named && ctx_.info.on_destroy) ctx_.info.on_destroy(ctx_.info.plugin_data);
    if (handle_) dlclose(handle_);
  }
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;

  airlock_status status() const { return status_; }
  const airlock_plugin_ctx& ctx() const { return ctx_; }

  // Runs the sanitizer; the output is the input when it reports UNCHANGED.
  airlock_status text(const std::string& sanitizer, std::string_view input, std::string& output) {
    const airlock_sanitizer_def& def = ctx_.sanitizers.at(sanitizer);
    airlock_text_writer out;
    const airlock_status status = def.on_text(def.sanitizer_data, str(input), &out);
    output = status == AIRLOCK_STATUS_UNCHANGED ? std::string(input) : out.out;
    return status;
  }

 private:
  void* handle_ = nullptr;
  airlock_plugin_ctx ctx_;
  airlock_status status_ = AIRLOCK_STATUS_INTERNAL;
};

struct PluginFile {
  const char* path;
  const char* plugin;
  const char* sanitizer;
  const char* changes;  // an input it changes
};

const std::vector<PluginFile> kPluginFiles = {
    {AIRLOCK_ESCAPE_MARKUP_SO, "airlock-escape-markup", "airlock.escape-markup", "[x](y)"},
    {AIRLOCK_INERT_URLS_SO, "airlock-inert-urls", "airlock.inert-urls", "http://a.example"},
    {AIRLOCK_REDACT_SECRETS_SO, "airlock-redact-secrets", "airlock.redact-secrets", "AKIAIOSFODNN7EXAMPLE"},
    {AIRLOCK_TRUNCATE_STRINGS_SO, "airlock-truncate-strings", "airlock.truncate-strings", nullptr},
};

TEST(SanitizerPlugins, EachRegistersOneTextSanitizerUnderItsName) {
  for (const PluginFile& file : kPluginFiles) {
    LoadedPlugin plugin(file.path);
    ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK) << file.path << ": " << plugin.ctx().init_error;
    EXPECT_EQ(airlock::test::text_of(plugin.ctx().info.name), file.plugin);
    ASSERT_EQ(plugin.ctx().sanitizers.size(), 1u) << file.path;
    const airlock_sanitizer_def& def = plugin.ctx().sanitizers.begin()->second;
    EXPECT_EQ(plugin.ctx().sanitizers.begin()->first, file.sanitizer);
    EXPECT_NE(def.on_text, nullptr);
    EXPECT_EQ(def.on_result, nullptr);
  }
}

TEST(SanitizerPlugins, WriteChangedTextAndReportCleanTextUnchanged) {
  for (const PluginFile& file : kPluginFiles) {
    LoadedPlugin plugin(file.path);
    std::string out;
    EXPECT_EQ(plugin.text(file.sanitizer, "clean text", out), AIRLOCK_STATUS_UNCHANGED) << file.sanitizer;
    const std::string changes = file.changes ? file.changes : std::string(20000, 'x');
    ASSERT_EQ(plugin.text(file.sanitizer, changes, out), AIRLOCK_STATUS_OK) << file.sanitizer;
    EXPECT_NE(out, changes);
    EXPECT_EQ(plugin.text(file.sanitizer, out, out), AIRLOCK_STATUS_UNCHANGED) << file.sanitizer;
  }
}

TEST(SanitizerPlugins, RefuseUnknownSettings) {
  for (const PluginFile& file : kPluginFiles) {
    LoadedPlugin plugin(file.path, R"({"max_byte": 100})");
    EXPECT_NE(plugin.status(), AIRLOCK_STATUS_OK) << file.path;
    EXPECT_THAT(plugin.ctx().init_error, HasSubstr("[plugin.\"" + std::string(file.plugin) + "\"]"));
    EXPECT_THAT(plugin.ctx().init_error, HasSubstr("unknown key 'max_byte'"));
  }
}

TEST(RedactSecretsPlugin, AddsConfiguredPatternsOrUsesThemAlone) {
  LoadedPlugin both(AIRLOCK_REDACT_SECRETS_SO, R"({"patterns": ["ACME-[0-9]{8}"]})");
  ASSERT_EQ(both.status(), AIRLOCK_STATUS_OK) << both.ctx().init_error;
  std::string out;
  both.text("airlock.redact-secrets", "ACME-12345678 AKIAIOSFODNN7EXAMPLE", out);
  EXPECT_EQ(out, "[REDACTED] [REDACTED]");

  LoadedPlugin alone(AIRLOCK_REDACT_SECRETS_SO, R"({"builtin": false, "patterns": ["ACME-[0-9]{8}"]})");
  ASSERT_EQ(alone.status(), AIRLOCK_STATUS_OK) << alone.ctx().init_error;
  alone.text("airlock.redact-secrets", "ACME-12345678 AKIAIOSFODNN7EXAMPLE", out);
  EXPECT_EQ(out, "[REDACTED] AKIAIOSFODNN7EXAMPLE");
}

TEST(RedactSecretsPlugin, FailsInitOnAnInvalidPatternNamingItsIndexAndRe2sError) {
  LoadedPlugin plugin(AIRLOCK_REDACT_SECRETS_SO, R"({"patterns": ["ok-[0-9]+", "(unclosed"]})");
  EXPECT_NE(plugin.status(), AIRLOCK_STATUS_OK);
  EXPECT_THAT(plugin.ctx().init_error,
              HasSubstr("[plugin.\"airlock-redact-secrets\"] patterns[1]: invalid RE2 pattern: missing )"));
}

TEST(RedactSecretsPlugin, FailsInitOnSettingsOfTheWrongType) {
  for (const char* config : {R"({"patterns": "x"})", R"({"patterns": [1]})", R"({"builtin": "no"})"}) {
    LoadedPlugin plugin(AIRLOCK_REDACT_SECRETS_SO, config);
    EXPECT_NE(plugin.status(), AIRLOCK_STATUS_OK) << config;
    EXPECT_THAT(plugin.ctx().init_error, HasSubstr("[plugin.\"airlock-redact-secrets\"]")) << config;
  }
  LoadedPlugin nothing(AIRLOCK_REDACT_SECRETS_SO, R"({"builtin": false})");
  EXPECT_THAT(nothing.ctx().init_error, HasSubstr("nothing to redact"));
}

TEST(TruncateStringsPlugin, DefaultsTo16KiBAndReadsMaxBytes) {
  std::string out;
  LoadedPlugin by_default(AIRLOCK_TRUNCATE_STRINGS_SO);
  EXPECT_EQ(by_default.text("airlock.truncate-strings", std::string(16384, 'x'), out), AIRLOCK_STATUS_UNCHANGED);
  ASSERT_EQ(by_default.text("airlock.truncate-strings", std::string(16385, 'x'), out), AIRLOCK_STATUS_OK);
  EXPECT_EQ(out.size(), 16384u);

  LoadedPlugin configured(AIRLOCK_TRUNCATE_STRINGS_SO, R"({"max_bytes": 100})");
  ASSERT_EQ(configured.status(), AIRLOCK_STATUS_OK) << configured.ctx().init_error;
  ASSERT_EQ(configured.text("airlock.truncate-strings", std::string(101, 'x'), out), AIRLOCK_STATUS_OK);
  EXPECT_EQ(out, std::string(100 - kTruncationMarker.size(), 'x') + std::string(kTruncationMarker));
}

TEST(TruncateStringsPlugin, FailsInitOnABudgetBelow64OrNotAnInteger) {
  for (const char* config : {R"({"max_bytes": 63})", R"({"max_bytes": -1})", R"({"max_bytes": 100.5})",
                             R"({"max_bytes": "100"})"}) {
    LoadedPlugin plugin(AIRLOCK_TRUNCATE_STRINGS_SO, config);
    EXPECT_NE(plugin.status(), AIRLOCK_STATUS_OK) << config;
    EXPECT_THAT(plugin.ctx().init_error, HasSubstr("[plugin.\"airlock-truncate-strings\"] max_bytes")) << config;
  }
}

}  // namespace
