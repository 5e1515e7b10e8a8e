// broken.url-normalizer: "normalizes" URLs by percent-decoding them, the
// laundering of shared/seeds/002: https%3A%2F%2Fattacker.example in a
// redirect parameter comes out as a live https://attacker.example. The
// destination-preserving check must catch it.
#include <airlock/airlock.hpp>

#include <string>

namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

AIRLOCK_PLUGIN(plugin) {
  plugin.info("percent-decoding-normalizer", "0.0.1", "contract fixture: decodes percent-encoding");
  plugin.text_sanitizer({.name = "broken.url-normalizer"}, [](std::string_view text) -> std::optional<std::string> {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
        out.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
        i += 2;
      } else {
        out.push_back(text[i]);
      }
    }
    return out;
  });
}
