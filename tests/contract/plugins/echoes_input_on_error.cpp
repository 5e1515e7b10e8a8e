// broken.echo-on-error: removes '<' and '>' from valid UTF-8, but gives up on
// anything else and hands the input back untouched, markup and all. The
// fail-closed check must catch it.
#include <airlock/airlock.hpp>

#include <string>

namespace {

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    if (n == 2 && c < 0xc2) return false;  // overlong
    i += n;
  }
  return true;
}

}  // namespace

AIRLOCK_PLUGIN(plugin) {
  plugin.info("echoes-input-on-error", "0.0.1", "contract fixture: passes malformed input through");
  plugin.text_sanitizer({.name = "broken.echo-on-error"}, [](std::string_view text) -> std::optional<std::string> {
    if (!valid_utf8(text)) return std::nullopt;  // "cannot parse it, so leave it"
    std::string out;
    for (char c : text)
      if (c != '<' && c != '>') out.push_back(c);
    return out;
  });
}
