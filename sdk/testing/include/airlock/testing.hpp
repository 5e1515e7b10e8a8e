// airlock/testing.hpp — the contract harness of `airlock check`, as
// GoogleTest cases a plugin vendor runs in their own test binary. Link
// airlock::testing (it brings GoogleTest) and write:
//
//   #include <airlock/testing.hpp>
//
//   AIRLOCK_CONTRACT_TESTS(MyPlugin, "path/to/my_plugin.so");
//
// That is one test per check per sanitizer and tool the plugin registers,
// named <component>_<check> (e.g. MyPlugin/ContractTest.Holds/acme_redact_idempotence):
// the same checks, corpus and shrinking as `airlock check`, against the
// plugin loaded exactly as the host loads it. A failure prints the smallest
// input that shows it and the two outputs that differ; a check that does not
// apply (cancellation of a tool that is not cancellable) is skipped.
//
// Options, e.g. the plugin's own config table or a fixed seed:
//
//   AIRLOCK_CONTRACT_TESTS(MyPlugin, "my_plugin.so",
//                          airlock::testing::ContractOptions{.config_file = "test.toml", .seed = 7});
//
// The plugin is checked once, on the first test that needs it; tool checks
// fork, so run the binary's tests in one thread (GoogleTest's default).
#ifndef AIRLOCK_TESTING_HPP
#define AIRLOCK_TESTING_HPP

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace airlock::testing {

struct ContractOptions {
  // An airlock.toml whose [plugin."<name>"] table the plugin gets at init,
  // and whose [server] sanitizer_timeout_ms bounds one sanitizer call.
  std::string config_file{};
  // Extra inputs, one per file (*.json files are whole tool results).
  std::string corpus_dir{};
  std::uint64_t seed = 1;
  // Only the subset the host runs at start with [plugins] require_check.
  bool fast = false;
};

// One check of one component of a plugin.
struct ContractCase {
  std::string plugin_file;
  std::string component;  // empty when the plugin does not load
  std::string check;      // "idempotence", …; "load" when the plugin does not load
  ContractOptions options{};
};

// Loads the plugin to list its cases: every check of every sanitizer and
// tool it registers, or one "load" case that fails with the reason.
std::vector<ContractCase> contract_cases(const std::string& plugin_file, const ContractOptions& options = {});

// "<component>_<check>", with every byte GoogleTest does not allow in a test
// name written as '_'.
std::string contract_case_name(const ::testing::TestParamInfo<ContractCase>& info);

void PrintTo(const ContractCase& c, std::ostream* os);

// The suite the cases run in; its one test, Holds, is defined by the library.
class ContractTest : public ::testing::TestWithParam<ContractCase> {};

}  // namespace airlock::testing

// Instantiates the contract tests for one plugin file. `prefix` names the
// instantiation (a C identifier); an optional third argument is a
// ContractOptions. Use it at namespace scope. (GoogleTest pastes the suite's
// name into identifiers, so it must be written unqualified: hence the
// using-declaration.)
#define AIRLOCK_CONTRACT_TESTS(prefix, plugin_file, ...)                                 \
  using ::airlock::testing::ContractTest;                                                \
  INSTANTIATE_TEST_SUITE_P(prefix, ContractTest,                                         \
                           ::testing::ValuesIn(::airlock::testing::contract_cases(       \
                               plugin_file __VA_OPT__(, ) __VA_ARGS__)),                 \
                           ::airlock::testing::contract_case_name)

#endif  // AIRLOCK_TESTING_HPP
