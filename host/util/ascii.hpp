// ASCII case, as protocols define it (header names, schemes, host names):
// never the locale's, which would fold bytes no protocol folds.
#pragma once

#include <algorithm>
#include <string_view>

namespace airlock::host {

constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

constexpr bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

}  // namespace airlock::host
