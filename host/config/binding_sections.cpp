// [chains], [tools], [resources] and [prompts]: the sanitizer chains and
// which tool, resource and prompt each one guards; chain names checked once all are read.
#include "config/config_reader.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace airlock::host::config_reading {

void ConfigReader::read_chains(const toml::table& chains) {
  for (const auto& [key, node] : chains) {
    const std::string name(key.str());
    const std::string path = "chains." + key_text(name);
    const auto* table = table_value(node, path);
    if (!table) continue;
    if (name == "none") {
      report(place(key.source(), path), "\"none\" is reserved for opting a tool out of every "
                                        "chain and cannot name a chain");
      continue;
    }
    if (!is_plain_name(name)) {
      report(place(key.source(), path),
             "a chain name may hold only letters, digits, '_' and '-'");
      continue;
    }
    read_chain(name, *table, path);
  }
}

void ConfigReader::read_chain(const std::string& name, const toml::table& table, const std::string& path) {
  ChainConfig chain;
  chain.name = name;
  chain.place = place(table, path);
  if (!table.contains("steps")) report(chain.place, "missing key 'steps'");
  for (const auto& [key, node] : table) {
    if (key.str() != "steps") {
      report_unknown_key(key, path);
      continue;
    }
    for (auto& [step, where] : string_list(node, path + ".steps")) {
      chain.steps.push_back(std::move(step));
      chain.step_places.push_back(std::move(where));
    }
  }
  config_.chains.emplace(name, std::move(chain));
}

void ConfigReader::read_tools(const toml::table& tools) {
  for (const auto& [key, node] : tools) {
    const std::string pattern(key.str());
    const std::string path = "tools." + key_text(pattern);
    const auto* table = table_value(node, path);
    if (!table) continue;
    if (pattern.empty()) {
      report(place(key.source(), path), "a tool name or glob cannot be empty");
      continue;
    }
    read_binding(pattern, *table, path);
  }
}

void ConfigReader::read_binding(const std::string& pattern, const toml::table& table,
                  const std::string& path) {
  ToolBinding binding;
  binding.pattern = pattern;
  binding.place = place(table, path);
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const std::string field = path + "." + key_text(name);
    if (name == "chain") {
      binding.chain = string_value(node, field);
      binding.chain_place = place(node, field);
    } else if (name == "timeout_ms") {
      if (auto value = integer_value(node, field, 1, 86'400'000))
        binding.timeout_ms = static_cast<std::uint32_t>(*value);
    } else if (name == "mirror") {
      binding.mirror = choice_value(node, field, kMirrors);
    } else if (name == "max_result_bytes") {
      if (auto value = integer_value(node, field, 1024, kNoUpperLimit))
        binding.max_result_bytes = static_cast<std::size_t>(*value);
    } else if (name == "egress") {
      binding.egress.emplace();
      for (auto& [text, where] : string_list(node, field)) {
        if (auto rule = parse_egress_rule(text)) {
          binding.egress->push_back(std::move(*rule));
        } else {
          report(where, rule.error().message);
        }
      }
    } else if (name == "egress_addresses") {
      if (!table.contains("egress"))
        report(place(node, field), "egress_addresses grants special ranges to the destinations in "
                                   "'egress', which this table does not have");
      for (auto& [text, where] : string_list(node, field)) {
        if (auto range = parse_address_range(text)) {
          binding.egress_addresses.push_back(std::move(*range));
        } else {
          report(where, range.error().message);
        }
      }
    } else if (node.is_table()) {
      // [tools.acme.search] reads as tool "acme" with a key "search".
      report_unknown_key(key, path,
                         " (quote a tool name that holds a dot: [tools." +
                             quote(pattern + "." + name) + "])");
    } else {
      report_unknown_key(key, path);
    }
  }
  config_.tools.push_back(std::move(binding));
}

void ConfigReader::read_content_bindings(const toml::table& bindings, const std::string& kind,
                           std::vector<ContentBinding>& out) {
  const char* what = kind == "resources" ? "a resource URI or glob" : "a prompt name or glob";
  for (const auto& [key, node] : bindings) {
    const std::string pattern(key.str());
    const std::string path = kind + "." + key_text(pattern);
    const auto* table = table_value(node, path);
    if (!table) continue;
    if (pattern.empty()) {
      report(place(key.source(), path), std::string(what) + " cannot be empty");
      continue;
    }
    ContentBinding binding;
    binding.pattern = pattern;
    binding.place = place(*table, path);
    for (const auto& [field_key, field] : *table) {
      const std::string name(field_key.str());
      const std::string field_path = path + "." + key_text(name);
      if (name == "chain") {
        binding.chain = string_value(field, field_path);
        binding.chain_place = place(field, field_path);
      } else if (field.is_table()) {
        // [prompts.acme.summary] reads as prompt "acme" with a key "summary".
        report_unknown_key(field_key, path,
                           " (quote a name that holds a dot: [" + kind + "." + quote(pattern + "." + name) + "])");
      } else {
        report_unknown_key(field_key, path);
      }
    }
    out.push_back(std::move(binding));
  }
}

void ConfigReader::check_chain_references(const toml::table& root) {
  const auto* chains = root["chains"].as_table();
  auto check = [&](const std::optional<std::string>& chain, const SourcePlace& where) {
    if (!chain || *chain == "none") return;
    if (chains && chains->contains(*chain)) return;
    report(where, "chain " + quote(*chain) + " is not declared");
  };
  for (const auto& binding : config_.tools) check(binding.chain, binding.chain_place);
  for (const auto& binding : config_.resources) check(binding.chain, binding.chain_place);
  for (const auto& binding : config_.prompts) check(binding.chain, binding.chain_place);
}

}  // namespace airlock::host::config_reading
