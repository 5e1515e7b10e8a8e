// Serializing Boost.JSON values onto the end of a string, exactly as
// boost::json::serializer writes them, faster:
// - strings are scanned sixteen bytes at a time for what needs an escape
//   and copied in runs; the serializer tests and copies one byte at a time,
//   which was a quarter of a 256 KiB call's time;
// - the text goes straight onto `out`: serialize() grows its result with
//   resize(), zero-filling every byte before writing it, and reading the
//   serializer through a buffer copies every byte twice;
// - appending lets a caller put the JSON-RPC envelope around a result
//   without copying the result again.
// Doubles, and trees nested deeper than kMaxDirectDepth (a plugin's result
// may be), are written by the serializer itself.
#pragma once

#include <boost/json/serializer.hpp>
#include <boost/json/value.hpp>

#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace airlock::host {

namespace detail {

#if defined(__x86_64__)
// Thirty-two bytes at a time, where the CPU has AVX2 (checked once): at
// 4 KiB this scan was a twentieth of a call's time with sixteen. Returns
// where it stopped: at the byte found, or with fewer than 32 left.
__attribute__((target("avx2"))) inline std::size_t next_json_escape_avx2(std::string_view text,
                                                                         std::size_t i) noexcept {
  const __m256i low = _mm256_set1_epi8(0x1f);
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  for (; i + 32 <= text.size(); i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + i));
    const __m256i control = _mm256_cmpeq_epi8(_mm256_min_epu8(v, low), v);  // v <= 0x1f, unsigned
    const __m256i hits =
        _mm256_or_si256(control, _mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, backslash)));
    if (const auto mask = static_cast<unsigned>(_mm256_movemask_epi8(hits)); mask != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(mask));
  }
  return i;
}

inline bool has_avx2() noexcept {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}
#endif

}  // namespace detail

// The index of the first byte of `text` at or after `from` that a JSON
// string cannot hold as it is ('"', '\\' or a byte below 0x20), or its size.
// Sixteen or thirty-two bytes at a time: record text rarely holds one.
inline std::size_t next_json_escape(std::string_view text, std::size_t from) noexcept {
  std::size_t i = from;
#if defined(__x86_64__)
  if (text.size() - i >= 64 && detail::has_avx2()) {
    i = detail::next_json_escape_avx2(text, i);
    if (i + 32 <= text.size()) return i;  // found one
  }
#endif
#if defined(__SSE2__)
  for (; i + 16 <= text.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);  // v <= 0x1f, unsigned
    const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    if (const int mask = _mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(quote, backslash))); mask != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == '"' || c == '\\') return i;
  }
  return text.size();
}

// `text` inside a JSON string's quotes. Escapes '"', '\\' and the
// control characters below 0x20 (\b \t \n \f \r by name, the rest as
// \u00XX); every other byte, UTF-8 or not, is copied as it is.
inline void append_json_string_body(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  // A long text makes its room at once, with a little over for escapes and
  // what follows it: grown by appends, a buffer ends up to twice its size,
  // and a 256 KiB answer would hold 512 KiB until it is written.
  if (text.size() >= 4096) out.reserve(out.size() + text.size() + text.size() / 32 + 512);
  for (std::size_t plain = 0; plain < text.size();) {
    const std::size_t at = next_json_escape(text, plain);
    out.append(text.data() + plain, at - plain);
    if (at == text.size()) break;
    const auto c = static_cast<unsigned char>(text[at]);
    plain = at + 1;
    out.push_back('\\');
    switch (c) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '\b': out.push_back('b'); break;
      case '\t': out.push_back('t'); break;
      case '\n': out.push_back('n'); break;
      case '\f': out.push_back('f'); break;
      case '\r': out.push_back('r'); break;
      default:
        out.append("u00");
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xf]);
    }
  }
}

// `text` as a JSON string, quotes included.
inline void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  append_json_string_body(out, text);
  out.push_back('"');
}

// An integer in decimal, as the serializer writes int64 and uint64.
template <class Integer>
void append_json_integer(std::string& out, Integer value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

// Any Boost.JSON value the serializer takes, through the serializer.
template <class T>
void append_json_serialized(std::string& out, const T& value) {
  boost::json::serializer sr;
  sr.reset(&value);
  char buffer[16 * 1024];
  while (!sr.done()) out.append(sr.read(buffer, sizeof buffer));
}

namespace detail {

// Beyond this depth the serializer (which keeps its own stack) writes the
// rest, so no document can run this recursion deep.
constexpr int kMaxDirectDepth = 64;

inline void append_json_tree(std::string& out, const boost::json::value& value, int depth);

inline void append_json_tree(std::string& out, const boost::json::array& array, int depth) {
  out.push_back('[');
  bool first = true;
  for (const boost::json::value& element : array) {
    if (!first) out.push_back(',');
    first = false;
    append_json_tree(out, element, depth + 1);
  }
  out.push_back(']');
}

inline void append_json_tree(std::string& out, const boost::json::object& object, int depth) {
  out.push_back('{');
  bool first = true;
  for (const auto& member : object) {
    if (!first) out.push_back(',');
    first = false;
    const auto key = member.key();
    append_json_string(out, std::string_view(key.data(), key.size()));
    out.push_back(':');
    append_json_tree(out, member.value(), depth + 1);
  }
  out.push_back('}');
}

inline void append_json_tree(std::string& out, const boost::json::value& value, int depth) {
  if (depth > kMaxDirectDepth) return append_json_serialized(out, value);
  switch (value.kind()) {
    case boost::json::kind::object: return append_json_tree(out, value.get_object(), depth);
    case boost::json::kind::array: return append_json_tree(out, value.get_array(), depth);
    case boost::json::kind::string: {
      const boost::json::string& text = value.get_string();
      return append_json_string(out, std::string_view(text.data(), text.size()));
    }
    case boost::json::kind::int64: return append_json_integer(out, value.get_int64());
    case boost::json::kind::uint64: return append_json_integer(out, value.get_uint64());
    case boost::json::kind::bool_: out.append(value.get_bool() ? "true" : "false"); return;
    case boost::json::kind::null: out.append("null"); return;
    case boost::json::kind::double_: return append_json_serialized(out, value);
  }
}

}  // namespace detail

template <class T>
void append_json(std::string& out, const T& value) {
  if constexpr (std::is_same_v<T, boost::json::value> || std::is_same_v<T, boost::json::object> ||
                std::is_same_v<T, boost::json::array>) {
    detail::append_json_tree(out, value, 0);
  } else if constexpr (std::is_same_v<T, boost::json::string>) {
    append_json_string(out, std::string_view(value.data(), value.size()));
  } else {
    append_json_serialized(out, value);
  }
}

template <class T>
std::string to_json(const T& value) {
  std::string out;
  append_json(out, value);
  return out;
}

}  // namespace airlock::host
