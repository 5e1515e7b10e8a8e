// Reading [plugin."airlock.fetch"] (fetch_config.hpp).
#include "fetch_config.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

namespace airlock::plugins::fetch {
namespace {

constexpr std::string_view kTable = "[plugin.\"airlock.fetch\"]";

[[noreturn]] void refuse(const std::string& what) {
  throw std::invalid_argument(std::string(kTable) + " " + what);
}

bool is_tool_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
  });
}

// A name as an operator can find it in the TOML: quoted, and cut short so a
// pasted blob does not flood the log.
std::string shown(std::string_view name) {
  constexpr std::size_t kShown = 80;
  std::string text = "\"" + std::string(name.substr(0, kShown));
  return text + (name.size() > kShown ? "...\"" : "\"");
}

std::vector<std::string> read_names(const boost::json::value& value) {
  if (!value.is_array()) refuse("names must be an array of tool names");
  const boost::json::array& array = value.get_array();
  if (array.empty()) refuse("names must list at least one tool name");
  std::vector<std::string> names;
  for (const boost::json::value& entry : array) {
    if (!entry.is_string())
      refuse("names must be an array of tool names, and entry " + std::to_string(names.size() + 1) +
             " is not a string");
    const std::string_view name = entry.get_string();
    if (!is_tool_name(name))
      refuse("names: " + shown(name) + " is not a valid tool name (1 to 64 of A-Z a-z 0-9 _ . -)");
    if (std::find(names.begin(), names.end(), name) != names.end())
      refuse("names: " + shown(name) + " is listed twice");
    names.emplace_back(name);
  }
  return names;
}

}  // namespace

FetchConfig read_fetch_config(const boost::json::object& table) {
  FetchConfig config;
  for (const auto& [key, value] : table) {
    if (key == "names") {
      config.names = read_names(value);
    } else {
      refuse("has an unknown key " + shown(key) + " (the only one is names)");
    }
  }
  return config;
}

}  // namespace airlock::plugins::fetch
