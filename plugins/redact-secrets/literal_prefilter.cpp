// The atoms of the redactor's patterns, and the scan for them; the rules
// are in literal_prefilter.hpp.
#include "literal_prefilter.hpp"

#include "ascii_lower.hpp"
#include "cpu_features.hpp"

#include <re2/filtered_re2.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace airlock::plugins {
namespace {

static_assert(LiteralPrefilter::kMinAtom == 3, "the scans compare three bytes at each position");

constexpr std::uint8_t fold(unsigned char c) noexcept { return static_cast<std::uint8_t>(c | 0x20); }

constexpr int kBuckets = 8;

// The halves of the bytes a bucket's prefixes hold, per position: bit n of
// low[k] (high[k]) when some prefix's byte k has low (high) four bits n.
struct BucketNibbles {
  std::uint16_t low[LiteralPrefilter::kMinAtom] = {};
  std::uint16_t high[LiteralPrefilter::kMinAtom] = {};

  void add(const std::array<std::uint8_t, LiteralPrefilter::kMinAtom>& prefix) {
    for (int k = 0; k < LiteralPrefilter::kMinAtom; ++k) {
      low[k] = static_cast<std::uint16_t>(low[k] | (1u << (prefix[k] & 0x0f)));
      high[k] = static_cast<std::uint16_t>(high[k] | (1u << (prefix[k] >> 4)));
    }
  }
  BucketNibbles operator|(const BucketNibbles& other) const {
    BucketNibbles both;
    for (int k = 0; k < LiteralPrefilter::kMinAtom; ++k) {
      both.low[k] = static_cast<std::uint16_t>(low[k] | other.low[k]);
      both.high[k] = static_cast<std::uint16_t>(high[k] | other.high[k]);
    }
    return both;
  }
  // How many byte triples the bucket lets through: its prefixes, and every
  // mix of their halves.
  std::int64_t accepts() const {
    std::int64_t n = 1;
    for (int k = 0; k < LiteralPrefilter::kMinAtom; ++k) n *= std::popcount(low[k]) * std::popcount(high[k]);
    return n;
  }
};

// The bucket of each prefix. What a bucket lets through beyond its own
// prefixes (mixes of their halves) is what the scan must rule out byte by
// byte, so prefixes alike share one: from a bucket per prefix, the two
// whose union lets through the fewest more triples merge, until kBuckets
// are left ("ghp", "ghs" and "ghu" end up together; "aki" and "ghs" apart,
// which would let "ghi" through). Past kGreedyUpTo prefixes (an operator's
// long list) the quadratic search gives way to runs of sorted prefixes.
template <class Prefixes>
std::vector<std::uint8_t> assign_buckets(const Prefixes& prefixes) {
  constexpr std::size_t kGreedyUpTo = 128;
  const std::size_t n = prefixes.size();
  std::vector<std::uint8_t> bucket(n);
  if (n > kGreedyUpTo) {
    for (std::size_t i = 0; i < n; ++i) bucket[i] = static_cast<std::uint8_t>(i * kBuckets / n);
    return bucket;
  }
  std::vector<BucketNibbles> groups(n);
  std::vector<std::vector<std::size_t>> members(n);
  for (std::size_t i = 0; i < n; ++i) {
    groups[i].add(prefixes[i].bytes);
    members[i] = {i};
  }
  while (groups.size() > static_cast<std::size_t>(kBuckets)) {
    std::size_t best_a = 0, best_b = 1;
    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    for (std::size_t a = 0; a < groups.size(); ++a) {
      for (std::size_t b = a + 1; b < groups.size(); ++b) {
        // The halves the two let through may overlap: `more` can be negative.
        const std::int64_t more = (groups[a] | groups[b]).accepts() - groups[a].accepts() - groups[b].accepts();
        if (more < best) best = more, best_a = a, best_b = b;
      }
    }
    groups[best_a] = groups[best_a] | groups[best_b];
    members[best_a].insert(members[best_a].end(), members[best_b].begin(), members[best_b].end());
    groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(best_b));
    members.erase(members.begin() + static_cast<std::ptrdiff_t>(best_b));
  }
  for (std::size_t g = 0; g < members.size(); ++g)
    for (const std::size_t i : members[g]) bucket[i] = static_cast<std::uint8_t>(g);
  return bucket;
}

}  // namespace

