// The airlock.inert-urls rules (U1-U6 in inert_urls.hpp). One forward scan
// finds the host regions and the one-byte edits of schemes (no two touch the
// same byte); a second walk writes the output. Memory stays proportional to
// the number of URLs, not of dots.
#include "inert_urls.hpp"

#include "cpu_features.hpp"

#include <cstddef>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace airlock::plugins {

namespace {

bool is_alnum(unsigned char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_scheme_char(unsigned char c) noexcept { return is_alnum(c) || c == '+' || c == '-' || c == '.'; }
bool is_authority_byte(unsigned char c) noexcept {
  if (c >= 0x80 || is_alnum(c)) return true;
  switch (c) {
    case '-': case '.': case '_': case '~': case '%': case '!': case '$': case '&': case '*':
    case '+': case ',': case ';': case '=': case ':': case '@': case '[': case ']':
      return true;
    default:
      return false;
  }
}
// A byte that can start a DNS label, or continue an IDN or percent-encoded one.
bool is_label_byte(unsigned char c) noexcept { return c >= 0x80 || is_alnum(c) || c == '-' || c == '_' || c == '%'; }
bool is_media_type_char(unsigned char c) noexcept {
  return is_alnum(c) || c == '!' || c == '#' || c == '$' || c == '&' || c == '^' || c == '_' || c == '.' ||
         c == '+' || c == '-';
}

// ASCII case-insensitive comparison with a lowercase word.
bool is_word(std::string_view s, std::string_view lower) noexcept {
  if (s.size() != lower.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c) != static_cast<unsigned char>(lower[i])) return false;
  }
  return true;
}

#if defined(__x86_64__)
// next_candidate's blocks, thirty-two positions at a time: where the first
// candidate is, or where the blocks ended (fewer than 34 bytes left).
__attribute__((target("avx2"))) std::size_t candidate_blocks_avx2(std::string_view s, std::size_t i) noexcept {
  const __m256i case_bit = _mm256_set1_epi8(0x20);
  const __m256i w = _mm256_set1_epi8('w');
  const __m256i colon = _mm256_set1_epi8(':');
  // (No lambda for the loads: a lambda would not inherit the target.)
  for (; i + 32 + 2 <= s.size(); i += 32) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.data() + i));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.data() + i + 1));
    const __m256i b2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.data() + i + 2));
    const __m256i www = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(b0, case_bit), w),
                                         _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(b1, case_bit), w),
                                                          _mm256_cmpeq_epi8(_mm256_or_si256(b2, case_bit), w)));
    const __m256i hits = _mm256_or_si256(www, _mm256_cmpeq_epi8(b0, colon));
    if (const auto mask = static_cast<unsigned>(_mm256_movemask_epi8(hits)); mask != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(mask));
  }
  return i;
}
#endif

// Where a finding can start, at or after `from`: a colon, or `www` in any
// case; npos when there is none. Ordinary text holds a w every few dozen
// bytes but hardly ever three in a row, so looking for all three at once
// (sixteen or thirty-two positions at a time) passes over it without
// stopping.
std::size_t next_candidate(std::string_view s, std::size_t from) noexcept {
  std::size_t i = from;
#if defined(__x86_64__)
  if (i <= s.size() && s.size() - i >= 64 + 2 && has_avx2()) {
    i = candidate_blocks_avx2(s, i);
    if (i + 32 + 2 <= s.size()) return i;  // found
  }
#endif
#if defined(__SSE2__)
  const __m128i case_bit = _mm_set1_epi8(0x20);
  const __m128i w = _mm_set1_epi8('w');  // 'W' | 0x20 == 'w', and nothing else folds to it
  const __m128i colon = _mm_set1_epi8(':');
  for (; i + 16 + 2 <= s.size(); i += 16) {
    const auto load = [&](std::size_t at) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + at)); };
    const __m128i b0 = load(i);
    const __m128i www = _mm_and_si128(_mm_cmpeq_epi8(_mm_or_si128(b0, case_bit), w),
                                      _mm_and_si128(_mm_cmpeq_epi8(_mm_or_si128(load(i + 1), case_bit), w),
                                                    _mm_cmpeq_epi8(_mm_or_si128(load(i + 2), case_bit), w)));
    const __m128i hits = _mm_or_si128(www, _mm_cmpeq_epi8(b0, colon));
    if (const int mask = _mm_movemask_epi8(hits); mask != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < s.size(); ++i) {
    if (s[i] == ':') return i;
    if (i + 3 <= s.size() && is_word(s.substr(i, 3), "www")) return i;
  }
  return std::string_view::npos;
}

