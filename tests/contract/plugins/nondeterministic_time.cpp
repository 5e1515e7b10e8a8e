// broken.timestamp: stamps each text with the second it was sanitized in,
// replacing an earlier stamp (so it is idempotent within one second). The
// output depends on the clock: the determinism check must catch it.
#include <airlock/airlock.hpp>

#include <ctime>
#include <string>

AIRLOCK_PLUGIN(plugin) {
  plugin.info("nondeterministic-time", "0.0.1", "contract fixture: output depends on the clock");
  plugin.text_sanitizer({.name = "broken.timestamp"}, [](std::string_view text) -> std::optional<std::string> {
    constexpr std::string_view kStamp = "\n[scanned at ";
    std::string out(text.substr(0, text.rfind(kStamp)));
    return out + std::string(kStamp) + std::to_string(std::time(nullptr)) + "]";
  });
}
