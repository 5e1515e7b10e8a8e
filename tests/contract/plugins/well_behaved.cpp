// A plugin that keeps the whole contract with what airlock's first-party
// plugins do not have: a result sanitizer, and a reentrant, cancellable tool
// with an outputSchema. Every check must pass on it.
#include <airlock/airlock.hpp>

#include <chrono>
#include <thread>

AIRLOCK_PLUGIN(plugin) {
  plugin.info("well-behaved", "1.0.0", "contract fixture: keeps the contract");
  // Drops the result's own _meta.requestTrace: a structural, idempotent edit.
  plugin.result_sanitizer({.name = "fixture.drop-trace"},
                          [](const airlock::sdk::RequestContext&, std::string_view, const boost::json::object&,
                             boost::json::object result) -> std::optional<boost::json::object> {
                            auto* meta = result.if_contains("_meta");
                            if (!meta || !meta->is_object() || !meta->as_object().contains("requestTrace"))
                              return std::nullopt;
                            meta->as_object().erase("requestTrace");
                            return result;
                          });
  plugin.tool({.name = "fixture.count",
               .input_schema = R"({"type":"object","properties":{"text":{"type":"string"},
                                   "work_ms":{"type":"integer","minimum":0,"maximum":100}}})",
               .output_schema = R"({"type":"object","properties":{"length":{"type":"integer"}},"required":["length"]})",
               .annotations = R"({"readOnlyHint":true,"airlock/deterministic":true})",
               .flags = AIRLOCK_TOOL_REENTRANT | AIRLOCK_TOOL_CANCELLABLE},
              [](const boost::json::object& args, airlock::sdk::Call& call) {
                // Simulated work that polls its cancellation every millisecond.
                const auto* work = args.if_contains("work_ms");
                const auto ms = work && work->is_int64() ? work->as_int64() : 60;
                for (std::int64_t i = 0; i < ms; ++i) {
                  call.throw_if_cancelled();
                  std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
                const auto* text = args.if_contains("text");
                const std::int64_t length = text && text->is_string() ? static_cast<std::int64_t>(text->as_string().size()) : 0;
                return boost::json::object{{"length", length}};
              });
}
