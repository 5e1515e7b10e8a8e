// find_any_of: where the next byte of interest is, sixteen bytes at a time.
// The first-party sanitizers look for a few bytes (a colon, a bracket) and
// leave everything between them alone; most text holds none, and testing
// each byte in turn was most of what a clean result cost them.
#ifndef AIRLOCK_PLUGINS_FIND_ANY_OF_HPP
#define AIRLOCK_PLUGINS_FIND_ANY_OF_HPP

#include <cstddef>
#include <string_view>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace airlock::plugins {

// The index of the first byte of `s` at or after `from` that equals one of
// `Bytes`, or npos. Same answer as s.find_first_of, without its per-byte
// search of the set.
template <char... Bytes>
std::size_t find_any_of(std::string_view s, std::size_t from) noexcept {
  static_assert(sizeof...(Bytes) > 0);
  std::size_t i = from;
#if defined(__SSE2__)
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    __m128i hits = _mm_setzero_si128();
    ((hits = _mm_or_si128(hits, _mm_cmpeq_epi8(v, _mm_set1_epi8(Bytes)))), ...);
    if (const int mask = _mm_movemask_epi8(hits); mask != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < s.size(); ++i)
    if (((s[i] == Bytes) || ...)) return i;
  return std::string_view::npos;
}

}  // namespace airlock::plugins

#endif
