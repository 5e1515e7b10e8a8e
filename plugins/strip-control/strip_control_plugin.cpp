// The airlock.strip-control text sanitizer; the logic is in strip_control.hpp.
#include <airlock/airlock.hpp>

#include "strip_control.hpp"

AIRLOCK_PLUGIN(plugin) {
  plugin.info("airlock-strip-control", "1.0.0", "strips terminal escape sequences and control characters");
  plugin.text_sanitizer({.name = "airlock.strip-control",
                         .description = "removes ANSI/VT escape sequences, C0 controls but tab and newline, "
                                        "DEL and C1 controls"},
                        [](std::string_view text) { return airlock::plugins::strip_control(text); });
}
