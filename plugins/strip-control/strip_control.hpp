// strip_control.hpp — the lexical core of the airlock.strip-control sanitizer:
// removes terminal escape sequences and control characters from UTF-8 text.
//
// What goes, byte-wise and without decoding anything:
//   - escape sequences, 7-bit (ESC ...) and 8-bit (the C1 introducers encoded
//     as UTF-8, C2 9B and so on):
//       CSI  ESC [ / C2 9B, then bytes 0x20-0x3F, then a final byte 0x40-0x7E;
//       OSC  ESC ] / C2 9D, up to BEL, ESC \ or C2 9C (ST);
//       DCS, SOS, PM, APC (ESC P X ^ _ / C2 90 98 9E 9F), up to ESC \ or C2 9C;
//       nF/Fp/Fe/Fs  ESC, bytes 0x20-0x2F, then a final byte 0x30-0x7E;
//   - C0 controls except \t and \n (so \r goes: \r\n becomes \n), DEL, and the
//     C1 controls U+0080-U+009F (C2 80 .. C2 9F).
// Everything else stays byte for byte, invalid UTF-8 included: judging
// encodings is not this sanitizer's job.
//
// Malformed sequences: a CSI broken by a byte outside its grammar ends there
// and that byte is read afresh; an ESC followed by nothing that can continue it
// goes alone. A sequence still open at the end of the input is dropped to the
// end, so that a second pass finds nothing left to strip.
//
// Destinations: a removal joins its two neighbours, which can make a host or
// URL the input did not hold ("foo.\e[1mbar" would give "foo.bar", and
// "http:\x01//evil" a live URL). Where a removal joins two bytes that could
// both belong to a destination (URL bytes: letters, digits, - _ % . : / [ ]
// +, backslash and every byte >= 0x80, part of a Unicode dot maybe), and the
// run of URL bytes around the join holds a separator (. or : or a Unicode
// dot, or one formed across the join), a space goes in its place:
// "foo. bar". A run without one can hold no destination, so "bo\e[0mld"
// still gives "bold". Runs are looked at up to kJoinLookaround bytes each
// way; a longer one counts as holding a separator.
//
// Idempotence: the output never holds a strippable byte. The one way removal
// could make one is by joining a lone C2 to a following 0x80-0x9F byte, so a
// continuation byte is judged against the last byte *written*, not the last
// byte read: the pair is a C1 control, exactly as a second pass would see it.
#ifndef AIRLOCK_PLUGINS_STRIP_CONTROL_HPP
#define AIRLOCK_PLUGINS_STRIP_CONTROL_HPP

#include "cpu_features.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <optional>
#include <string>
#include <string_view>

namespace airlock::plugins {

namespace strip_control_detail {

inline constexpr unsigned char kEsc = 0x1B;
inline constexpr unsigned char kBel = 0x07;

inline bool strippable_c0(unsigned char b) noexcept { return (b < 0x20 && b != '\t' && b != '\n') || b == 0x7F; }

// True when byte `i` of `s` starts something to strip.
inline bool strippable_at(std::string_view s, std::size_t i) noexcept {
  const auto b = static_cast<unsigned char>(s[i]);
  if (strippable_c0(b)) return true;
  if (b != 0xC2 || i + 1 >= s.size()) return false;
  const auto next = static_cast<unsigned char>(s[i + 1]);
  return next >= 0x80 && next <= 0x9F;
}

#if defined(__x86_64__)
// first_strippable's whole 32-byte blocks from `*i`: the index found, or
// npos with `*i` where the blocks ended. The same suspects as the SSE2 loop
// below, looked at byte by byte only in a block that holds one.
__attribute__((target("avx2"))) inline std::size_t strippable_blocks_avx2(std::string_view s,
                                                                          std::size_t* i) noexcept {
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i space = _mm256_set1_epi8(static_cast<char>(0x20 ^ 0x80));
  const __m256i del = _mm256_set1_epi8(0x7F);
  const __m256i c2 = _mm256_set1_epi8(static_cast<char>(0xC2));
  for (; *i + 32 <= s.size(); *i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.data() + *i));
    const __m256i below = _mm256_cmpgt_epi8(space, _mm256_xor_si256(v, flip));
    const __m256i hits =
        _mm256_or_si256(below, _mm256_or_si256(_mm256_cmpeq_epi8(v, del), _mm256_cmpeq_epi8(v, c2)));
    if (_mm256_movemask_epi8(hits) == 0) continue;
    for (std::size_t j = *i; j < *i + 32; ++j)
      if (strippable_at(s, j)) return j;
  }
  return std::string_view::npos;
}
#endif

