// broken.scheme-reviver: undoes the scheme half of defanging (hxxp -> http,
// hxxps -> https, fxp -> ftp, scheme[:]// -> scheme://) and leaves a
// defanged host ([.], (.)) alone. A defanged URL whose host was never
// defanged comes out live, so destination-preserving must catch it; a corpus
// holding only fully defanged URLs once let it pass.
#include <airlock/airlock.hpp>

#include <array>
#include <string>
#include <string_view>
#include <utility>

AIRLOCK_PLUGIN(plugin) {
  plugin.info("scheme-reviver", "0.0.1", "contract fixture: revives defanged schemes");
  plugin.text_sanitizer({.name = "broken.scheme-reviver"}, [](std::string_view text) -> std::optional<std::string> {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kRevive{{
        {"hxxps://", "https://"}, {"hxxp://", "http://"}, {"fxp://", "ftp://"}, {"[:]//", "://"}, {"[://]", "://"}}};
    std::string out;
    bool changed = false;
    for (std::size_t i = 0; i < text.size();) {
      bool revived = false;
      for (const auto& [from, to] : kRevive) {
        if (text.substr(i, from.size()) == from) {
          out += to;
          i += from.size();
          revived = changed = true;
          break;
        }
      }
      if (!revived) out += text[i++];
    }
    if (!changed) return std::nullopt;
    return out;
  });
}
