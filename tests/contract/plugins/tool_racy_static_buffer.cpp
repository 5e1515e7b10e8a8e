// broken.racy-upper: declared reentrant, but upper-cases its argument through
// one static buffer shared by every call (write, sleep, read). The
// reentrancy check must catch concurrent results that differ from the
// sequential ones.
#include <airlock/airlock.hpp>

#include <cctype>
#include <chrono>
#include <string>
#include <thread>

namespace {

char g_buffer[4096];
std::size_t g_length = 0;

}  // namespace

AIRLOCK_PLUGIN(plugin) {
  plugin.info("tool-racy-static-buffer", "0.0.1", "contract fixture: a reentrant tool with a static buffer");
  plugin.tool({.name = "broken.racy-upper",
               .input_schema = R"({"type":"object","properties":{"text":{"type":"string","maxLength":1000}},
                                   "required":["text"]})",
               .flags = AIRLOCK_TOOL_REENTRANT},
              [](const boost::json::object& args, airlock::sdk::Call&) {
                const std::string_view text = airlock::sdk::string_arg(args, "text");
                std::size_t n = 0;
                for (char c : text.substr(0, sizeof g_buffer))
                  g_buffer[n++] = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
                g_length = n;
                std::this_thread::sleep_for(std::chrono::microseconds(200));
                return airlock::sdk::Text{std::string(g_buffer, g_length)};
              });
}
