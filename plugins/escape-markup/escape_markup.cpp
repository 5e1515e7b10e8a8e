// The airlock.escape-markup rules; they are listed in escape_markup.hpp.
#include "escape_markup.hpp"

#include "find_any_of.hpp"

#include <cstddef>

namespace airlock::plugins {

namespace {

// Index of the first byte that needs escaping, or npos: an angle bracket,
// or a square one after an even run of backslashes (an odd run escapes it).
std::size_t first_to_escape(std::string_view text) noexcept {
  for (std::size_t i = find_any_of<'<', '>', '[', ']'>(text, 0); i != std::string_view::npos;
       i = find_any_of<'<', '>', '[', ']'>(text, i + 1)) {
    if (text[i] == '<' || text[i] == '>') return i;
    std::size_t run = 0;
    while (run < i && text[i - run - 1] == '\\') ++run;
    if (run % 2 == 0) return i;
  }
  return std::string_view::npos;
}

}  // namespace

std::optional<std::string> escape_markup(std::string_view text) {
  std::size_t i = first_to_escape(text);
  if (i == std::string_view::npos) return std::nullopt;

  std::string out;
  out.reserve(text.size() + text.size() / 8 + 8);
  out.append(text.substr(0, i));
  // The byte before `i` is not a backslash unless first_to_escape stopped at
  // an angle bracket; recount the run from the output so both cases agree.
  std::size_t run = 0;
  for (std::size_t j = out.size(); j > 0 && out[j - 1] == '\\'; --j) ++run;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out.append("&lt;");
    } else if (c == '>') {
      out.append("&gt;");
    } else if (c == '[' || c == ']') {
      if (run % 2 == 0) out.push_back('\\');
      out.push_back(c);
    } else {
      out.push_back(c);
    }
    run = c == '\\' ? run + 1 : 0;
  }
  return out;
}

}  // namespace airlock::plugins