LiteralPrefilter::LiteralPrefilter(const std::vector<std::string_view>& patterns,
                                   const re2::RE2::Options& options) {
  if (patterns.empty() || options.encoding() != re2::RE2::Options::EncodingLatin1) return;
  re2::FilteredRE2 filter(kMinAtom);
  for (std::string_view pattern : patterns) {
    int id = 0;
    if (filter.Add(re2::StringPiece(pattern.data(), pattern.size()), options, &id) != re2::RE2::NoError) return;
  }
  std::vector<std::string> atoms;
  filter.Compile(&atoms);
  // With no atom found, the patterns that may still match are those the
  // filter cannot rule out at all.
  std::vector<int> unfiltered;
  filter.AllPotentials({}, &unfiltered);
  if (!unfiltered.empty() || atoms.empty()) return;
  for (const std::string& atom : atoms) {
    if (atom.size() < static_cast<std::size_t>(kMinAtom)) return;
    for (const unsigned char c : atom)
      if (c >= 0x80 || ascii_lower(c) != c) return;
  }

  const auto prefix = [](const std::string& atom) {
    std::array<std::uint8_t, kMinAtom> bytes;
    for (int k = 0; k < kMinAtom; ++k) bytes[k] = fold(static_cast<unsigned char>(atom[k]));
    return bytes;
  };
  std::stable_sort(atoms.begin(), atoms.end(), [&](const auto& a, const auto& b) { return prefix(a) < prefix(b); });
  for (std::uint32_t i = 0; i < atoms.size(); ++i) {
    const auto bytes = prefix(atoms[i]);
    if (prefixes_.empty() || prefixes_.back().bytes != bytes) prefixes_.push_back(Prefix{bytes, i, i});
    prefixes_.back().end = i + 1;
  }
  const std::vector<std::uint8_t> buckets = assign_buckets(prefixes_);
  for (std::size_t i = 0; i < prefixes_.size(); ++i) {
    const Prefix& p = prefixes_[i];
    const auto bucket = static_cast<std::uint8_t>(1u << buckets[i]);
    for (int k = 0; k < kMinAtom; ++k) {
      for (int lane : {0, 16}) {
        nibbles_.low[k][lane + (p.bytes[k] & 0x0f)] |= bucket;
        nibbles_.high[k][lane + (p.bytes[k] >> 4)] |= bucket;
      }
    }
    starts_[p.bytes[0]] = true;
    std::array<Splat, kMinAtom> splat;
    for (int k = 0; k < kMinAtom; ++k) std::memset(splat[k].bytes, p.bytes[k], sizeof splat[k].bytes);
    splats_.push_back(splat);
  }
  atoms_ = std::move(atoms);
  active_ = true;
}

bool LiteralPrefilter::atom_at(std::string_view text, std::size_t at) const noexcept {
  if (text.size() - at < static_cast<std::size_t>(kMinAtom)) return false;
  const std::uint8_t b0 = fold(static_cast<unsigned char>(text[at]));
  if (!starts_[b0]) return false;  // the byte-wise tail asks at every position
  const std::uint8_t b1 = fold(static_cast<unsigned char>(text[at + 1]));
  const std::uint8_t b2 = fold(static_cast<unsigned char>(text[at + 2]));
  for (const Prefix& p : prefixes_) {
    if (p.bytes[0] != b0 || p.bytes[1] != b1 || p.bytes[2] != b2) continue;
    for (std::uint32_t i = p.begin; i < p.end; ++i) {
      const std::string& atom = atoms_[i];
      if (text.size() - at < atom.size()) continue;
      std::size_t k = 0;
      while (k < atom.size() && ascii_lower(static_cast<unsigned char>(text[at + k])) ==
                                    static_cast<unsigned char>(atom[k]))
        ++k;
      if (k == atom.size()) return true;
    }
  }
  return false;
}

