// The airlock.truncate-strings cut; the rules are in truncate_strings.hpp.
#include "truncate_strings.hpp"

#include <stdexcept>

namespace airlock::plugins {

namespace {

bool is_continuation(unsigned char b) noexcept { return (b & 0xC0) == 0x80; }

// The length a lead byte announces, or 0 for a byte that leads nothing.
std::size_t announced_length(unsigned char b) noexcept {
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return 3;
  if ((b & 0xF8) == 0xF0) return 4;
  return 0;
}

// `cut`, or the lead byte before it whose sequence `cut` would split.
std::size_t utf8_safe_cut(std::string_view text, std::size_t cut) noexcept {
  std::size_t lead = cut;
  while (lead > 0 && cut - lead < 3 && is_continuation(static_cast<unsigned char>(text[lead]))) --lead;
  if (lead < cut && announced_length(static_cast<unsigned char>(text[lead])) > cut - lead) return lead;
  return cut;
}

}  // namespace

std::optional<std::string> truncate_strings(std::string_view text, std::size_t max_bytes) {
  if (max_bytes < kMinMaxBytes)
    throw std::invalid_argument("max_bytes " + std::to_string(max_bytes) + " is less than " +
                                std::to_string(kMinMaxBytes));
  if (text.size() <= max_bytes) return std::nullopt;
  const std::size_t cut = utf8_safe_cut(text, max_bytes - kTruncationMarker.size());
  std::string out;
  out.reserve(cut + kTruncationMarker.size());
  out.append(text.substr(0, cut));
  out.append(kTruncationMarker);
  return out;
}

}  // namespace airlock::plugins