// The length of the label separator at `i`, or 0.
std::size_t separator_at(std::string_view s, std::size_t i) noexcept {
  if (i >= s.size()) return 0;
  if (s[i] == '.') return 1;
  if (static_cast<unsigned char>(s[i]) < 0xE3) return 0;
  const std::string_view three = s.substr(i, 3);
  if (three == "\xE3\x80\x82" || three == "\xEF\xBC\x8E" || three == "\xEF\xBD\xA1") return 3;
  return 0;
}

bool is_wrapped(std::string_view s, std::size_t i, std::size_t len) noexcept {
  return i > 0 && s[i - 1] == '[' && i + len < s.size() && s[i + len] == ']';
}

// U5's test for the separator at `i`: it separates two labels (a label byte
// follows it) and is not wrapped yet. A trailing separator stays bare, so a
// `]` is never written before `(` or `[`, which Markdown would read as a link.
bool needs_wrap(std::string_view s, std::size_t i, std::size_t len) noexcept {
  return i + len < s.size() && is_label_byte(static_cast<unsigned char>(s[i + len])) && !is_wrapped(s, i, len);
}

// A one-byte edit of a scheme: U1's letters, U3's and U4's colons.
enum class EditKind : unsigned char {
  wrap_colon,  // ":" -> "[:]"
  t_to_x,      // "t" -> "x", "T" -> "X"
};
struct Edit {
  std::size_t pos;
  EditKind kind;
};

// A host region [start, end) of U5: its unwrapped separators get wrapped.
struct Region {
  std::size_t start;
  std::size_t end;
};

// What one scan of a leaf found; nothing to wrap and no edit means the leaf
// stays as it is.
struct Findings {
  std::vector<Edit> edits;      // sorted by position
  std::vector<Region> regions;  // sorted and disjoint
  std::size_t wraps = 0;        // unwrapped separators in the regions
};

class Scanner {
 public:
  explicit Scanner(std::string_view s) noexcept : s_(s) {}

  // Edits come out sorted without sorting: those of a colon lie between the
  // previous colon and it, and colons are visited in order.
  Findings run() && {
    // Only a colon or a `www` can start a finding.
    for (std::size_t i = next_candidate(s_, 0); i != std::string_view::npos; i = next_candidate(s_, i + 1)) {
      if (s_[i] == ':') {
        colon(i);
      } else if (www_host_at(i)) {
        host_region(i);
      }
    }
    return std::move(f_);
  }

 private:
  // U1-U4 for the `:` at `i`.
  void colon(std::size_t i) {
    std::size_t word = i;
    while (word > 0 && is_alnum(static_cast<unsigned char>(s_[word - 1]))) --word;
    const bool has_scheme_run = i > 0 && is_scheme_char(static_cast<unsigned char>(s_[i - 1]));
    const std::string_view w = s_.substr(word, i - word);
    std::size_t after_slashes = i + 1;
    while (after_slashes < s_.size() && (s_[after_slashes] == '/' || s_[after_slashes] == '\\')) ++after_slashes;
    const bool slashes = after_slashes > i + 1;

    if (slashes && (is_word(w, "http") || is_word(w, "https") || is_word(w, "ftp"))) {  // U1
      for (std::size_t k = word; k < i; ++k)
        if (s_[k] == 't' || s_[k] == 'T') f_.edits.push_back({k, EditKind::t_to_x});
      host_region(after_slashes);
    } else if (slashes && (is_word(w, "hxxp") || is_word(w, "hxxps") || is_word(w, "fxp"))) {  // U2
      host_region(after_slashes);
    } else if (has_scheme_run && s_.substr(i + 1, 2) == "//") {  // U3
      f_.edits.push_back({i, EditKind::wrap_colon});
      std::size_t host = i + 1;
      while (host < s_.size() && s_[host] == '/') ++host;
      host_region(host);
    } else if (is_word(w, "javascript") || is_word(w, "vbscript") || is_word(w, "mailto") ||
               (is_word(w, "data") && media_type_follows(i + 1))) {  // U4
      f_.edits.push_back({i, EditKind::wrap_colon});
    }
  }

