// [plugins], [isolation], [trust], [pinning] and [plugin."<name>"]: where
// plugins come from, how they run, which are trusted and pinned, and their settings.
#include "config/config_reader.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace airlock::host::config_reading {

void ConfigReader::read_plugins(const toml::table& table) {
  auto& plugins = config_.plugins;
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const std::string path = "plugins." + key_text(name);
    if (name == "dirs") {
      for (const auto& dir : string_list(node, path)) plugins.dirs.push_back(resolve(dir.first));
    } else if (name == "on_error") {
      if (auto value = choice_value(node, path, kOnPluginError)) plugins.on_error = *value;
    } else if (name == "require_check") {
      if (auto value = bool_value(node, path)) plugins.require_check = *value;
    } else {
      report_unknown_key(key, "plugins");
    }
  }
}

void ConfigReader::read_isolation(const toml::table& table) {
  auto& isolation = config_.isolation;
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const std::string path = "isolation." + key_text(name);
    if (name == "mode") {
      if (auto value = choice_value(node, path, kIsolationMode)) isolation.mode = *value;
    } else if (name == "in_process") {
      for (const auto& entry : string_list(node, path)) {
        if (entry.first.find('/') != std::string::npos)
          isolation.in_process_dirs.push_back(resolve(entry.first));
        else
          isolation.in_process_packs.push_back(entry.first);
      }
    } else if (name == "memory_mb") {
      if (auto value = integer_value(node, path, 64, 1'048'576))
        isolation.memory_mb = static_cast<std::uint32_t>(*value);
    } else if (name == "max_workers") {
      if (auto value = integer_value(node, path, 1, 64)) isolation.max_workers = static_cast<std::uint32_t>(*value);
    } else if (name == "cancel_grace_ms") {
      if (auto value = integer_value(node, path, 10, 600'000))
        isolation.cancel_grace_ms = static_cast<std::uint32_t>(*value);
    } else if (name == "max_backoff_ms") {
      if (auto value = integer_value(node, path, 10, 3'600'000))
        isolation.max_backoff_ms = static_cast<std::uint32_t>(*value);
    } else if (name == "plugins") {
      const auto* files = table_value(node, path);
      if (!files) continue;
      for (const auto& [file, limits_node] : *files) {
        const std::string file_path = path + "." + key_text(file.str());
        const auto* limits = table_value(limits_node, file_path);
        if (!limits) continue;
        auto& entry = isolation.plugins[std::string(file.str())];
        for (const auto& [limit, value] : *limits) {
          const std::string limit_path = file_path + "." + key_text(limit.str());
          if (limit.str() == "memory_mb") {
            if (auto v = integer_value(value, limit_path, 64, 1'048'576)) entry.memory_mb = static_cast<std::uint32_t>(*v);
          } else if (limit.str() == "max_workers") {
            if (auto v = integer_value(value, limit_path, 1, 64)) entry.max_workers = static_cast<std::uint32_t>(*v);
          } else {
            report_unknown_key(limit, file_path);
          }
        }
      }
    } else {
      report_unknown_key(key, "isolation");
    }
  }
}

void ConfigReader::read_trust(const toml::table& table) {
  auto& trust = config_.trust;
  trust.place = place(table, "trust");
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const std::string path = "trust." + key_text(name);
    if (name == "keys") {
      for (auto& [text, where] : string_list(node, path)) {
        // Every minisign public key is 56 base64 characters starting "RW"
        // (the "Ed" algorithm tag); anything else names a .pub file.
        const bool is_inline = text.size() == 56 && text.starts_with("RW");
        if (is_inline) {
          trust.keys.push_back({std::move(text), std::move(where)});
          continue;
        }
        const fs::path file = resolve(text);
        auto content = read_file(file);
        if (!content) {
          report(where, content.error().message);
          continue;
        }
        where.key += " (" + file.string() + ")";
        trust.keys.push_back({std::move(*content), std::move(where)});
      }
    } else if (name == "require_signed") {
      if (auto value = bool_value(node, path)) trust.require_signed = *value;
    } else if (name == "unsigned_dirs") {
      for (const auto& dir : string_list(node, path)) trust.unsigned_dirs.push_back(resolve(dir.first));
    } else {
      report_unknown_key(key, "trust");
    }
  }
}

void ConfigReader::read_pinning(const toml::table& table) {
  auto& pinning = config_.pinning;
  pinning.place = place(table, "pinning");
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const std::string path = "pinning." + key_text(name);
    if (name == "file") {
      if (auto value = string_value(node, path); value && value->empty()) {
        report(place(node, path), "expected a file name, got \"\"");
      } else if (value) {
        pinning.file = resolve(*value);
      }
    } else if (name == "on_definition_change") {
      if (auto value = choice_value(node, path, kOnDefinitionChange)) pinning.on_definition_change = *value;
    } else {
      report_unknown_key(key, "pinning");
    }
  }
  if (!pinning.file && table.contains("on_definition_change"))
    report(pinning.place, "missing key 'file': on_definition_change needs a pin file to compare with");
}

void ConfigReader::read_plugin_settings(const toml::table& plugins) {
  for (const auto& [key, node] : plugins) {
    const std::string path = "plugin." + key_text(key.str());
    const auto* table = table_value(node, path);
    if (!table) continue;
    config_.plugin_settings.emplace(key.str(), to_json_object(*table));
    config_.plugin_setting_places.emplace(key.str(), place(*table, path));
  }
}

}  // namespace airlock::host::config_reading
