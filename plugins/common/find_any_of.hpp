// find_any_of: where the next byte of interest is, sixteen bytes at a time
// (thirty-two with AVX2). The first-party sanitizers look for a few bytes (a
// colon, a bracket) and leave everything between them alone; most text
// holds none, and testing each byte in turn was most of what a clean result
// cost them.
#ifndef AIRLOCK_PLUGINS_FIND_ANY_OF_HPP
#define AIRLOCK_PLUGINS_FIND_ANY_OF_HPP

#include "cpu_features.hpp"

#include <cstddef>
#include <string_view>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace airlock::plugins {

namespace find_any_of_detail {

#if defined(__x86_64__)
// Whole 32-byte blocks from `i`: where the first byte found is, or where the
// blocks ended (fewer than 32 bytes left).
template <char... Bytes>
__attribute__((target("avx2"))) std::size_t blocks_avx2(std::string_view s, std::size_t i) noexcept {
  for (; i + 32 <= s.size(); i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.data() + i));
    __m256i hits = _mm256_setzero_si256();
    ((hits = _mm256_or_si256(hits, _mm256_cmpeq_epi8(v, _mm256_set1_epi8(Bytes)))), ...);
    if (const auto mask = static_cast<unsigned>(_mm256_movemask_epi8(hits)); mask != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(mask));
  }
  return i;
}
#endif

}  // namespace find_any_of_detail

// The index of the first byte of `s` at or after `from` that equals one of
// `Bytes`, or npos. Same answer as s.find_first_of, without its per-byte
// search of the set.
template <char... Bytes>
std::size_t find_any_of(std::string_view s, std::size_t from) noexcept {
  static_assert(sizeof...(Bytes) > 0);
  std::size_t i = from;
#if defined(__x86_64__)
  if (i <= s.size() && s.size() - i >= 64 && has_avx2()) {
    i = find_any_of_detail::blocks_avx2<Bytes...>(s, i);
    if (i + 32 <= s.size()) return i;  // found
  }
#endif
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
