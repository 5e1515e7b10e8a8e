// broken.seen-counter: strips '<' and '>', but counts how often it has seen
// each text and, from the third time on, "knows" the text and passes it
// through unchanged (a cache keyed on the input, gone wrong). Safe under
// threads (a mutex), deterministic on first sight; the no-side-effects check
// must catch that the output depends on how often a value was seen.
#include <airlock/airlock.hpp>

#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

namespace {

std::mutex g_mutex;  // guards g_seen
std::unordered_map<std::size_t, int> g_seen;

}  // namespace

AIRLOCK_PLUGIN(plugin) {
  plugin.info("counts-calls", "0.0.1", "contract fixture: output depends on how often a value was seen");
  plugin.text_sanitizer({.name = "broken.seen-counter"}, [](std::string_view text) -> std::optional<std::string> {
    int seen;
    {
      std::lock_guard lock(g_mutex);
      seen = ++g_seen[std::hash<std::string_view>{}(text)];
    }
    if (seen > 2) return std::nullopt;
    std::string out;
    for (char c : text)
      if (c != '<' && c != '>') out.push_back(c);
    return out;
  });
}