// Index of the first byte that starts something to strip, or npos.
//
// Most text has nothing to strip, so this is the whole cost of the common
// case: it reads eight bytes at a time and looks at single bytes only in a
// word that holds a byte below 0x20, a DEL or a C2 (the classic "has a byte
// less than n" / "has a zero byte" word tests, exact for existence).
inline std::size_t first_strippable(std::string_view s) noexcept {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull;
  constexpr std::uint64_t kHighs = 0x8080808080808080ull;
  std::size_t i = 0;
#if defined(__x86_64__)
  if (s.size() >= 64 && has_avx2())
    if (const std::size_t at = strippable_blocks_avx2(s, &i); at != std::string_view::npos) return at;
#endif
#if defined(__SSE2__)
  // Sixteen bytes at a time where SSE2 is there (every x86-64): a byte is a
  // suspect when it is below 0x20 (signed compare after flipping the sign
  // bit), or equal to 0x7F or 0xC2.
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
  const __m128i space = _mm_set1_epi8(static_cast<char>(0x20 ^ 0x80));
  const __m128i del = _mm_set1_epi8(0x7F);
  const __m128i c2 = _mm_set1_epi8(static_cast<char>(0xC2));
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    const __m128i below = _mm_cmplt_epi8(_mm_xor_si128(v, flip), space);
    const __m128i hits = _mm_or_si128(below, _mm_or_si128(_mm_cmpeq_epi8(v, del), _mm_cmpeq_epi8(v, c2)));
    if (_mm_movemask_epi8(hits) == 0) continue;
    for (std::size_t j = i; j < i + 16; ++j)
      if (strippable_at(s, j)) return j;
  }
#endif
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    const std::uint64_t below_space = (w - kOnes * 0x20) & ~w & kHighs;
    const std::uint64_t del = w ^ (kOnes * 0x7F);
    const std::uint64_t c2 = w ^ (kOnes * 0xC2);
    const std::uint64_t suspects =
        below_space | ((del - kOnes) & ~del & kHighs) | ((c2 - kOnes) & ~c2 & kHighs);
    if (!suspects) continue;
    for (std::size_t j = i; j < i + 8; ++j)
      if (strippable_at(s, j)) return j;
  }
  for (; i < s.size(); ++i)
    if (strippable_at(s, i)) return i;
  return std::string_view::npos;
}

// Skips a CSI body from `i` (just past the introducer): returns the index past
// its final byte; on a byte outside the grammar, that byte's index.
inline std::size_t skip_csi(std::string_view s, std::size_t i) noexcept {
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b >= 0x20 && b <= 0x3F) {
      ++i;
    } else if (b >= 0x40 && b <= 0x7E) {
      return i + 1;
    } else {
      return i;
    }
  }
  return i;
}

// Skips a control string from `i` (just past the introducer) up to and
// including its terminator: ST (ESC \ or C2 9C), and BEL when `bel_ends` (OSC).
// Any other ESC ends the string and is read afresh. Unterminated: the end.
inline std::size_t skip_string(std::string_view s, std::size_t i, bool bel_ends) noexcept {
  for (; i < s.size(); ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b == kBel && bel_ends) return i + 1;
    if (b == kEsc) return (i + 1 < s.size() && s[i + 1] == '\\') ? i + 2 : i;
    if (b == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x9C) return i + 2;
  }
  return i;
}

// Skips what follows a C1 control given as its final byte 0x40-0x5F (ESC
// form) from `i`, just past its introducer.
inline std::size_t skip_c1(std::string_view s, std::size_t i, unsigned char fe) noexcept {
  switch (fe) {
    case '[': return skip_csi(s, i);
    case ']': return skip_string(s, i, true);
    case 'P': case 'X': case '^': case '_': return skip_string(s, i, false);
    default: return i;
  }
}

inline constexpr std::size_t kJoinLookaround = 256;

// A byte that can be part of a URL or host as host/check/destinations reads them.
inline bool url_byte(unsigned char b) noexcept {
  return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b >= 0x80 || b == '-' ||
         b == '_' || b == '%' || b == '.' || b == ':' || b == '/' || b == '\\' || b == '[' || b == ']' || b == '+';
}

