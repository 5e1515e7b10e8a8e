// broken.deaf-wait: declared cancellable, but works for two seconds
// without ever polling its cancellation. The cancellation check must catch
// that it does not return soon after being cancelled.
#include <airlock/airlock.hpp>

#include <chrono>
#include <thread>

AIRLOCK_PLUGIN(plugin) {
  plugin.info("tool-ignores-cancel", "0.0.1", "contract fixture: a cancellable tool that never polls");
  plugin.tool({.name = "broken.deaf-wait", .flags = AIRLOCK_TOOL_CANCELLABLE},
              [](const boost::json::object&, airlock::sdk::Call&) {
                std::this_thread::sleep_for(std::chrono::seconds(2));
                return airlock::sdk::Text{"done"};
              });
}
