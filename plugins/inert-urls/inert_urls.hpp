// inert_urls.hpp — the core of the airlock.inert-urls sanitizer: "defangs"
// every URL in a string leaf so that no renderer, linkifier or tool takes it
// for an actionable link, while its scheme and host stay readable. It never
// decodes, resolves or normalizes anything: percent-encoding, case, userinfo,
// ports, paths and queries stay byte for byte, so a destination hidden in a
// parameter (`/r?to=https%3A%2F%2Fevil.example`) stays hidden exactly as it
// came. Sanitizing must be destination-preserving: a sanitizer that decoded
// that parameter into a clean `https://evil.example` would launder the
// redirect's target past the egress filter of whichever tool acts on it next.
//
// THE RULES. Every edit inserts brackets or swaps one letter; no byte is
// removed. ASCII matching is case-insensitive; the case of every kept letter
// is kept.
//
//   Terms. A scheme word is the run of ASCII letters and digits directly
//   before a `:`. The scheme run is the run of ASCII letters, digits, `+`,
//   `-` and `.` directly before it (it contains the word). A label separator
//   is `.` or one of the dots a browser treats as one in a host name: U+3002,
//   U+FF0E, U+FF61. A host region is the run of authority bytes starting at a
//   given point: ASCII letters and digits, `-._~%!$&*+,;=:@[]`, and every
//   byte >= 0x80 (an IDN host, or invalid UTF-8); it ends at anything else,
//   e.g. white space, `/ ? # \ < > " ' ( ) { } | ^` and backquote.
//
//   U1. Web schemes. A scheme word `http`, `https` or `ftp` followed by `:`
//       and at least one `/` or `\` (browsers take either, and any number):
//       every `t` of the word becomes `x` (`T` becomes `X`), giving `hxxp`,
//       `hxxps`, `fxp`. The host region after the slashes is defanged (U5).
//   U2. Already defanged. A scheme word `hxxp`, `hxxps` or `fxp` followed by
//       `:` and a slash or backslash keeps its word; its host region is still
//       defanged (U5), so a half-defanged `hxxp://evil.example` is finished.
//   U3. Other schemes. Any other non-empty scheme run followed by `://`:
//       the `:` becomes `[:]` (`ssh://h.example` -> `ssh[:]//h[.]example`).
//       The host region after the slashes is defanged (U5).
//   U4. Scheme-only URIs. A scheme word `javascript`, `vbscript` or `mailto`
//       followed by `:`, or `data` followed by `:` and a media type (`type/`),
//       `,` or `;`: the `:` becomes `[:]` (`javascript[:]alert(1)`). A bare
//       `data: 42` is prose (or YAML, or an SSE line) and stays.
//   U5. Hosts. In a host region, every label separator that is followed by
//       a label byte (ASCII letter or digit, `-`, `_`, `%`, or a byte >=
//       0x80) and is not already wrapped as `[sep]` gets wrapped in brackets:
//       `.` -> `[.]`, U+3002 -> `[U+3002]`. The separator itself is kept, so
//       nothing is normalized. A trailing separator (`example.` at the end of
//       a sentence) stays bare: it separates nothing, and wrapping it could
//       put `]` before a `(` or `[`, which Markdown reads as a link.
//   U6. Bare www hosts. `www` followed by a separator (bare or bracketed) and
//       a letter, digit or non-ASCII byte, and not preceded by a letter or
//       digit, starts a host region, defanged as in U5
//       (`www.evil.example` -> `www[.]evil[.]example`).
//
//   Every `:` of the leaf is judged on its own, so a URL inside another one
//   (`https://a.example/?u=https://b.example`) is defanged too. Bare domains
//   without `www` (`evil.example`) are left alone: no lexical rule tells them
//   from file names and versions, and a list of top-level domains goes stale.
//   `%2E` in a host stays encoded (the scheme is inert regardless).
//
// IDEMPOTENCE. An output has no rewritable scheme word left (U1 turns each
// into U2's form; U3 and U4 put `[` directly before their `:`, so no scheme
// run ends there any more), no U6 trigger whose region is not defanged, and no
// separator left to wrap in any host region. The edits insert only `[` and
// `]`, which are authority bytes but not label bytes, and swap letters for
// letters, so host regions keep their extent, a separator keeps what kind of
// byte follows it, and scheme words keep their boundaries: a second pass
// finds the same URLs, all of them already inert, and returns unchanged.
//
// MARKDOWN. The markers are brackets. U5 never writes `]` before `(` or
// `[`, but `javascript[:](x)` (U4 before a parenthesis) reads as an inline
// link to `x`, and a leaf that also holds a definition `[.]: <url>` turns
// every `[.]` into a reference to it. Where output is rendered as Markdown,
// chain airlock.escape-markup after this sanitizer: it escapes every bracket,
// the markers' included.
//
// The edits never decode or resolve anything, so no new destination comes
// out: every host and URL of the output is in the input, as the same text or
// as its defanged form.
#ifndef AIRLOCK_PLUGINS_INERT_URLS_HPP
#define AIRLOCK_PLUGINS_INERT_URLS_HPP

#include <optional>
#include <string>
#include <string_view>

namespace airlock::plugins {

// The defanged text, or nullopt when it has no URL left to defang.
std::optional<std::string> inert_urls(std::string_view text);

}  // namespace airlock::plugins

#endif  // AIRLOCK_PLUGINS_INERT_URLS_HPP
