// example.collapse-spaces: a vendor's text sanitizer, the thing under test in
// this example. It collapses every run of spaces into one space: lexical,
// deterministic, idempotent, and it never touches a URL (URLs hold no
// spaces), so it keeps the whole contract.
#include <airlock/airlock.hpp>

#include <string>

AIRLOCK_PLUGIN(plugin) {
  plugin.info("example-collapse-spaces", "1.0.0", "collapses runs of spaces");
  plugin.text_sanitizer({.name = "example.collapse-spaces", .description = "collapses every run of spaces into one"},
                        [](std::string_view text) -> std::optional<std::string> {
                          if (text.find("  ") == std::string_view::npos) return std::nullopt;
                          std::string out;
                          out.reserve(text.size());
                          for (char c : text)
                            if (c != ' ' || out.empty() || out.back() != ' ') out.push_back(c);
                          return out;
                        });
}
