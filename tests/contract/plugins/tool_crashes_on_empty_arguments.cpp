// broken.crash-on-empty: trusts its arguments to hold "text" and dies with
// SIGSEGV (as a read through the missing value would) when they do not. The host never sends it {} (the
// inputSchema requires "text"), but the arguments check must catch it.
#include <airlock/airlock.hpp>

#include <csignal>
#include <string>

AIRLOCK_PLUGIN(plugin) {
  plugin.info("tool-crashes-on-empty-arguments", "0.0.1", "contract fixture: a tool that crashes on {}");
  plugin.tool({.name = "broken.crash-on-empty",
               .input_schema = R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})",
               .flags = AIRLOCK_TOOL_REENTRANT},
              [](const boost::json::object& args, airlock::sdk::Call&) {
                const boost::json::value* text = args.if_contains("text");
                if (!text) std::raise(SIGSEGV);  // the crash, without undefined behaviour in the fixture
                return airlock::sdk::Text{std::string(text->as_string())};
              });
}
