// [tasks]: the durable task store.
#include "config/config_reader.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace airlock::host::config_reading {

void ConfigReader::read_tasks(const toml::table& table) {
  auto& tasks = config_.tasks;
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const std::string path = "tasks." + key_text(name);
    if (name == "enabled") {
      if (auto value = bool_value(node, path)) tasks.enabled = *value;
    } else if (name == "store") {
      if (auto value = string_value(node, path); value && value->empty()) {
        report(place(node, path), "expected a SQLite file or a postgresql:// URI, got \"\"");
      } else if (value) {
        const bool uri = value->starts_with("postgresql://") || value->starts_with("postgres://");
        tasks.store = uri ? *value : resolve(*value).string();
      }
    } else if (name == "ttl_ms") {
      if (auto value = integer_value(node, path, 1000, 30LL * 86'400'000)) tasks.ttl_ms = *value;
    } else if (name == "poll_interval_ms") {
      if (auto value = integer_value(node, path, 50, 60'000)) tasks.poll_interval_ms = *value;
    } else if (name == "node_id") {
      if (auto value = string_value(node, path)) tasks.node_id = *value;
    } else {
      report_unknown_key(key, "tasks");
    }
  }
}

}  // namespace airlock::host::config_reading
