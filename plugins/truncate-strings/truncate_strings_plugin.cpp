// The airlock.truncate-strings text sanitizer; the logic is in
// truncate_strings.hpp. Settings, all optional:
//
//   [plugin."airlock-truncate-strings"]
//   max_bytes = 16384   # per string leaf, at least 64
#include <airlock/airlock.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "truncate_strings.hpp"

namespace {

constexpr std::string_view kTable = "[plugin.\"airlock-truncate-strings\"]";

[[noreturn]] void refuse(const std::string& what) { throw std::invalid_argument(std::string(kTable) + " " + what); }

std::size_t max_bytes_from(const boost::json::object& config) {
  std::size_t max_bytes = airlock::plugins::kDefaultMaxBytes;
  for (const auto& [key, value] : config) {
    if (key != "max_bytes") refuse("has an unknown key '" + std::string(key) + "'");
    // TOML integers arrive as int64; anything else (a float, a string) is refused.
    if (!value.is_int64() && !value.is_uint64()) refuse("max_bytes must be an integer");
    if (value.is_int64() && value.get_int64() < std::int64_t{airlock::plugins::kMinMaxBytes})
      refuse("max_bytes " + std::to_string(value.get_int64()) + " is less than " +
             std::to_string(airlock::plugins::kMinMaxBytes));
    const std::uint64_t n = value.is_int64() ? static_cast<std::uint64_t>(value.get_int64()) : value.get_uint64();
    if (n > std::numeric_limits<std::size_t>::max()) refuse("max_bytes is too large");
    max_bytes = static_cast<std::size_t>(n);
  }
  return max_bytes;
}

}  // namespace

AIRLOCK_PLUGIN(plugin) {
  plugin.info("airlock-truncate-strings", "1.0.0", "caps each string leaf at a byte budget");
  const std::size_t max_bytes = max_bytes_from(plugin.config());
  plugin.text_sanitizer({.name = "airlock.truncate-strings",
                         .description = "cuts a string leaf longer than max_bytes (default 16384) at a UTF-8 "
                                        "boundary and appends \xE2\x80\xA6[truncated]"},
                        [max_bytes](std::string_view text) {
                          return airlock::plugins::truncate_strings(text, max_bytes);
                        });
}