  // `data:` is a URI when a media type ("text/"), "," or ";" follows.
  bool media_type_follows(std::size_t i) const noexcept {
    if (i < s_.size() && (s_[i] == ',' || s_[i] == ';')) return true;
    std::size_t j = i;
    while (j < s_.size() && is_media_type_char(static_cast<unsigned char>(s_[j]))) ++j;
    return j > i && j < s_.size() && s_[j] == '/';
  }

  // U6: `www`, a separator (bare or wrapped), then the start of a label.
  bool www_host_at(std::size_t i) const noexcept {
    if (!is_word(s_.substr(i, 3), "www")) return false;
    if (i > 0 && is_alnum(static_cast<unsigned char>(s_[i - 1]))) return false;
    std::size_t j = i + 3;
    if (std::size_t len = separator_at(s_, j); len != 0) {
      j += len;
    } else if (j < s_.size() && s_[j] == '[' && (len = separator_at(s_, j + 1)) != 0 && j + 1 + len < s_.size() &&
               s_[j + 1 + len] == ']') {
      j += len + 2;
    } else {
      return false;
    }
    return j < s_.size() && (is_alnum(static_cast<unsigned char>(s_[j])) || static_cast<unsigned char>(s_[j]) >= 0x80);
  }

  // U5 from `start` to the end of the run of authority bytes. Regions start
  // in increasing order and a region's end depends only on where it starts,
  // so one starting inside the last one scanned ends where it ended: skip it.
  void host_region(std::size_t start) {
    if (start < scanned_to_) return;
    std::size_t i = start;
    while (i < s_.size() && is_authority_byte(static_cast<unsigned char>(s_[i]))) {
      const std::size_t len = separator_at(s_, i);
      if (len == 0) {
        ++i;
        continue;
      }
      if (needs_wrap(s_, i, len)) ++f_.wraps;
      i += len;
    }
    if (i > start) f_.regions.push_back({start, i});
    scanned_to_ = i;
  }

  std::string_view s_;
  Findings f_;
  std::size_t scanned_to_ = 0;  // end of the last host region scanned
};

}  // namespace

std::optional<std::string> inert_urls(std::string_view text) {
  const Findings f = Scanner(text).run();
  if (f.wraps == 0 && f.edits.empty()) return std::nullopt;

  std::string out;
  out.reserve(text.size() + 2 * (f.wraps + f.edits.size()));
  std::size_t edit = 0;
  std::size_t region = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    while (region < f.regions.size() && f.regions[region].end <= i) ++region;
    const bool inside = region < f.regions.size() && f.regions[region].start <= i;
    std::size_t stop = inside ? f.regions[region].end
                              : region < f.regions.size() ? f.regions[region].start : text.size();
    if (edit < f.edits.size() && f.edits[edit].pos < stop) stop = f.edits[edit].pos;

    if (inside) {
      // Separators are stepped over whole, exactly as the scan stepped (an
      // edit never falls on a separator's bytes), and wrapped as it counted.
      std::size_t copied = i;
      while (i < stop) {
        const std::size_t len = separator_at(text, i);
        if (len == 0) {
          ++i;
          continue;
        }
        if (needs_wrap(text, i, len)) {
          out.append(text.substr(copied, i - copied));
          out.push_back('[');
          out.append(text.substr(i, len));
          out.push_back(']');
          copied = i + len;
        }
        i += len;
      }
      out.append(text.substr(copied, i - copied));
    } else {
      out.append(text.substr(i, stop - i));
      i = stop;
    }

    if (edit < f.edits.size() && f.edits[edit].pos == i) {
      if (f.edits[edit].kind == EditKind::wrap_colon) {
        out.append("[:]");
      } else {
        out.push_back(text[i] == 'T' ? 'X' : 'x');
      }
      ++edit;
      ++i;
    }
  }
  return out;
}

}  // namespace airlock::plugins
