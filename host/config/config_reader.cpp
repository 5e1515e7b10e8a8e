// The walk: one pass over the document, section by section, every problem
// recorded at its place and the earliest reported; the readers of single
// values the sections share.
#include "config/config_reader.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace airlock::host::config_reading {

Result<Config> ConfigReader::read(const toml::table& root) && {
  for (const auto& [key, node] : root) {
    const std::string name(key.str());
    if (name == "server") {
      if (const auto* table = table_value(node, name)) read_server(*table);
    } else if (name == "transport") {
      if (const auto* table = table_value(node, name)) read_transport(*table);
    } else if (name == "plugins") {
      if (const auto* table = table_value(node, name)) read_plugins(*table);
    } else if (name == "isolation") {
      if (const auto* table = table_value(node, name)) read_isolation(*table);
    } else if (name == "egress") {
      if (const auto* table = table_value(node, name)) read_egress(*table);
    } else if (name == "trust") {
      if (const auto* table = table_value(node, name)) read_trust(*table);
    } else if (name == "pinning") {
      if (const auto* table = table_value(node, name)) read_pinning(*table);
    } else if (name == "tasks") {
      if (const auto* table = table_value(node, name)) read_tasks(*table);
    } else if (name == "audit") {
      if (const auto* table = table_value(node, name)) read_audit(*table);
    } else if (name == "auth") {
      if (const auto* table = table_value(node, name)) read_auth(*table);
    } else if (name == "chains") {
      if (const auto* table = table_value(node, name)) read_chains(*table);
    } else if (name == "tools") {
      if (const auto* table = table_value(node, name)) read_tools(*table);
    } else if (name == "resources") {
      if (const auto* table = table_value(node, name)) read_content_bindings(*table, name, config_.resources);
    } else if (name == "prompts") {
      if (const auto* table = table_value(node, name)) read_content_bindings(*table, name, config_.prompts);
    } else if (name == "plugin") {
      if (const auto* table = table_value(node, name)) read_plugin_settings(*table);
    } else {
      report_unknown_key(key, "");
    }
  }
  check_chain_references(root);

  if (!problems_.empty()) {
    const auto first = std::min_element(
        problems_.begin(), problems_.end(), [](const Problem& a, const Problem& b) {
          return std::tie(a.line, a.column) < std::tie(b.line, b.column);
        });
    return Error{std::move(first->message)};
  }
  // The first matching binding wins, so bindings keep the order written;
  // toml++ hands them over sorted by name instead.
  const auto in_file_order = [](const auto& a, const auto& b) {
    return std::tie(a.place.line, a.place.column) < std::tie(b.place.line, b.place.column);
  };
  std::stable_sort(config_.tools.begin(), config_.tools.end(), in_file_order);
  std::stable_sort(config_.resources.begin(), config_.resources.end(), in_file_order);
  std::stable_sort(config_.prompts.begin(), config_.prompts.end(), in_file_order);
  return std::move(config_);
}

const toml::table* ConfigReader::table_value(const toml::node& node, const std::string& path) {
  if (const auto* table = node.as_table()) return table;
  report(place(node, path), "expected a table, got " + value_text(node));
  return nullptr;
}

std::optional<std::string> ConfigReader::string_value(const toml::node& node, const std::string& path) {
  if (const auto* text = node.as_string()) return text->get();
  report(place(node, path), "expected a string, got " + value_text(node));
  return std::nullopt;
}

std::optional<std::int64_t> ConfigReader::integer_value(const toml::node& node, const std::string& path,
                                          std::int64_t min, std::int64_t max) {
  const auto* integer = node.as_integer();
  if (integer && integer->get() >= min && integer->get() <= max) return integer->get();
  report(place(node, path),
         "expected " + integer_range_text(min, max) + ", got " + value_text(node));
  return std::nullopt;
}

std::optional<double> ConfigReader::number_value(const toml::node& node, const std::string& path,
                                   std::int64_t min, std::int64_t max) {
  std::optional<double> number;
  if (const auto* integer = node.as_integer()) number = static_cast<double>(integer->get());
  if (const auto* floating = node.as_floating_point()) number = floating->get();
  if (number && *number >= static_cast<double>(min) && *number <= static_cast<double>(max))
    return number;
  report(place(node, path),
         "expected " + number_range_text(min, max) + ", got " + value_text(node));
  return std::nullopt;
}

std::optional<bool> ConfigReader::bool_value(const toml::node& node, const std::string& path) {
  if (const auto* flag = node.as_boolean()) return flag->get();
  report(place(node, path), "expected true or false, got " + value_text(node));
  return std::nullopt;
}

std::vector<std::pair<std::string, SourcePlace>> ConfigReader::string_list(const toml::node& node,
                                                             const std::string& path) {
  std::vector<std::pair<std::string, SourcePlace>> list;
  const auto* array = node.as_array();
  if (!array) {
    report(place(node, path), "expected an array of strings, got " + value_text(node));
    return list;
  }
  for (std::size_t i = 0; i < array->size(); ++i) {
    const auto& element = *array->get(i);
    SourcePlace where = place(element, path + "[" + std::to_string(i) + "]");
    const auto* text = element.as_string();
    if (!text || text->get().empty()) {
      report(where, "expected a non-empty string, got " + value_text(element));
      continue;
    }
    list.emplace_back(text->get(), std::move(where));
  }
  return list;
}

fs::path ConfigReader::resolve(const std::string& dir) const {
  const fs::path path(dir);
  if (path.is_absolute()) return path.lexically_normal();
  return (config_.file.parent_path() / path).lexically_normal();
}

SourcePlace ConfigReader::place(const toml::source_region& region, std::string path) const {
  return SourcePlace{file_, region.begin.line, region.begin.column, std::move(path)};
}

SourcePlace ConfigReader::place(const toml::node& node, std::string path) const {
  return place(node.source(), std::move(path));
}

void ConfigReader::report(const SourcePlace& where, std::string_view what) {
  problems_.push_back(Problem{where.line, where.column,
                              where.describe() + ": " + where.key + ": " + std::string(what)});
}

void ConfigReader::report_unknown_key(const toml::key& key, std::string_view table,
                        std::string_view hint) {
  const auto& at = key.source().begin;
  std::string message = SourcePlace{file_, at.line, at.column, {}}.describe() +
                        ": unknown key '" + std::string(key.str()) + "'";
  if (!table.empty()) message += " in [" + std::string(table) + "]";
  message += hint;
  problems_.push_back(Problem{at.line, at.column, std::move(message)});
}

}  // namespace airlock::host::config_reading
