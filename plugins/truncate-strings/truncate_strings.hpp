// truncate_strings.hpp — the core of the airlock.truncate-strings sanitizer:
// caps one string leaf at a byte budget.
//
// A leaf of at most `max_bytes` bytes stays as it is. A longer one keeps its
// longest prefix of at most max_bytes - kTruncationMarker.size() bytes that
// does not end inside a UTF-8 sequence, followed by kTruncationMarker
// ("…[truncated]", 14 bytes). The output is therefore at most max_bytes long,
// and a second pass leaves it alone: idempotence falls out of the budget.
//
// "Does not end inside a UTF-8 sequence" is judged by bit patterns alone;
// nothing is decoded or validated. When the byte at the cut is a continuation
// byte (10xxxxxx) and a lead byte (110xxxxx, 1110xxxx or 11110xxx) within the
// three bytes before it announces a sequence that reaches past the cut, the
// cut moves back to that lead byte. Invalid bytes are kept like any other
// byte, and a run of stray continuation bytes is cut where it is.
//
// Truncation only ever drops a tail: it never reorders, decodes or rebuilds
// anything, so it cannot make a new destination out of a URL (a cut host is a
// prefix of the original, followed by the marker).
#ifndef AIRLOCK_PLUGINS_TRUNCATE_STRINGS_HPP
#define AIRLOCK_PLUGINS_TRUNCATE_STRINGS_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::plugins {

// Appended to every truncated leaf: U+2026 HORIZONTAL ELLIPSIS, then ASCII.
inline constexpr std::string_view kTruncationMarker = "\xE2\x80\xA6[truncated]";
inline constexpr std::size_t kDefaultMaxBytes = 16384;
// The smallest budget accepted: room for the marker and some text.
inline constexpr std::size_t kMinMaxBytes = 64;

// `text` cut to `max_bytes` as described above, or nullopt when it fits.
// Throws std::invalid_argument if max_bytes < kMinMaxBytes.
std::optional<std::string> truncate_strings(std::string_view text, std::size_t max_bytes);

}  // namespace airlock::plugins

#endif  // AIRLOCK_PLUGINS_TRUNCATE_STRINGS_HPP
