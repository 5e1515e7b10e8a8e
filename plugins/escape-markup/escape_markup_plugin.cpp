// The airlock.escape-markup text sanitizer; the rules are in escape_markup.hpp.
// It takes no settings.
#include <airlock/airlock.hpp>

#include <stdexcept>
#include <string>

#include "escape_markup.hpp"

AIRLOCK_PLUGIN(plugin) {
  plugin.info("airlock-escape-markup", "1.0.0", "escapes Markdown and HTML link, image and tag syntax");
  for (const auto& entry : plugin.config())
    throw std::invalid_argument("[plugin.\"airlock-escape-markup\"] has an unknown key '" +
                                std::string(entry.key()) + "' (this plugin takes no settings)");
  plugin.text_sanitizer({.name = "airlock.escape-markup",
                         .description = "backslash-escapes [ and ] and turns < and > into &lt; and &gt;, so no "
                                        "Markdown or HTML link, image or tag survives; URLs stay byte for byte"},
                        [](std::string_view text) { return airlock::plugins::escape_markup(text); });
}
