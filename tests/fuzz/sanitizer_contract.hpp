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
  for (const std::string& d : host::check::made_up_destinations(in, out))
    broken(("made up destination '" + printable(d) + "'").c_str(), in, out);
}

}  // namespace airlock::fuzz
