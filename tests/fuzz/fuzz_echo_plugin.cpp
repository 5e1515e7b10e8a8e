// fuzz_echo.so: the fixture plugin of the dispatch fuzz targets. Tool
// fuzz.echo hands its arguments back (as text, and as structuredContent
// when they hold "structured"), so whatever a message carries in reaches the
// result pipeline on the way out; fuzz.region takes an x-mcp-header argument
// (2026-07-28 Mcp-Param-Region); text sanitizer fuzz.strip-control is
// plugins/strip-control's logic, so the chain runs real sanitizer code.
#include <airlock/airlock.hpp>

#include <boost/json/serialize.hpp>

#include "strip_control.hpp"

AIRLOCK_PLUGIN(plugin) {
  plugin.info("fuzz-echo", "1.0.0", "echoes for the fuzz targets");
  plugin.tool({.name = "fuzz.echo",
               .description = "Returns its arguments.",
               .input_schema = R"({"type":"object"})",
               .flags = AIRLOCK_TOOL_REENTRANT},
              [](const boost::json::object& args, airlock::sdk::Call& call) {
                call.add_text(boost::json::serialize(args));
                if (const auto* structured = args.if_contains("structured"); structured && structured->is_object())
                  call.set_structured(structured->get_object());
              });
  plugin.tool({.name = "fuzz.region",
               .description = "Returns its region.",
               .input_schema = R"({"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},)"
                               R"("n":{"type":"integer","x-mcp-header":"N"}},"required":["region"]})",
               .flags = AIRLOCK_TOOL_REENTRANT},
              [](const boost::json::object& args, airlock::sdk::Call&) {
                return airlock::sdk::Text{std::string(airlock::sdk::string_arg(args, "region"))};
              });
  plugin.text_sanitizer({.name = "fuzz.strip-control", .description = "plugins/strip-control's logic"},
                        [](std::string_view text) { return airlock::plugins::strip_control(text); });
}
