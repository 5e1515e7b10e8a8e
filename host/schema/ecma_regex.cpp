// Rewrites JSON Schema's regular expressions (ECMA-262) into RE2 syntax.
#include "schema/ecma_regex.hpp"

#include <fmt/format.h>

#include <cctype>

namespace airlock::host {
namespace {

// ECMA-262's \s: what RE2's \s ([\t\n\f\r ]) lacks is \v and Unicode's spaces.
constexpr std::string_view kEcmaSpace =
    "\\t\\n\\v\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}";

bool is_hex(char ch) { return std::isxdigit(static_cast<unsigned char>(ch)) != 0; }

}  // namespace

std::optional<std::string> ecma_to_re2(std::string_view p) {
  std::string out;
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char ch = p[i];
    if (ch == '\\') {
      if (i + 1 == p.size()) return std::nullopt;
      const char e = p[++i];
      if (e == 's') {
        out += in_class ? std::string(kEcmaSpace) : fmt::format("[{}]", kEcmaSpace);
      } else if (e == 'S') {
        if (in_class) return std::nullopt;  // RE2 cannot negate a set inside a class
        out += fmt::format("[^{}]", kEcmaSpace);
      } else if (e == 'u' && i + 4 < p.size() && is_hex(p[i + 1]) && is_hex(p[i + 2]) && is_hex(p[i + 3]) &&
                 is_hex(p[i + 4])) {
        out += fmt::format("\\x{{{}}}", p.substr(i + 1, 4));
        i += 4;
      } else if (e == 'u' && i + 1 < p.size() && p[i + 1] == '{') {
        const std::size_t close = p.find('}', i);
        if (close == std::string_view::npos) return std::nullopt;
        out += fmt::format("\\x{}", p.substr(i + 1, close - i));
        i = close;
      } else if (e == 'c' && i + 1 < p.size() && std::isalpha(static_cast<unsigned char>(p[i + 1]))) {
        out += fmt::format("\\x{{{:x}}}", p[i + 1] % 32);
        ++i;
      } else if (e == 'b' && in_class) {
        out += "\\x{8}";  // backspace inside a class
      } else if (std::string_view("dDwWbBtnvfr0xpP123456789").find(e) != std::string_view::npos ||
                 std::string_view("^$\\.*+?()[]{}|/-").find(e) != std::string_view::npos) {
        out += '\\';
        out += e;
      } else {
        return std::nullopt;
      }
      continue;
    }
    if (in_class) {
      if (ch == ']') in_class = false;
      out += ch;
      continue;
    }
    if (ch == '[') {
      in_class = true;
      out += ch;
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      // "[]" matches nothing and "[^]" anything in ECMA-262; RE2 reads "]" as a member.
      if (i + 1 < p.size() && p[i + 1] == ']') return std::nullopt;
    } else if (ch == '.') {
      out += "[^\\n\\r\\x{2028}\\x{2029}]";  // ECMA-262's "." stops at every line terminator
    } else {
      out += ch;
    }
  }
  if (in_class) return std::nullopt;
  return out;
}

}  // namespace airlock::host
