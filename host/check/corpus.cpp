// The corpus. Fragments are grouped by the family of hazard they carry; the
// generator mixes them by seed. Every URL here uses a reserved name (.example)
// or a loopback address, so no output of a check can point anywhere real.
#include "check/corpus.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <system_error>

namespace airlock::host::check {
namespace {

using namespace std::string_view_literals;

struct Fragment {
  std::string_view family;
  std::string_view text;
};

// The seed document's laundering case (shared/seeds/002): the encoded target
// must never come out decoded.
constexpr std::string_view kSeedRedirect = "https://allowed.example/r?to=https%3A%2F%2Fattacker.example";

constexpr std::array kFragments = {
    Fragment{"plain", "hello, world"},
    Fragment{"plain", "The quick brown fox jumps over the lazy dog."},
    Fragment{"unicode", "gr\xC3\xBC\xC3\x9F dich \xE2\x9C\x93 \xF0\x9F\x98\x80 \xE6\x97\xA5\xE6\x9C\xAC"},
    Fragment{"ansi", "\x1B[1;31mred\x1B[0m and \x1B[4munderlined\x1B[24m"},
    Fragment{"ansi", "\x1B[2J\x1B[H\x1B[?25l cleared"},
    Fragment{"osc", "\x1B]8;;https://evil.example/\x07" "click here\x1B]8;;\x07"},
    Fragment{"osc", "\x1B]0;window title\x1B\\ after"},
    Fragment{"osc", "\xC2\x9D" "52;c;aGVsbG8=\xC2\x9C clipboard"},
    Fragment{"dcs", "\x1BPq#0;2;0;0;0\x1B\\ sixel"},
    Fragment{"c1", "\xC2\x9B" "31m eight-bit csi \xC2\x85 nel"},
    Fragment{"c0", "bell\x07 backspace\x08 nul\x00 del\x7F cr\r\n vt\x0B ff\x0C"sv},
    Fragment{"bidi", "invoice_\xE2\x80\xAE" "fdp.exe"},
    Fragment{"bidi", "\xE2\x81\xA6" "isolate\xE2\x81\xA9 \xE2\x80\xAB" "embed\xE2\x80\xAC"},
    Fragment{"zero-width", "a\xE2\x80\x8B" "b\xE2\x80\x8C" "c\xE2\x80\x8D" "d\xE2\x81\xA0" "e\xEF\xBB\xBF"},
    Fragment{"zero-width", "ht\xE2\x80\x8Btps://evil.example/ and https://evil\xE2\x80\x8B.example/"},
    Fragment{"invalid-utf8", "a\xFF\xFE" "b\x80\xC3" "c"},
    Fragment{"invalid-utf8", "http://a.example/\xFF\xC3 \xF5\x80"},
    Fragment{"overlong-utf8", "\xC0\xAF\xE0\x80\xAF \xC0\xBC" "script\xC0\xBE"},
    Fragment{"overlong-utf8", "http:\xC0\xAF\xC0\xAF" "evil\xC0\xAE" "example"},
    Fragment{"url", "https://www.example.com/path?q=1#frag"},
    Fragment{"url", "http://good.example@evil.example:8080/p?q=1"},
    Fragment{"url", "ssh://git@host.example:22/repo.git ftp://files.example/a"},
    Fragment{"url", "http://127.0.0.1:8808/mcp http://[::1]:8080/admin"},
    Fragment{"url", "https://a.example/?next=https://b.example/?next=http://c.example/"},
    Fragment{"url", "www.evil.example/x and WWW.EVIL.EXAMPLE"},
    Fragment{"url", "https:\\\\evil.example\\path //evil.example/protocol-relative"},
    Fragment{"percent-encoded", kSeedRedirect},
    Fragment{"percent-encoded", "http://a.example/?u=https%3a%2f%2fattacker.example%2Fpath&v=1"},
    Fragment{"percent-encoded", "https://allowed.example/r?to=https%253A%252F%252Fattacker.example"},
    Fragment{"percent-encoded", "http://evil%2Eexample/ and to=https%3A%2F%2Fattacker.example"},
    Fragment{"punycode", "https://xn--80ak6aa92e.com/login www.xn--e1awd7f.com"},
    Fragment{"punycode", "https://evil\xE3\x80\x82" "example/ www.evil\xEF\xBC\x8E" "example"},
    Fragment{"markdown", "[click me](https://evil.example/x \"title\") and [rel](/local)"},
    Fragment{"markdown", "![alt](https://evil.example/pixel.png)"},
    Fragment{"markdown", "[text][ref]\n\n[ref]: https://evil.example/ref"},
    Fragment{"markdown", "<https://evil.example/auto> <mailto:someone@evil.example>"},
    Fragment{"markdown", "\\[escaped\\](x) \\\\[live](y)"},
    Fragment{"html", "<a href=\"https://evil.example/a\" onclick=\"x()\">x</a>"},
    Fragment{"html", "<img src=x onerror=alert(1)><script>alert('x')</script>"},
    Fragment{"html", "&lt;b&gt; &#60;i&#62; &amp;lt;"},
    Fragment{"scheme", "javascript:alert(document.domain) data:text/html;base64,PHNjcmlwdD4="},
    // Defanged as airlock.inert-urls writes it, and half-defanged as people
    // and other tools write it: a sanitizer that revives one half (the
    // scheme, or the dots) of a URL whose other half is plain makes up a
    // live destination only when the corpus holds such a URL.
    Fragment{"defanged", "hxxps://attacker[.]example/r ssh[:]//h[.]example www[.]e[.]example"},
    Fragment{"defanged", "HXXPS://UPPER[.]EXAMPLE/ fxp://files[.]example/a javascript[:]alert(1)"},
    Fragment{"defanged", "hxxp://plain.example/a hxxps://plain.example/b fxp://files.example/c"},
    Fragment{"defanged", "ssh[:]//git.example/repo hxxp[://]bracket.example/ HXXP://SHOUT.EXAMPLE/"},
    Fragment{"defanged", "https://dots[.]example/ http://paren(.)example/ evil[dot]example www(.)evil(.)example"},
    Fragment{"defanged", "10[.]0[.]0[.]1 and hxxp://127[.]0[.]0[.]1:8080/ and [::1][:]8080"},
    Fragment{"secret", "AKIAIOSFODNN7EXAMPLE"},
    Fragment{"secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
    Fragment{"secret", "token ghp_aB3aB3aB3aB3aB3aB3aB3aB3aB3aB3aB3aB3 and xoxb-123456789012-abcdefghij"},
    Fragment{"secret", "Authorization: Bearer abc.def-ghi_jkl~mno+pqr/stu=="},
    Fragment{"secret", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"},
    Fragment{"secret", "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n"
                       "-----END RSA PRIVATE KEY-----"},
    Fragment{"secret", "https://user:ghp_aB3aB3aB3aB3aB3aB3aB3aB3aB3aB3aB3aB3@github.example/org/repo.git"},
    Fragment{"marker", "[REDACTED] text\xE2\x80\xA6[truncated]"},
    Fragment{"whitespace", " \t \n  "},
};

constexpr std::array kSeparators = {" "sv, "\n"sv, " \t "sv, "\n\n"sv};

std::string repeat(std::string_view piece, std::size_t times) {
  std::string out;
  out.reserve(piece.size() * times);
  for (std::size_t i = 0; i < times; ++i) out += piece;
  return out;
}

// Lines drawn from the fragments until `bytes` is reached.
std::string bulk(Prng& prng, std::size_t bytes) {
  std::string out;
  out.reserve(bytes + 256);
  while (out.size() < bytes) {
    out += kFragments[prng.below(kFragments.size())].text;
    out += '\n';
  }
  return out;
}

std::string mixture(Prng& prng, std::size_t parts) {
  std::string out;
  for (std::size_t i = 0; i < parts; ++i) {
    if (i) out += kSeparators[prng.below(kSeparators.size())];
    out += kFragments[prng.below(kFragments.size())].text;
  }
  return out;
}

}  // namespace

std::uint64_t Prng::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::vector<CorpusItem> generate_text_corpus(std::uint64_t seed, CorpusSize size) {
  Prng prng(seed);
  std::vector<CorpusItem> items;
  items.push_back({"empty", ""});
  for (std::size_t i = 0; i < kFragments.size(); ++i)
    items.push_back({fmt::format("{} #{}", kFragments[i].family, i), std::string(kFragments[i].text)});

  const bool full = size == CorpusSize::full;
  const std::size_t mixtures = full ? 160 : 24;
  for (std::size_t i = 0; i < mixtures; ++i)
    items.push_back({fmt::format("mixture #{}", i), mixture(prng, 2 + prng.below(full ? 6 : 3))});

  // Just past 16 KiB, the default budget of a truncating sanitizer.
  items.push_back({"20 KiB of mixed lines", bulk(prng, 20 * 1024)});
  if (!full) return items;

  items.push_back({"deeply nested brackets", repeat("[", 5000) + "x" + repeat("]", 5000) + "(https://e.example)"});
  items.push_back({"deeply nested tags", repeat("<div><a href=\"http://e.example\">", 2000) + "x" +
                                             repeat("</a></div>", 2000)});
  items.push_back({"deeply nested escapes", repeat("\x1B[1m", 5000) + "bold" + repeat("\x1B[0m", 5000)});
  items.push_back({"repeated schemes", repeat("http://", 4000) + "e.example"});
  items.push_back({"long host", "http://" + repeat("a.", 30000) + "example/"});
  items.push_back({"one line of 64 KiB", std::string(64 * 1024, 'x')});
  items.push_back({"1 MiB of mixed lines", bulk(prng, 1024 * 1024)});
  return items;
}

Result<std::vector<CorpusItem>> load_corpus_dir(const std::filesystem::path& dir) {
  constexpr std::uintmax_t kMaxFileBytes = 16u << 20;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return Error{fmt::format("{}: cannot read corpus directory: {}", dir.string(), ec.message())};
  std::vector<std::filesystem::path> files;
  for (const auto& entry : it)
    if (entry.is_regular_file(ec)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<CorpusItem> items;
  for (const auto& file : files) {
    const auto bytes = std::filesystem::file_size(file, ec);
    if (ec || bytes > kMaxFileBytes)
      return Error{fmt::format("{}: corpus files are read whole and must be at most 16 MiB", file.string())};
    std::ifstream in(file, std::ios::binary);
    std::string text(static_cast<std::size_t>(bytes), '\0');
    if (!in.read(text.data(), static_cast<std::streamsize>(text.size())))
      return Error{fmt::format("{}: cannot read corpus file", file.string())};
    items.push_back({"corpus file " + file.filename().string(), std::move(text)});
  }
  return items;
}

std::string render_result(int shape, std::string_view text) {
  namespace json = boost::json;
  auto text_block = [&] { return json::object{{"type", "text"}, {"text", text}}; };
  json::object result;
  switch (shape) {
    case 0: result = {{"content", json::array{text_block()}}}; break;
    case 1:
      result = {{"content", json::array{text_block()}},
                {"structuredContent", json::object{{"text", text},
                                                   {"items", json::array{text, json::object{{"note", text}}}},
                                                   {"count", 3}}}};
      break;
    case 2: {
      json::object block = text_block();
      block["_meta"] = json::object{{"trace", "t-1"}};
      result = {{"content", json::array{std::move(block)}},
                {"structuredContent", json::object{{"text", text}}},
                {"_meta", json::object{{"airlock/untrusted",
                                        json::array{json::object{{"pointer", "/text"}, {"source", "web"}}}},
                                       {"requestTrace", "r-1"}}}};
      break;
    }
    case 3: result = {{"content", json::array{text_block()}}, {"isError", true}}; break;
    case 4:
      result = {{"content",
                 json::array{json::object{{"type", "resource_link"},
                                          {"uri", "https://docs.example/a"},
                                          {"name", text},
                                          {"description", text}},
                             json::object{{"type", "resource"},
                                          {"resource", json::object{{"uri", "file:///tmp/a.txt"},
                                                                    {"mimeType", "text/plain"},
                                                                    {"text", text}}}}}}};
      break;
    case 5: {
      json::value nested = json::object{{"leaf", text}};
      for (int depth = 0; depth < 60; ++depth) nested = json::object{{"a", std::move(nested)}};
      result = {{"content", json::array{text_block()}}, {"structuredContent", std::move(nested)}};
      break;
    }
    default:
      result = {{"content", json::array{text_block(), json::object{{"type", "image"},
                                                                    {"data", "iVBORw0KGgo="},
                                                                    {"mimeType", "image/png"}}}}};
  }
  return json::serialize(result);
}

std::span<const std::string_view> malformed_utf8_pieces() {
  static constexpr std::array kPieces = {"\xFF"sv, "\xC0\xAF"sv, "\xED\xA0\x80"sv,
                                         "\xE2\x82"sv, "\xF4\x90\x80\x80"sv, "\x80"sv};
  return kPieces;
}

}  // namespace airlock::host::check
