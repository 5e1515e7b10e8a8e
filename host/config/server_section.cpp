// [server]: the name, logging, limits and workers.
#include "config/config_reader.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace airlock::host::config_reading {

void ConfigReader::read_server(const toml::table& table) {
  auto& server = config_.server;
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const std::string path = "server." + key_text(name);
    if (name == "name") {
      if (auto value = string_value(node, path)) server.name = std::move(*value);
    } else if (name == "log_level") {
      if (auto value = choice_value(node, path, kLogLevels)) server.log_level = *value;
    } else if (name == "max_message_bytes") {
      if (auto value = integer_value(node, path, 1024, kNoUpperLimit))
        server.max_message_bytes = static_cast<std::size_t>(*value);
    } else if (name == "workers") {
      if (auto value = integer_value(node, path, 1, 256))
        server.workers = static_cast<std::uint32_t>(*value);
    } else if (name == "queue_capacity") {
      if (auto value = integer_value(node, path, 1, 1'000'000))
        server.queue_capacity = static_cast<std::uint32_t>(*value);
    } else if (name == "page_size") {
      if (auto value = integer_value(node, path, 1, 10'000))
        server.page_size = static_cast<std::uint32_t>(*value);
    } else if (name == "mirror") {
      if (auto value = choice_value(node, path, kMirrors)) server.mirror = *value;
    } else if (name == "max_result_bytes") {
      if (auto value = integer_value(node, path, 1024, kNoUpperLimit))
        server.max_result_bytes = static_cast<std::size_t>(*value);
    } else if (name == "sanitizer_timeout_ms") {
      if (auto value = integer_value(node, path, 1, 600'000))
        server.sanitizer_timeout_ms = static_cast<std::uint32_t>(*value);
    } else if (name == "list_ttl_ms") {
      if (auto value = integer_value(node, path, 0, 86'400'000)) server.list_ttl_ms = static_cast<std::uint32_t>(*value);
    } else if (name == "request_state_key_file") {
      if (auto value = string_value(node, path)) server.request_state_key_file = resolve(*value);
    } else if (name == "request_state_ttl_s") {
      if (auto value = integer_value(node, path, 1, 86'400'000 / 1000))
        server.request_state_ttl_s = static_cast<std::uint32_t>(*value);
    } else {
      report_unknown_key(key, "server");
    }
  }
}

}  // namespace airlock::host::config_reading
