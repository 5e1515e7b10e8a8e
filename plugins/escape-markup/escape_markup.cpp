// The airlock.escape-markup rules; they are listed in escape_markup.hpp.
#include "escape_markup.hpp"

#include "find_any_of.hpp"

#include <cstddef>

namespace airlock::plugins {

namespace {

// Whether the bracket at `i` is escaped already: an odd run of backslashes
// stands before it. Backslashes are copied as they are, so the run in the
// text is the run in the output.
bool escaped(std::string_view text, std::size_t i) noexcept {
  std::size_t run = 0;
  while (run < i && text[i - run - 1] == '\\') ++run;
  return run % 2 == 1;
}

}  // namespace

std::optional<std::string> escape_markup(std::string_view text) {
  // From one byte that needs escaping to the next, sixteen at a time; the
  // text between goes to the output in one piece. Nothing is allocated
  // until something must change.
  std::optional<std::string> out;
  std::size_t copied = 0;  // text[0, copied) is in *out
  for (std::size_t i = find_any_of<'<', '>', '[', ']'>(text, 0); i != std::string_view::npos;
       i = find_any_of<'<', '>', '[', ']'>(text, i + 1)) {
    const char c = text[i];
    if ((c == '[' || c == ']') && escaped(text, i)) continue;
    if (!out) out.emplace().reserve(text.size() + text.size() / 8 + 8);
    out->append(text.substr(copied, i - copied));
    if (c == '<') {
      out->append("&lt;");
    } else if (c == '>') {
      out->append("&gt;");
    } else {
      out->push_back('\\');
      out->push_back(c);
    }
    copied = i + 1;
  }
  if (out) out->append(text.substr(copied));
  return out;
}

}  // namespace airlock::plugins
