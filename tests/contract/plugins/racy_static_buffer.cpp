// broken.racy-strip: strips '<' and '>' through one static buffer shared by
// every call, writing it, sleeping, then reading it back: a second thread
// overwrites the buffer in between. Sequentially it is a fine sanitizer; the
// concurrency check must catch it (and TSan reports the race).
#include <airlock/airlock.hpp>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

namespace {

char g_buffer[64 * 1024];
std::size_t g_length = 0;

}  // namespace

AIRLOCK_PLUGIN(plugin) {
  plugin.info("racy-static-buffer", "0.0.1", "contract fixture: an unsynchronized static buffer");
  plugin.text_sanitizer({.name = "broken.racy-strip"}, [](std::string_view text) -> std::optional<std::string> {
    if (text.size() > sizeof g_buffer) return std::nullopt;
    std::size_t n = 0;
    for (char c : text)
      if (c != '<' && c != '>') g_buffer[n++] = c;
    g_length = n;
    // Widens the window between write and read, as slow real work would.
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    return std::string(g_buffer, g_length);
  });
}
