#include "pipeline/content_routes.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace airlock::host {
namespace {

const Sanitizer* first_result_step(const SanitizerChain& chain) {
  for (const Sanitizer* step : chain.steps())
    if (step->kind == SanitizerKind::result) return step;
  return nullptr;
}

}  // namespace

Result<ContentRoutes> ContentRoutes::build(const Config& config, const std::map<std::string, SanitizerChain>& chains,
                                           ContentCatalog& catalog) {
  ContentRoutes routes;
  routes.catalog_ = &catalog;
  routes.max_result_bytes_ = config.server.max_result_bytes;
  routes.sanitizer_timeout_ = std::chrono::milliseconds(config.server.sanitizer_timeout_ms);
  if (auto it = chains.find("default"); it != chains.end()) {
    routes.default_chain_ = &it->second;
    const Sanitizer* step = first_result_step(it->second);
    if (step && (catalog.serves_resources() || catalog.serves_prompts()))
      spdlog::warn("chain 'default' has result sanitizer '{}', which sees tool results only: resources and "
                   "prompts without a binding pass its text sanitizers alone",
                   step->name);
  }

  auto bind = [&](const std::vector<ContentBinding>& bindings, const char* kind,
                  std::vector<Binding>& out) -> Result<void> {
    for (const auto& binding : bindings) {
      if (!binding.chain) continue;
      if (*binding.chain == "none") {
        out.push_back({binding.pattern, nullptr});
        continue;
      }
      // load_config checked that the chain is declared, and ToolRoutes
      // compiled every declared one.
      const SanitizerChain& chain = chains.at(*binding.chain);
      if (const Sanitizer* step = first_result_step(chain))
        return Error{fmt::format("{}: [{}.\"{}\"] binds chain '{}', whose result sanitizer '{}' takes tool "
                                 "results only; bind a chain of text sanitizers",
                                 binding.chain_place.describe(), kind, binding.pattern, chain.name(), step->name)};
      out.push_back({binding.pattern, &chain});
    }
    return {};
  };
  if (auto bound = bind(config.resources, "resources", routes.resources_); !bound) return bound.error();
  if (auto bound = bind(config.prompts, "prompts", routes.prompts_); !bound) return bound.error();
  return routes;
}

ContentRoute ContentRoutes::route(const std::vector<Binding>& bindings, std::string_view key) const {
  ContentRoute route{default_chain_, max_result_bytes_, sanitizer_timeout_};
  for (const auto& binding : bindings) {
    if (!glob_match(binding.pattern, key)) continue;
    route.chain = binding.chain;
    break;
  }
  return route;
}

ContentRoute ContentRoutes::for_resource(std::string_view uri) const { return route(resources_, uri); }
ContentRoute ContentRoutes::for_prompt(std::string_view name) const { return route(prompts_, name); }

}  // namespace airlock::host
