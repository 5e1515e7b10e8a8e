// example.echo: returns its `text` argument as one text content block.
#include <airlock/airlock.hpp>

#include <string>

AIRLOCK_PLUGIN(plugin) {
  plugin.info("example-echo", "1.0.0", "an example C++ tool pack");
  plugin.tool(
      {.name = "example.echo",
       .title = "Echo",
       .description = "Returns the given text unchanged, as text content.",
       .input_schema = R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})",
       .annotations = R"({"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false})",
       .flags = AIRLOCK_TOOL_REENTRANT},
      // Runs on any worker thread, several at once; it touches no shared state.
      [](const boost::json::object& args, airlock::sdk::Call&) {
        return airlock::sdk::Text{std::string(airlock::sdk::string_arg(args, "text"))};
      });
}
