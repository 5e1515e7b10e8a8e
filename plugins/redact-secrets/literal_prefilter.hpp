// literal_prefilter.hpp — says cheaply that no pattern can match a text, so
// that airlock.redact-secrets skips the RE2 search of a leaf holding nothing
// that looks like a secret, which is nearly every leaf.
//
// RE2's FilteredRE2 reads each pattern and derives the literal strings (its
// "atoms", lowercased) that every match must contain: a match of the AWS key
// id pattern holds "akia" or "asia" in some case, a JWT holds "eyj". When no
// atom occurs in a text, in any case, no pattern matches it (FilteredRE2's
// documented guarantee), and the redactor answers "unchanged" without
// searching. When one does, the whole text is searched as before: the filter
// only ever skips a search, so what is redacted never changes.
//
// Looking for the atoms is one pass over the text, and only a position where
// some atom's first three bytes (folded to one case) occur is checked byte
// by byte. Where the CPU has AVX2 the pass takes 32 positions at a time and
// costs the same whatever the number of atoms: each atom's prefix is put
// in one of eight buckets, and two 16-entry tables per prefix byte say, for
// a byte's low and for its high four bits, which buckets have a prefix with
// that half there (one shuffle looks up 32 bytes). A position is a
// candidate when some bucket's bit survives all six lookups; buckets shared
// by several prefixes can only add candidates, which the check rules out.
// Without AVX2 (and for the last bytes) every prefix is compared at each
// position, 16 at a time. Either way, on a 256 KiB leaf that is several
// times faster than RE2's DFA, which steps one byte at a time through the
// alternation of every pattern.
//
// The filter stands aside (active() is false: every text may match) when it
// cannot vouch for its answer:
// - a pattern needs no literal at all (`[0-9]{16}`), or only a literal
//   shorter than kMinAtom bytes, which FilteredRE2 then does not require;
// - an atom holds a byte outside ASCII: Latin-1 case folding is RE2's to
//   define, and a byte compared with the wrong fold would skip a secret.
#ifndef AIRLOCK_PLUGINS_LITERAL_PREFILTER_HPP
#define AIRLOCK_PLUGINS_LITERAL_PREFILTER_HPP

#include <re2/re2.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace airlock::plugins {

class LiteralPrefilter {
 public:
  // Atoms shorter than this are not required by FilteredRE2: a pattern whose
  // only literals are shorter leaves the filter inactive. It is also the
  // length of the prefix the scan compares.
  static constexpr int kMinAtom = 3;

  // `patterns` are RE2 sources that compile with `options` (the redactor
  // has checked them). With any encoding but Latin-1 the filter stays
  // inactive: UTF-8 atoms are folded by Unicode's rules, not ASCII's.
  LiteralPrefilter(const std::vector<std::string_view>& patterns, const re2::RE2::Options& options);

  // True when the filter can rule texts out.
  bool active() const noexcept { return active_; }
  // The atoms, lowercased, in FilteredRE2's order (for tests and logs).
  const std::vector<std::string>& atoms() const noexcept { return atoms_; }

  // False only when no pattern can match anywhere in `text`. Any thread.
  bool may_match(std::string_view text) const noexcept;

 private:
  // True when an atom starts at text[at] (in any ASCII case).
  bool atom_at(std::string_view text, std::size_t at) const noexcept;
  // Look at the positions from *at on, a block at a time, while a whole
  // block and the two bytes after it fit; true when an atom starts at one.
  // *at is left at the first position not looked at.
  bool scan_sse2(std::string_view text, std::size_t* at) const noexcept;
  bool scan_avx2(std::string_view text, std::size_t* at) const noexcept;

  // A byte 16 times over, for the SSE2 pass's comparison of 16 positions.
  struct alignas(16) Splat {
    std::uint8_t bytes[16];
  };
  // The atoms that start with one prefix of folded bytes: atoms_[begin, end).
  struct Prefix {
    std::array<std::uint8_t, kMinAtom> bytes;
    std::uint32_t begin, end;
  };

  bool active_ = false;
  std::vector<std::string> atoms_;  // sorted by their folded prefixes
  // The distinct first kMinAtom bytes of the atoms, folded with | 0x20: that
  // maps both cases of a letter to one byte and never two equal bytes
  // apart, so it can only add candidates, never lose one.
  std::vector<Prefix> prefixes_;
  std::array<bool, 256> starts_{};  // the folded first bytes of prefixes_
  std::vector<std::array<Splat, kMinAtom>> splats_;  // prefixes_[i]'s bytes
  // For the AVX2 pass, per prefix byte k: the buckets (bit i % 8 for
  // prefixes_[i]) whose prefixes hold a byte with low (high) four bits n at
  // k, at [k][n] and again at [k][16 + n], one table per 128-bit lane.
  struct alignas(32) NibbleBuckets {
    std::uint8_t low[kMinAtom][32];
    std::uint8_t high[kMinAtom][32];
  };
  NibbleBuckets nibbles_{};
};

}  // namespace airlock::plugins

#endif  // AIRLOCK_PLUGINS_LITERAL_PREFILTER_HPP
