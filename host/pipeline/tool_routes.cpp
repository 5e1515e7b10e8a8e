#include "pipeline/tool_routes.hpp"

#include "plugins/plugin_library.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace airlock::host {

Result<std::unique_ptr<ToolRoutes>> ToolRoutes::build(const Config& config, const PluginRegistry& registry) {
  auto routes = std::make_unique<ToolRoutes>();
  const bool lenient = registry.skipped() > 0;
  auto problem = [&](const SourcePlace& place, const std::string& what) -> std::optional<Error> {
    std::string message = fmt::format("{}: {}", place.describe(), what);
    if (!lenient) return Error{std::move(message)};
    spdlog::warn("{} (a skipped plugin may have provided it)", message);
    return std::nullopt;
  };

  for (const auto& [name, chain] : config.chains) {
    std::vector<const Sanitizer*> steps;
    for (std::size_t i = 0; i < chain.steps.size(); ++i) {
      const Sanitizer* s = registry.find_sanitizer(chain.steps[i]);
      if (!s) {
        const SourcePlace& place = i < chain.step_places.size() ? chain.step_places[i] : chain.place;
        // Even with skipped plugins this stays an error: a chain with a
        // missing step would pass results that the operator meant to filter.
        return Error{fmt::format("{}: chain '{}' names sanitizer '{}', which no loaded plugin provides",
                                 place.describe(), name, chain.steps[i])};
      }
      steps.push_back(s);
    }
    routes->chains_.emplace(name, SanitizerChain(name, std::move(steps)));
  }

  for (const auto& binding : config.tools) {
    bool matched = false;
    for (const Tool* tool : registry.tools()) matched = matched || glob_match(binding.pattern, tool->name);
    // A tool its pin refused still exists as far as the operator's config
    // is concerned; the refusal was already logged.
    for (const auto& name : registry.withdrawn()) matched = matched || glob_match(binding.pattern, name);
    if (!matched)
      if (auto e = problem(binding.place, fmt::format("[tools.\"{}\"] matches no loaded tool", binding.pattern)))
        return *e;
  }
  for (const auto& [plugin, place] : config.plugin_setting_places) {
    bool loaded = false;
    for (const auto& p : registry.plugins()) loaded = loaded || p->ctx().name == plugin;
    if (!loaded)
      if (auto e = problem(place, fmt::format("[plugin.\"{}\"] configures a plugin that is not loaded", plugin)))
        return *e;
  }

  const SanitizerChain* default_chain = nullptr;
  if (auto it = routes->chains_.find("default"); it != routes->chains_.end()) default_chain = &it->second;

  for (const Tool* tool : registry.tools()) {
    ToolRoute route{tool, default_chain, config.server.mirror, std::nullopt, config.server.max_result_bytes,
                    std::chrono::milliseconds(config.server.sanitizer_timeout_ms)};
    bool chain_bound = false, mirror_bound = false, timeout_bound = false, budget_bound = false,
         egress_bound = false;
    // Bindings are in file order; for each setting the first match wins.
    for (const auto& binding : config.tools) {
      if (!glob_match(binding.pattern, tool->name)) continue;
      if (binding.chain && !chain_bound) {
        chain_bound = true;
        route.chain = *binding.chain == "none" ? nullptr : &routes->chains_.at(*binding.chain);
      }
      if (binding.mirror && !mirror_bound) {
        mirror_bound = true;
        route.mirror = *binding.mirror;
      }
      if (binding.timeout_ms && !timeout_bound) {
        timeout_bound = true;
        route.timeout_ms = binding.timeout_ms;
      }
      if (binding.max_result_bytes && !budget_bound) {
        budget_bound = true;
        route.max_result_bytes = *binding.max_result_bytes;
      }
      if (binding.egress && !egress_bound) {
        egress_bound = true;
        route.egress = std::make_shared<const EgressPolicy>(*binding.egress, binding.egress_addresses);
      }
    }
    routes->routes_.emplace(tool->name, route);
  }
  for (const Tool* tool : registry.tools()) routes->sorted_.push_back(&routes->routes_.at(tool->name));

  auto content = ContentRoutes::build(config, routes->chains_, registry.content());
  if (!content) return content.error();
  routes->content_ = std::move(*content);
  return routes;
}

std::string describe_egress(const EgressPolicy& policy) {
  if (policy.empty()) return "none (every fetch is denied)";
  std::string text;
  for (const auto& rule : policy.rules()) text += (text.empty() ? "" : ", ") + rule.text;
  if (!policy.granted_addresses().empty()) {
    text += "; addresses ";
    bool first = true;
    for (const auto& range : policy.granted_addresses()) {
      text += (first ? "" : ", ") + range.text;
      first = false;
    }
  }
  return text;
}

const ToolRoute* ToolRoutes::find(std::string_view tool_name) const {
  auto it = routes_.find(tool_name);
  return it == routes_.end() ? nullptr : &it->second;
}

}  // namespace airlock::host
