// `airlock check`: holds plugin files to the contract before an operator
// trusts them. Prints like a test runner (or JSON), exits 1 on any violation.
#include "check/plugin_check.hpp"
#include "cli/commands.hpp"
#include "isolation/isolation_policy.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <boost/json/serialize.hpp>

#include <cstdio>

namespace airlock::host {

int check_command(const CheckCommandArgs& args) {
  Config config;
  if (args.config_file) {
    auto loaded = load_config(*args.config_file);
    if (!loaded) {
      fmt::print(stderr, "airlock: {}\n", loaded.error().message);
      return 2;
    }
    config = std::move(*loaded);
    spdlog::set_level(spdlog::level::from_str(config.server.log_level));
  }
  check::CheckOptions options;
  options.seed = args.seed;
  options.depth = args.fast ? check::CheckDepth::fast : check::CheckDepth::full;
  options.call_budget = std::chrono::milliseconds(config.server.sanitizer_timeout_ms);
  if (args.corpus_dir) {
    auto corpus = check::load_corpus_dir(*args.corpus_dir);
    if (!corpus) {
      fmt::print(stderr, "airlock: {}\n", corpus.error().message);
      return 2;
    }
    options.operator_corpus = std::move(*corpus);
  }

  // As the server would run each plugin: in a worker, unless it sits in
  // airlock's own plugin directory, [isolation] trusts it, or --in-process.
  const IsolationPolicy isolation(config);

  std::vector<check::PluginReport> reports;
  if (!args.json) std::fputs(check::render_header(options.seed).c_str(), stdout);
  for (const auto& file : args.plugins) {
    const bool isolated = !args.in_process && isolation.decide(file.parent_path(), "").isolated;
    reports.push_back(check::check_plugin(file, config, options, isolated ? &isolation.settings() : nullptr));
    if (!args.json) {
      std::fputs(check::render_plugin_text(reports.back()).c_str(), stdout);
      std::fflush(stdout);
    }
  }
  if (args.json) {
    fmt::print("{}\n", boost::json::serialize(check::to_json(reports, options.seed)));
  } else {
    std::fputs(check::render_summary(reports).c_str(), stdout);
  }
  for (const auto& r : reports)
    if (!r.passed()) return 1;
  return 0;
}

}  // namespace airlock::host
