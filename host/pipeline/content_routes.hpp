// Which sanitizer chain each resource read and prompt get passes (ABI 1.3
// content), from [resources."<uri glob>"] and [prompts."<name glob>"],
// resolved per request: resources come and go while the server runs, and a
// template's reads have URIs nobody knows at start.
#pragma once

#include "config/host_config.hpp"
#include "pipeline/sanitizer_chain.hpp"
#include "plugins/content_catalog.hpp"
#include "util/error.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host {

struct ContentRoute {
  const SanitizerChain* chain = nullptr;  // null: no chain
  std::size_t max_result_bytes = 1u << 20;
  std::chrono::milliseconds sanitizer_timeout{1000};
};

class ContentRoutes {
 public:
  // No catalog and no bindings: a server that serves no resources or prompts.
  ContentRoutes() = default;

  // Binds the config's [resources] and [prompts] tables to the compiled
  // `chains`. A binding to a chain that holds a result sanitizer is an error
  // naming the file, line and key (result sanitizers take tool results
  // only); the "default" chain may hold one, and then content passes only
  // its text sanitizers, with a warning.
  static Result<ContentRoutes> build(const Config& config, const std::map<std::string, SanitizerChain>& chains,
                                     ContentCatalog& catalog);

  ContentRoute for_resource(std::string_view uri) const;
  ContentRoute for_prompt(std::string_view name) const;

  // The catalog the session reads; null when there is none.
  ContentCatalog* catalog() const { return catalog_; }

 private:
  struct Binding {
    std::string pattern;
    const SanitizerChain* chain;  // null: "none"
  };
  ContentRoute route(const std::vector<Binding>& bindings, std::string_view key) const;

  ContentCatalog* catalog_ = nullptr;
  std::vector<Binding> resources_;  // file order: the first match wins
  std::vector<Binding> prompts_;
  const SanitizerChain* default_chain_ = nullptr;
  std::size_t max_result_bytes_ = 1u << 20;
  std::chrono::milliseconds sanitizer_timeout_{1000};
};

}  // namespace airlock::host
