// sanitizer_contract.hpp — what every first-party text sanitizer promises,
// checked on one input by the sanitizer fuzz targets (DESIGN.md, Sanitizers):
//   - deterministic: the same input gives the same output;
//   - nullopt means "unchanged", so a changed output is never equal to the input;
//   - UTF-8 in, UTF-8 out: valid input gives valid output;
//   - idempotent: s(s(x)) == s(x), i.e. a second pass returns nullopt;
//   - destination-preserving: every URL or host in the output is in the
//     input, as the same text or as its inert form (host/check/destinations).
// A broken promise aborts with the input and output on stderr.
#pragma once

#include "check/destinations.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::fuzz {

// Shows a string with every byte outside printable ASCII as \xNN.
inline std::string printable(std::string_view s) {
  std::string out;
  for (const char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7f && b != '\\') {
      out += c;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", b);
      out += hex;
    }
  }
  return out;
}

[[noreturn]] inline void broken(const char* promise, std::string_view in, std::string_view out) {
  std::fprintf(stderr, "sanitizer contract broken: %s\n  input:  %s\n  output: %s\n", promise, printable(in).c_str(),
               printable(out).c_str());
  std::abort();
}

// Text with inert-urls' bracket marks taken out: "[.]", "[:]" and the
// bracketed Unicode dots lose their brackets; backslashes stay.
inline std::string without_bracket_marks(std::string s) {
  for (const char* mark : {"[.]", "[:]", "[\xE3\x80\x82]", "[\xEF\xBC\x8E]", "[\xEF\xBD\xA1]"}) {
    const std::string m(mark);
    std::string out;
    std::size_t at = 0;
    for (std::size_t hit; (hit = s.find(m, at)) != std::string::npos; at = hit + m.size())
      out.append(s, at, hit - at).append(m, 1, m.size() - 2);
    s = out.append(s, at, std::string::npos);
  }
  return s;
}

// Whether `d`, which host/check calls made up, is an input destination with
// only inert-urls' brackets added (and its scheme's t swapped for x).
// host/check's undo_inert_marks also reads "\[" as escape-markup's escaped
// bracket, so an input backslash directly before a dot that inert-urls
// brackets ("https://\.example" gives "hxxps://\[.]example") reads there as
// a made-up "https://.example", though the sanitizer inserted two brackets
// and nothing else. (Reported for host/check/destinations.)
inline bool only_brackets_added(std::string_view in, const std::string& d) {
  std::string live = without_bracket_marks(d);
  // The scheme run (before the first ':'): where inert-urls swapped letters.
  const std::size_t scheme_end = std::min(live.find(':'), live.size());
  auto lower = [&](std::size_t k) { return static_cast<char>(live[k] | 0x20); };
  for (std::size_t i = 0; i + 3 <= scheme_end; ++i) {
    if (i + 4 <= scheme_end && lower(i) == 'h' && lower(i + 1) == 'x' && lower(i + 2) == 'x' && lower(i + 3) == 'p') {
      live[i + 1] = live[i + 1] == 'X' ? 'T' : 't';
      live[i + 2] = live[i + 2] == 'X' ? 'T' : 't';
    } else if (lower(i) == 'f' && lower(i + 1) == 'x' && lower(i + 2) == 'p') {
      live[i + 1] = live[i + 1] == 'X' ? 'T' : 't';
    }
  }
  return without_bracket_marks(std::string(in)).find(live) != std::string::npos;
}

// Checks `sanitize` (string_view -> optional<string>, nullopt: unchanged) on `in`.
template <class Sanitize>
void check_sanitizer_contract(std::string_view in, Sanitize&& sanitize) {
  const std::optional<std::string> first = sanitize(in);
  const std::optional<std::string> again = sanitize(in);
  if (first != again) broken("not deterministic", in, first ? *first : std::string(in));
  if (!first) return;
  const std::string& out = *first;
  if (out == in) broken("returned its input unchanged instead of nullopt", in, out);
  if (host::valid_utf8(in) && !host::valid_utf8(out)) broken("valid UTF-8 in, invalid out", in, out);
  if (const std::optional<std::string> twice = sanitize(out)) broken("not idempotent (second pass below)", out, *twice);
  for (const std::string& d : host::check::made_up_destinations(in, out)) {
    if (only_brackets_added(in, d)) continue;
    broken(("made up destination '" + printable(d) + "'").c_str(), in, out);
  }
}

}  // namespace airlock::fuzz
