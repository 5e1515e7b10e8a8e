// sanitizer_corpus.hpp — one corpus of hostile and ordinary string leaves,
// shared by every sanitizer test: each first-party sanitizer must be
// deterministic, idempotent and destination-preserving on all of it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace airlock::test {

struct CorpusItem {
  std::string name;
  std::string text;
};

namespace corpus_detail {

inline std::string repeat(const std::string& piece, std::size_t times) {
  std::string out;
  out.reserve(piece.size() * times);
  for (std::size_t i = 0; i < times; ++i) out += piece;
  return out;
}

// `line` repeated up to one mebibyte.
inline std::string mebibyte_of(const std::string& line) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  std::string out;
  out.reserve(kMiB + line.size());
  while (out.size() < kMiB) out += line;
  return out;
}

}  // namespace corpus_detail

// The seed's redirect (shared/seeds/002): the encoded target must never come
// out decoded, i.e. as `https://attacker.example`.
inline const std::string kSeedRedirect = "https://allowed.example/r?to=https%3A%2F%2Fattacker.example";

inline const std::vector<CorpusItem>& sanitizer_corpus() {
  using corpus_detail::mebibyte_of;
  using corpus_detail::repeat;
  static const std::vector<CorpusItem> items = [] {
    const std::string github_token = "ghp_" + repeat("aB3", 12);               // 36 characters
    const std::string google_key = "AIza" + repeat("Sy-_0", 7);                // 35 characters
    std::vector<CorpusItem> v = {
        {"empty", ""},
        {"plain ascii", "hello, world"},
        {"utf-8 text", "gr\xC3\xBC\xC3\x9F dich \xE2\x9C\x93 \xF0\x9F\x98\x80"},
        // Terminal escapes, one of them an OSC 8 hyperlink.
        {"ansi escapes", "\x1B[1;31mred\x1B[0m \x1B]8;;https://evil.example/\x07" "click\x1B]8;;\x07 \x1B[2J"},
        {"bidi override", "invoice_\xE2\x80\xAE" "fdp.exe and https://good.example/\xE2\x80\xAEtxt.exe"},
        {"zero-width chars", "a\xE2\x80\x8B" "b\xEF\xBB\xBF ht\xE2\x80\x8Btps://evil.example https://evil\xE2\x80\x8B.example/"},
        {"invalid utf-8", "a\xFF\xFE" "b\x80\xC3" "c http://a.example/\xFF\xC3 \xF5\x80"},
        // Overlong encodings of '/', '<', '>' and '.', which a lenient decoder would turn into markup or URLs.
        {"overlong utf-8", "\xC0\xAF\xE0\x80\xAF \xC0\xBC" "script\xC0\xBE http:\xC0\xAF\xC0\xAF" "evil\xC0\xAE" "example"},
        {"seed redirect", kSeedRedirect},
        {"seed redirect in prose", "Fetched " + kSeedRedirect + " (302 Found)."},
        {"lowercase percent-encoding", "http://a.example/?u=https%3a%2f%2fattacker.example%2Fpath&v=1"},
        {"double percent-encoding", "https://allowed.example/r?to=https%253A%252F%252Fattacker.example"},
        {"bare encoded redirect", "to=https%3A%2F%2Fattacker.example&x=%2F%2Fattacker.example"},
        {"encoded host dot", "http://evil%2Eexample/ and http://evil%252Eexample/"},
        {"punycode hosts", "https://xn--80ak6aa92e.com/login www.xn--e1awd7f.com xn--pple-43d.com"},
        {"ideographic and fullwidth dots", "https://evil\xE3\x80\x82" "example/ www.evil\xEF\xBC\x8E" "example http://a\xEF\xBD\xA1" "b/"},
        {"markdown link", "[click me](https://evil.example/x \"title\") and [rel](/local)"},
        {"markdown image", "![alt](https://evil.example/pixel.png) ![](data:image/png;base64,iVBORw0KGgo=)"},
        {"reference link and definition", "[text][ref] and [shortcut]\n\n[ref]: https://evil.example/ref\n[shortcut]: <https://evil.example/s>"},
        {"autolink", "<https://evil.example/auto> <mailto:someone@evil.example>"},
        {"html anchor", "<a href=\"https://evil.example/a\" onclick=\"x()\">x</a>"},
        {"html image", "<img src=x onerror=alert(1)><IMG SRC=\"javascript:alert('x')\">"},
        {"javascript and data uris", "[x](javascript:alert(document.domain)) JavaScript:void(0) data:text/html;base64,PHNjcmlwdD4="},
        {"userinfo and port", "http://good.example@evil.example:8080/p?q=1#frag"},
        {"ip hosts", "http://127.0.0.1/ http://[::1]:8080/admin http://[::ffff:10.0.0.1]/"},
        {"backslashes and single slash", "https:\\\\evil.example\\path https:/evil.example"},
        {"protocol-relative", "//evil.example/x and // a comment"},
        {"other schemes", "ssh://git@host.example:22/repo.git ftp://files.example/a sftp://x.example file:///etc/passwd wss://s.example/"},
        {"nested urls", "https://a.example/?next=https://b.example/?next=http://c.example/&u=x"},
        {"url inside an authority", "http://a.b.http://c.d https://x@1.http://y.example"},
        {"already defanged", "hxxps://attacker[.]example/r?to=https%3A%2F%2Fevil.example ssh[:]//h[.]example www[.]e[.]example"},
        {"half defanged", "hxxp://evil.example HXXPS://EVIL.EXAMPLE fxp://f.example www[.]evil.example"},
        {"www hosts", "go to www.evil.example/x, WWW.EVIL.EXAMPLE, awww.cute or www."},
        {"bare domains and files", "see evil.example, main.cpp, v1.2.3 and e.g. this"},
        {"escaped markdown", "\\[not a link\\](x) \\\\[live](y) \\<b>"},
        {"entities", "&lt;a href=x&gt; &#60;img&#62; &amp;lt;"},
        {"secrets", "AKIAIOSFODNN7EXAMPLE aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
        {"more secrets", "token " + github_token + " xoxb-123456789012-abcdefghij " + google_key +
                             " github_pat_11ABCDEFG0123456789_abcdefghij"},
        {"bearer and jwt", "Authorization: Bearer abc.def-ghi_jkl~mno+pqr/stu==\n"
                           "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"},
        {"private key", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n"
                        "-----END RSA PRIVATE KEY-----\nafter"},
        {"unterminated private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA"},
        {"secret in a url", "https://user:" + github_token + "@github.com/org/repo.git"},
        {"markers", "[REDACTED] Bearer [REDACTED] aws_secret_access_key = [REDACTED] text\xE2\x80\xA6[truncated]"},
        {"deeply nested brackets", repeat("[", 10000) + "x" + repeat("]", 10000) + "(https://evil.example)"},
        {"deeply nested images", repeat("![", 2000) + "a" + repeat("](https://e.example/i.png)", 2000)},
        {"deeply nested tags", repeat("<div><a href=\"http://e.example\">", 3000) + "x" + repeat("</a></div>", 3000)},
        {"deeply nested parentheses", repeat("(", 10000) + "http://e.example" + repeat(")", 10000)},
        {"repeated schemes", repeat("http://", 5000) + "e.example"},
        {"repeated www", repeat("www.", 5000) + "e.example"},
        {"repeated backslashes", repeat("\\", 10001) + "[x]" + repeat("\\", 10000) + "<"},
        {"one mebibyte of x", std::string(std::size_t{1} << 20, 'x')},
        {"one mebibyte host", "http://" + repeat("a.", (std::size_t{1} << 19) - 4) + "example/"},
        {"one mebibyte of mixed lines",
         mebibyte_of("\x1B[32mok\x1B[0m [link](" + kSeedRedirect + ") <b>www.e.example</b> AKIAIOSFODNN7EXAMPLE "
                     "\xE2\x80\xAE\xE2\x80\x8B\xFF caf\xC3\xA9 ssh://h.example\n")},
    };
    return v;
  }();
  return items;
}

}  // namespace airlock::test
