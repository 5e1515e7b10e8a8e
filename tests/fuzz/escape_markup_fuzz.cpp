// escape_markup_fuzz — airlock.escape-markup (plugins/escape-markup) on any
// bytes: the sanitizer contract of sanitizer_contract.hpp, and that no `<`,
// `>` or unescaped bracket is left in the output.
#include "escape_markup.hpp"
#include "sanitizer_contract.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  airlock::fuzz::check_sanitizer_contract(in, [](std::string_view text) { return airlock::plugins::escape_markup(text); });
  const auto out = airlock::plugins::escape_markup(in);
  const std::string_view text = out ? std::string_view(*out) : in;
  if (text.find_first_of("<>") != std::string_view::npos) airlock::fuzz::broken("an angle bracket survived", in, text);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '[' && text[i] != ']') continue;
    std::size_t backslashes = 0;
    while (backslashes < i && text[i - 1 - backslashes] == '\\') ++backslashes;
    if (backslashes % 2 == 0) airlock::fuzz::broken("a live bracket survived", in, text);
  }
  return 0;
}
