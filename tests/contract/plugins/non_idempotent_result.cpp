// broken.result-footer: a result sanitizer that appends a footer block to
// every result, on every pass. The idempotence check must catch it.
#include <airlock/airlock.hpp>

AIRLOCK_PLUGIN(plugin) {
  plugin.info("non-idempotent-result", "0.0.1", "contract fixture: a result sanitizer adding a block per pass");
  plugin.result_sanitizer({.name = "broken.result-footer"},
                          [](const airlock::sdk::RequestContext&, std::string_view, const boost::json::object&,
                             boost::json::object result) -> std::optional<boost::json::object> {
                            auto& content = result["content"];
                            if (!content.is_array()) content = boost::json::array{};
                            content.as_array().push_back(
                                boost::json::object{{"type", "text"}, {"text", "(sanitized)"}});
                            return result;
                          });
}
