// broken.random-escape: escapes '<' as one of two spellings, picked by
// rand(). Idempotent (no '<' survives), but the determinism check must catch
// that the same input gives different outputs.
#include <airlock/airlock.hpp>

#include <cstdlib>
#include <string>

AIRLOCK_PLUGIN(plugin) {
  plugin.info("nondeterministic-rand", "0.0.1", "contract fixture: output depends on rand()");
  plugin.text_sanitizer({.name = "broken.random-escape"}, [](std::string_view text) -> std::optional<std::string> {
    std::string out;
    for (char c : text) {
      if (c == '<') {
        out += std::rand() % 2 ? "&lt;" : "&#60;";
      } else {
        out.push_back(c);
      }
    }
    return out;
  });
}
