// The airlock.inert-urls text sanitizer; the rules are in inert_urls.hpp.
// It takes no settings.
#include <airlock/airlock.hpp>

#include <stdexcept>
#include <string>

#include "inert_urls.hpp"

AIRLOCK_PLUGIN(plugin) {
  plugin.info("airlock-inert-urls", "1.0.0", "makes URLs non-actionable, keeping scheme and host readable");
  for (const auto& entry : plugin.config())
    throw std::invalid_argument("[plugin.\"airlock-inert-urls\"] has an unknown key '" +
                                std::string(entry.key()) + "' (this plugin takes no settings)");
  plugin.text_sanitizer({.name = "airlock.inert-urls",
                         .description = "defangs URLs without decoding them: http -> hxxp, https -> hxxps, "
                                        "ftp -> fxp, other scheme:// -> scheme[:]//, javascript: -> javascript[:], "
                                        "host dots -> [.]"},
                        [](std::string_view text) { return airlock::plugins::inert_urls(text); });
}
