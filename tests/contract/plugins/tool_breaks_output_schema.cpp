// broken.count-words: declares an outputSchema with an integer "count" and
// returns the count as a string. The output-schema check must catch it.
#include <airlock/airlock.hpp>

#include <string>

AIRLOCK_PLUGIN(plugin) {
  plugin.info("tool-breaks-output-schema", "0.0.1", "contract fixture: results that break the outputSchema");
  plugin.tool({.name = "broken.count-words",
               .input_schema = R"({"type":"object","properties":{"text":{"type":"string"}}})",
               .output_schema = R"({"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]})",
               .flags = AIRLOCK_TOOL_REENTRANT},
              [](const boost::json::object& args, airlock::sdk::Call&) {
                const auto* text = args.if_contains("text");
                const std::size_t words = text && text->is_string() ? text->as_string().size() / 5 : 0;
                return boost::json::object{{"count", std::to_string(words)}};
              });
}
