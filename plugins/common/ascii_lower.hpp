// ascii_lower: one byte in lower case, ASCII letters only. Tool output is not
// guaranteed to be UTF-8, and the locale's tolower would fold bytes above
// 0x7F differently on every machine.
#ifndef AIRLOCK_PLUGINS_ASCII_LOWER_HPP
#define AIRLOCK_PLUGINS_ASCII_LOWER_HPP

namespace airlock::plugins {

constexpr unsigned char ascii_lower(unsigned char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c - 'A' + 'a') : c;
}

constexpr char ascii_lower(char c) noexcept {
  return static_cast<char>(ascii_lower(static_cast<unsigned char>(c)));
}

}  // namespace airlock::plugins

#endif