// The two scans are one loop at two widths: at each block, every prefix's
// bytes are compared with the text at offsets 0, 1 and 2 from each position.
bool LiteralPrefilter::scan_sse2(std::string_view text, std::size_t* at) const noexcept {
#if defined(__SSE2__)
  const __m128i case_bit = _mm_set1_epi8(0x20);
  const auto load = [&](std::size_t i) {
    return _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i)), case_bit);
  };
  const auto splat = [](const Splat& s) { return _mm_load_si128(reinterpret_cast<const __m128i*>(s.bytes)); };
  for (std::size_t i = *at; i + 16 + kMinAtom - 1 <= text.size(); i += 16, *at = i) {
    const __m128i b0 = load(i), b1 = load(i + 1), b2 = load(i + 2);
    __m128i hits = _mm_setzero_si128();
    for (const auto& s : splats_) {
      const __m128i m = _mm_and_si128(_mm_cmpeq_epi8(b0, splat(s[0])), _mm_cmpeq_epi8(b1, splat(s[1])));
      hits = _mm_or_si128(hits, _mm_and_si128(m, _mm_cmpeq_epi8(b2, splat(s[2]))));
    }
    for (auto mask = static_cast<unsigned>(_mm_movemask_epi8(hits)); mask != 0; mask &= mask - 1)
      if (atom_at(text, i + static_cast<std::size_t>(__builtin_ctz(mask)))) return true;
  }
#else
  (void)text;
  (void)at;
#endif
  return false;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) bool LiteralPrefilter::scan_avx2(std::string_view text,
                                                                  std::size_t* at) const noexcept {
  // No lambdas here: a helper returning __m256i would be compiled for the
  // default target, without AVX.
  const __m256i case_bit = _mm256_set1_epi8(0x20);
  const __m256i low_bits = _mm256_set1_epi8(0x0f);
  const __m256i zero = _mm256_setzero_si256();
  __m256i low[kMinAtom], high[kMinAtom];
  for (int k = 0; k < kMinAtom; ++k) {
    low[k] = _mm256_load_si256(reinterpret_cast<const __m256i*>(nibbles_.low[k]));
    high[k] = _mm256_load_si256(reinterpret_cast<const __m256i*>(nibbles_.high[k]));
  }
  for (std::size_t i = *at; i + 32 + kMinAtom - 1 <= text.size(); i += 32, *at = i) {
    const char* p = text.data() + i;
    __m256i buckets = _mm256_set1_epi8(-1);
    for (int k = 0; k < kMinAtom; ++k) {
      const __m256i b = _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + k)), case_bit);
      const __m256i lo = _mm256_shuffle_epi8(low[k], _mm256_and_si256(b, low_bits));
      const __m256i hi = _mm256_shuffle_epi8(high[k], _mm256_and_si256(_mm256_srli_epi16(b, 4), low_bits));
      buckets = _mm256_and_si256(buckets, _mm256_and_si256(lo, hi));
    }
    auto mask = ~static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(buckets, zero)));
    for (; mask != 0; mask &= mask - 1)
      if (atom_at(text, i + static_cast<std::size_t>(__builtin_ctz(mask)))) return true;
  }
  return false;
}
#else
bool LiteralPrefilter::scan_avx2(std::string_view, std::size_t*) const noexcept { return false; }
#endif

bool LiteralPrefilter::may_match(std::string_view text) const noexcept {
  if (!active_) return true;
  std::size_t i = 0;
  if (has_avx2() && scan_avx2(text, &i)) return true;
  if (scan_sse2(text, &i)) return true;
#if defined(__SSE2__)
  // The last positions, as one more block that overlaps the ones before
  // (looking at a position twice gives the same answer).
  constexpr std::size_t kSpan = 16 + kMinAtom - 1;
  if (i + kMinAtom <= text.size() && text.size() >= kSpan) {
    std::size_t last = text.size() - kSpan;
    return scan_sse2(text, &last);
  }
#endif
  for (; i < text.size(); ++i)
    if (atom_at(text, i)) return true;
  return false;
}

}  // namespace airlock::plugins
