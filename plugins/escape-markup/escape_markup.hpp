// escape_markup.hpp — the core of the airlock.escape-markup sanitizer: makes
// sure no Markdown or HTML renderer can build a link, an image or a tag out
// of a string leaf. URLs are never decoded or rebuilt: the only bytes of a URL
// that change are its own brackets and angle brackets (an IPv6 literal, a
// `?a[]=1` query), escaped like any others, which a renderer shows as the
// same characters. The destination stays the same text.
//
// The rules, applied byte by byte (all the bytes involved are ASCII, which
// never occurs inside a multi-byte UTF-8 sequence, so invalid UTF-8 is safe):
//
//   1. `[` and `]` get a backslash in front, unless they already have one: a
//      bracket preceded by an odd run of backslashes is escaped already and
//      stays as it is; after an even run (none included) one backslash is
//      inserted. `\\[` is an escaped backslash before a live bracket and
//      becomes `\\\[`.
//   2. `<` becomes `&lt;` and `>` becomes `&gt;`, always.
//   3. Nothing else changes. In particular `&` is not escaped, so `&lt;` from
//      a first pass survives a second one, and `(`, `)`, `!` stay as they are.
//
// Why this suffices: every CommonMark/GFM link form needs an unescaped `[`
// and `]` (inline links and images `[t](u)` `![a](s)`, reference links
// `[t][r]` `[t][]` `[t]`, definitions `[r]: u`, footnotes), so escaping the
// brackets alone disables all of them and `(` need not be touched. Autolinks
// `<https://…>` and all raw HTML (`<a …>`, `<img …>`, any tag or comment)
// need a literal `<`. Entity references (`&#60;`, `&lt;`) render as text and
// never as markup, so leaving `&` alone builds nothing.
//
// Idempotence: after one pass no `<` or `>` is left, and every bracket sits
// after an odd run of backslashes; inserting a backslash only lengthens the
// run directly before that bracket, so a second pass finds nothing to do.
//
// Limits, by design: the text is not parsed as Markdown, so backslashes also
// appear inside code spans and code blocks, where they show. Bare URLs that
// a GFM renderer autolinks (`https://…`, `www.…`) are not markup: chain
// airlock.inert-urls for those, and before this sanitizer, so that the
// brackets of its `[.]` and `[:]` markers get escaped too. Terminal escapes
// (`ESC [ … m`) contain brackets as well: chain airlock.strip-control first.
#ifndef AIRLOCK_PLUGINS_ESCAPE_MARKUP_HPP
#define AIRLOCK_PLUGINS_ESCAPE_MARKUP_HPP

#include <optional>
#include <string>
#include <string_view>

namespace airlock::plugins {

// The escaped text, or nullopt when there is nothing to escape.
std::optional<std::string> escape_markup(std::string_view text);

}  // namespace airlock::plugins

#endif  // AIRLOCK_PLUGINS_ESCAPE_MARKUP_HPP
