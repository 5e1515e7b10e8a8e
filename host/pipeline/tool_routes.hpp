// What the configuration says about each loaded tool: its sanitizer chain,
// mirroring and deadline, resolved once at start so a call is one lookup.
#pragma once

#include "config/host_config.hpp"
#include "egress/egress_policy.hpp"
#include "executor/call_cost.hpp"
#include "pipeline/content_routes.hpp"
#include "pipeline/sanitizer_chain.hpp"
#include "plugins/plugin_registry.hpp"
#include "util/error.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace airlock::host {

struct ToolRoute {
  const Tool* tool = nullptr;
  const SanitizerChain* chain = nullptr;  // null: the tool runs with no chain
  Mirror mirror = Mirror::text;
  std::optional<std::uint32_t> timeout_ms;
  std::size_t max_result_bytes = 1u << 20;
  std::chrono::milliseconds sanitizer_timeout{1000};
  // What the tool may reach through the host's fetch; never null (an empty
  // policy grants nothing). Shared: a running call keeps it.
  std::shared_ptr<const EgressPolicy> egress = std::make_shared<const EgressPolicy>();
  // How long its calls take lately, counted by whoever runs them.
  mutable CallCost cost{};
};

// A tool's egress set as an operator reads it in `airlock list` and the start
// log: "none (every fetch is denied)", or the grants in order, then the
// special address ranges granted.
std::string describe_egress(const EgressPolicy& policy);

class ToolRoutes {
 public:
  // Compiles [chains] against the loaded sanitizers and binds every tool.
  // Errors name the file, line and key of the offending value: a step that
  // names no loaded sanitizer, a binding that matches no loaded tool, a
  // [plugin."X"] table for a plugin that is not loaded. When plugins were
  // skipped (on_error = "skip") the last two are warnings, since the missing
  // tool may be the skipped plugin's.
  static Result<std::unique_ptr<ToolRoutes>> build(const Config& config, const PluginRegistry& registry);

  const ToolRoute* find(std::string_view tool_name) const;
  // Routes in tool-name order: the order of tools/list.
  const std::vector<const ToolRoute*>& sorted() const { return sorted_; }
  const std::map<std::string, SanitizerChain>& chains() const { return chains_; }
  // The chains of resource reads and prompt gets ([resources], [prompts]),
  // bound here because they share the compiled chains.
  const ContentRoutes& content() const { return content_; }

 private:
  std::map<std::string, SanitizerChain> chains_;
  ContentRoutes content_;
  StringMap<ToolRoute> routes_;
  std::vector<const ToolRoute*> sorted_;
};

}  // namespace airlock::host
