// broken.suffix: appends a marker on every pass, so s(s(x)) != s(x). The
// idempotence check must catch it.
#include <airlock/airlock.hpp>

#include <string>

AIRLOCK_PLUGIN(plugin) {
  plugin.info("non-idempotent-suffix", "0.0.1", "contract fixture: appends a suffix on every pass");
  plugin.text_sanitizer({.name = "broken.suffix"}, [](std::string_view text) -> std::optional<std::string> {
    return std::string(text) + " [checked]";
  });
}
