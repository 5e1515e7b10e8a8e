// airlock::testing: GoogleTest cases over the host's contract harness
// (host/check). The test itself is defined here, in the same file as
// contract_cases, so a test binary that instantiates the suite links it.
#include <airlock/testing.hpp>

#include "check/plugin_check.hpp"
#include "check/sanitizer_checks.hpp"
#include "check/tool_checks.hpp"

#include <map>
#include <tuple>

namespace airlock::testing {
namespace {

namespace check = airlock::host::check;

check::CheckOptions engine_options(const ContractOptions& options, const host::Config& config) {
  check::CheckOptions out;
  out.seed = options.seed;
  out.depth = options.fast ? check::CheckDepth::fast : check::CheckDepth::full;
  out.call_budget = std::chrono::milliseconds(config.server.sanitizer_timeout_ms);
  if (!options.corpus_dir.empty()) {
    auto corpus = check::load_corpus_dir(options.corpus_dir);
    if (corpus) out.operator_corpus = std::move(*corpus);
  }
  return out;
}

// The config a case's plugin gets: the file's, or the defaults.
host::Result<host::Config> config_for(const ContractOptions& options) {
  if (options.config_file.empty()) return host::Config{};
  return host::load_config(options.config_file);
}

using ReportKey = std::tuple<std::string, std::string, std::string, std::uint64_t, bool>;

// One full check per plugin and options, run on the first case that needs
// it and shared by the rest.
const check::PluginReport& report_for(const ContractCase& c) {
  static std::map<ReportKey, check::PluginReport> reports;
  const ReportKey key{c.plugin_file, c.options.config_file, c.options.corpus_dir, c.options.seed, c.options.fast};
  auto it = reports.find(key);
  if (it != reports.end()) return it->second;
  check::PluginReport report;
  auto config = config_for(c.options);
  if (!config) {
    report.file = c.plugin_file;
    report.load_error = config.error().message;
  } else {
    report = check::check_plugin(c.plugin_file, *config, engine_options(c.options, *config));
  }
  return reports.emplace(key, std::move(report)).first->second;
}

std::string describe_failure(const check::CheckResult& result) {
  std::string text = result.detail;
  if (!result.example) return text;
  const check::Counterexample& e = *result.example;
  text += "\n  input: " + check::show(e.input, 4096);
  if (e.shrunk) text += " (shrunk from " + std::to_string(e.found_bytes) + " bytes)";
  if (!e.first_label.empty()) text += "\n  " + e.first_label + ": " + e.first;
  if (!e.second_label.empty()) text += "\n  " + e.second_label + ": " + e.second;
  return text;
}

}  // namespace

std::vector<ContractCase> contract_cases(const std::string& plugin_file, const ContractOptions& options) {
  std::vector<ContractCase> cases;
  auto config = config_for(options);
  if (!config) return {ContractCase{plugin_file, "", "load", options}};
  auto plugin = host::PluginLibrary::open(plugin_file, *config);
  if (!plugin) return {ContractCase{plugin_file, "", "load", options}};
  for (const host::Sanitizer& s : (*plugin)->ctx().sanitizers)
    for (std::string_view name : check::kSanitizerChecks) cases.push_back({plugin_file, s.name, std::string(name), options});
  for (const host::Tool& t : (*plugin)->ctx().tools)
    for (std::string_view name : check::kToolChecks) cases.push_back({plugin_file, t.name, std::string(name), options});
  if (cases.empty()) cases.push_back({plugin_file, "", "load", options});  // nothing to check is a failure too
  return cases;
}

std::string contract_case_name(const ::testing::TestParamInfo<ContractCase>& info) {
  std::string name = info.param.component.empty() ? info.param.check : info.param.component + "_" + info.param.check;
  for (char& c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '_';
  return name;
}

void PrintTo(const ContractCase& c, std::ostream* os) {
  *os << c.plugin_file << ": " << (c.component.empty() ? "" : c.component + " ") << c.check;
}

TEST_P(ContractTest, Holds) {
  const ContractCase& c = GetParam();
  const check::PluginReport& report = report_for(c);
  if (c.check == "load") {
    ASSERT_FALSE(report.load_error) << *report.load_error;
    FAIL() << c.plugin_file << ": registers no sanitizer and no tool, so there is nothing to check";
  }
  ASSERT_FALSE(report.load_error) << *report.load_error;
  for (const auto& component : report.components) {
    if (component.name != c.component) continue;
    for (const auto& result : component.checks) {
      if (result.check != c.check) continue;
      RecordProperty("cases", static_cast<int>(result.cases));
      RecordProperty("elapsed_ms", static_cast<int>(result.elapsed.count() / 1'000'000));
      if (result.verdict == check::Verdict::skip) GTEST_SKIP() << result.detail;
      if (result.verdict == check::Verdict::fail)
        ADD_FAILURE() << component.kind << " " << component.name << " fails the " << result.check
                      << " check: " << describe_failure(result);
      return;
    }
  }
  FAIL() << c.component << ": no " << c.check << " result in the report";
}

}  // namespace airlock::testing