// The dots browsers accept in a host name besides '.': U+3002, U+FF0E, U+FF61.
inline bool holds_separator(std::string_view run) noexcept {
  return run.find_first_of(".:") != std::string_view::npos || run.find("\xE3\x80\x82") != std::string_view::npos ||
         run.find("\xEF\xBC\x8E") != std::string_view::npos || run.find("\xEF\xBD\xA1") != std::string_view::npos;
}

// Whether joining `out` (all that was written) to `in` from `next` (the next
// byte kept) needs a space between them to make no new destination.
inline bool join_needs_space(std::string_view out, std::string_view in, std::size_t next) noexcept {
  if (out.empty() || next >= in.size()) return false;
  if (!url_byte(static_cast<unsigned char>(out.back())) || !url_byte(static_cast<unsigned char>(in[next])))
    return false;
  std::size_t left = out.size();
  while (left > 0 && out.size() - left < kJoinLookaround && url_byte(static_cast<unsigned char>(out[left - 1])))
    --left;
  if (left > 0 && url_byte(static_cast<unsigned char>(out[left - 1]))) return true;  // too long to judge
  std::size_t right = next;
  while (right < in.size() && right - next < kJoinLookaround && url_byte(static_cast<unsigned char>(in[right])) &&
         !strippable_at(in, right))
    ++right;
  if (right < in.size() && right - next >= kJoinLookaround) return true;
  if (holds_separator(out.substr(left)) || holds_separator(in.substr(next, right - next))) return true;
  // A Unicode dot split by the removal: its first one or two bytes on the left.
  std::string across(out.substr(out.size() - std::min<std::size_t>(2, out.size() - left)));
  across.append(in.substr(next, std::min<std::size_t>(2, right - next)));
  return holds_separator(across);
}

}  // namespace strip_control_detail

// The stripped text, or nullopt when there is nothing to strip.
inline std::optional<std::string> strip_control(std::string_view in) {
  using namespace strip_control_detail;
  std::size_t i = first_strippable(in);
  if (i == std::string_view::npos) return std::nullopt;

  std::string out;
  out.reserve(in.size());
  out.append(in.substr(0, i));
  bool removed = false;  // something was dropped since the last byte written
  while (i < in.size()) {
    const auto b = static_cast<unsigned char>(in[i]);
    if (b == kEsc) {
      removed = true;
      if (i + 1 >= in.size()) break;  // a lone trailing ESC
      const auto next = static_cast<unsigned char>(in[i + 1]);
      if (next >= 0x40 && next <= 0x5F) {
        i = skip_c1(in, i + 2, next);
      } else if (next >= 0x20 && next <= 0x7E) {
        // nF (intermediates then a final), or a two-byte Fp/Fs.
        std::size_t j = i + 1;
        while (j < in.size() && static_cast<unsigned char>(in[j]) >= 0x20 &&
               static_cast<unsigned char>(in[j]) <= 0x2F)
          ++j;
        if (j >= in.size()) break;  // unterminated: drop to the end
        const auto final_byte = static_cast<unsigned char>(in[j]);
        i = (final_byte >= 0x30 && final_byte <= 0x7E) ? j + 1 : j;
      } else {
        ++i;  // ESC before a control or a non-ASCII byte: the ESC alone goes
      }
    } else if (strippable_c0(b)) {
      removed = true;
      ++i;
    } else if (b >= 0x80 && b <= 0x9F && !out.empty() && static_cast<unsigned char>(out.back()) == 0xC2) {
      // A C1 control: C2 already written (directly before, or joined by a
      // removal) and this byte. 0x80-0x9F maps to the ESC form 0x40-0x5F.
      out.pop_back();
      removed = true;
      i = skip_c1(in, i + 1, static_cast<unsigned char>(b - 0x40));
    } else {
      if (removed && join_needs_space(out, in, i)) out.push_back(' ');
      removed = false;
      // Copy the run up to the next byte that needs a look in one go. A run
      // of zero means this byte is a C2 starting a C1 pair: it is written
      // alone, and the branch above joins it with its partner.
      const std::size_t run = first_strippable(in.substr(i));
      if (run == 0) {
        out.push_back(static_cast<char>(b));
        ++i;
      } else {
        const std::size_t end = run == std::string_view::npos ? in.size() : i + run;
        out.append(in.substr(i, end - i));
        i = end;
      }
    }
  }
  return out;
}

}  // namespace airlock::plugins

#endif  // AIRLOCK_PLUGINS_STRIP_CONTROL_HPP
