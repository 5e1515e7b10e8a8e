// `airlock check` and [plugins] require_check through the real binary: the
// report an operator reads, its JSON form, the exit codes, and the host
// refusing a sanitizer that fails the load-time subset.
#include "mcp_stdio_client.hpp"
#include "temp_config.hpp"
#include "test_paths.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace airlock::test {
namespace {

using namespace std::chrono_literals;
using testing::HasSubstr;
using testing::Not;
namespace json = boost::json;

std::filesystem::path contract_dir(const std::string& name) {
  return std::filesystem::path(AIRLOCK_CONTRACT_PLUGIN_DIR) / name;
}
std::string contract_plugin(const std::string& name) { return (contract_dir(name) / (name + ".so")).string(); }

RunResult check(std::vector<std::string> args) {
  args.insert(args.begin(), {kAirlockBinary, "check"});
  return run(std::move(args), 60s);
}

TEST(AirlockCheck, PrintsEachCheckAndTheCounterexampleAndExitsOneOnAViolation) {
  const RunResult r = check({contract_plugin("non_idempotent_suffix")});
  ASSERT_TRUE(r.exit_code) << "check did not exit; stderr:\n" << r.err;
  EXPECT_EQ(*r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("airlock check (seed 1)"));
  EXPECT_THAT(r.out, HasSubstr("PASS  broken.suffix  determinism"));
  EXPECT_THAT(r.out, HasSubstr("FAIL  broken.suffix  idempotence"));
  EXPECT_THAT(r.out, HasSubstr("s(s(x)) differs from s(x)"));
  EXPECT_THAT(r.out, HasSubstr("input:"));
  EXPECT_THAT(r.out, HasSubstr("s(s(x)):"));
  EXPECT_THAT(r.out, HasSubstr("check took"));
  EXPECT_THAT(r.out, HasSubstr("summary: 1 plugin, 1 component, 7 checks:"));
  EXPECT_THAT(r.out, HasSubstr("FAILED"));
}

TEST(AirlockCheck, ExitsZeroWhenEveryCheckPasses) {
  const RunResult r = check({plugin_file("airlock_strip_control").string(), plugin_file("example_echo").string()});
  ASSERT_TRUE(r.exit_code) << r.err;
  EXPECT_EQ(*r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("0 failed"));
  EXPECT_THAT(r.out, Not(HasSubstr("FAIL ")));
}

TEST(AirlockCheck, GivesTheSameReportAsJsonForMachines) {
  const RunResult r = check({"--json", contract_plugin("percent_decoding_normalizer"),
                             plugin_file("airlock_identity").string()});
  ASSERT_TRUE(r.exit_code) << r.err;
  EXPECT_EQ(*r.exit_code, 1);
  boost::system::error_code ec;
  const json::value report = json::parse(r.out, ec);
  ASSERT_FALSE(ec) << r.out;
  EXPECT_EQ(report.at("passed"), false);
  const json::array& plugins = report.at("plugins").as_array();
  ASSERT_EQ(plugins.size(), 2u);
  EXPECT_EQ(plugins[1].at("passed"), true);
  const json::value& component = plugins[0].at("components").at(0);
  EXPECT_EQ(component.at("name"), "broken.url-normalizer");
  bool found = false;
  for (const auto& c : component.at("checks").as_array()) {
    if (c.at("check") != "destination-preserving") continue;
    found = true;
    EXPECT_EQ(c.at("verdict"), "fail");
    EXPECT_TRUE(c.at("counterexample").at("input").is_string());
    EXPECT_EQ(c.at("counterexample").at("outputs").as_array().size(), 1u);
  }
  EXPECT_TRUE(found) << r.out;
}

TEST(AirlockCheck, IsReproducibleFromItsSeed) {
  const RunResult a = check({"--json", "--seed", "42", contract_plugin("percent_decoding_normalizer")});
  const RunResult b = check({"--json", "--seed", "42", contract_plugin("percent_decoding_normalizer")});
  auto counterexample = [](const RunResult& r) {
    const json::value v = json::parse(r.out);
    for (const auto& c : v.at("plugins").at(0).at("components").at(0).at("checks").as_array())
      if (c.at("check") == "destination-preserving") return json::serialize(c.at("counterexample"));
    return std::string();
  };
  EXPECT_EQ(a.exit_code, b.exit_code);
  EXPECT_FALSE(counterexample(a).empty());
  EXPECT_EQ(counterexample(a), counterexample(b));
  EXPECT_THAT(a.out, HasSubstr("\"seed\":42"));
}

TEST(AirlockCheck, AddsTheFilesOfAnOperatorCorpusToItsInputs) {
  TempConfig dir("");  // a fresh directory; the file written in it is one more input
  std::filesystem::remove(dir.path());
  std::ofstream(dir.dir() / "one.txt") << "see https://x.example/?u=https%3A%2F%2Foperator-only.example";
  auto well_formed_cases = [](const RunResult& r) {
    const json::value v = json::parse(r.out);
    for (const auto& c : v.at("plugins").at(0).at("components").at(0).at("checks").as_array())
      if (c.at("check") == "well-formed") return c.at("cases").to_number<std::int64_t>();
    return std::int64_t{-1};
  };
  const RunResult with = check({"--json", "--corpus", dir.dir().string(), plugin_file("airlock_identity").string()});
  const RunResult without = check({"--json", plugin_file("airlock_identity").string()});
  ASSERT_EQ(with.exit_code, std::optional<int>(0)) << with.err;
  ASSERT_EQ(without.exit_code, std::optional<int>(0)) << without.err;
  EXPECT_EQ(well_formed_cases(with), well_formed_cases(without) + 1);
}

TEST(AirlockCheck, ReportsAFileThatIsNotAPluginAsAFailedLoad) {
  const RunResult r = check({(kFixtureDir / "no_abi_version" / "no_abi_version.so").string()});
  ASSERT_TRUE(r.exit_code) << r.err;
  EXPECT_EQ(*r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("FAIL  load"));
  EXPECT_THAT(r.out, HasSubstr("airlock_plugin_abi_version"));
}

#ifdef AIRLOCK_TESTING_PROBE
// ---------------------------------------------------------------------------
// airlock::testing in a vendor's own GoogleTest binary.

TEST(AirlockTesting, FailsTheVendorsTestForTheCheckTheirPluginBreaks) {
  const RunResult r = run({AIRLOCK_TESTING_PROBE, contract_plugin("non_idempotent_suffix")}, 60s);
  ASSERT_TRUE(r.exit_code) << r.err;
  EXPECT_NE(*r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[  FAILED  ] Probe/ContractTest.Holds/broken_suffix_idempotence"));
  EXPECT_THAT(r.out, HasSubstr("fails the idempotence check: s(s(x)) differs from s(x)"));
  EXPECT_THAT(r.out, HasSubstr("s(s(x)):"));
  EXPECT_THAT(r.out, HasSubstr("[       OK ] Probe/ContractTest.Holds/broken_suffix_determinism"));
}

TEST(AirlockTesting, PassesAGoodPluginAndSkipsWhatDoesNotApply) {
  const RunResult r = run({AIRLOCK_TESTING_PROBE, plugin_file("example_echo").string()}, 60s);
  ASSERT_TRUE(r.exit_code) << r.err;
  EXPECT_EQ(*r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[       OK ] Probe/ContractTest.Holds/example_echo_arguments"));
  EXPECT_THAT(r.out, HasSubstr("[  SKIPPED ] Probe/ContractTest.Holds/example_echo_cancellation"));
}

TEST(AirlockTesting, FailsWhenThePluginDoesNotLoad) {
  const RunResult r = run({AIRLOCK_TESTING_PROBE, (kFixtureDir / "no_init" / "no_init.so").string()}, 60s);
  ASSERT_TRUE(r.exit_code) << r.err;
  EXPECT_NE(*r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("airlock_plugin_init"));
}
#endif

// ---------------------------------------------------------------------------

std::string require_check_config(std::initializer_list<std::filesystem::path> dirs, std::string_view on_error) {
  return "[plugins]\n" + toml_dirs(dirs) + "\non_error = \"" + std::string(on_error) + "\"\nrequire_check = true\n";
}

TEST(RequireCheck, RefusesASanitizerThatFailsNamingTheCheck) {
  TempConfig config(require_check_config({contract_dir("non_idempotent_suffix")}, "fail"));
  const RunResult r = run({kAirlockBinary, "list", "--config", config.path().string()});
  ASSERT_TRUE(r.exit_code) << r.err;
  EXPECT_EQ(*r.exit_code, 1) << r.out;
  EXPECT_THAT(r.err, HasSubstr(contract_plugin("non_idempotent_suffix") +
                               ": sanitizer 'broken.suffix' fails the idempotence check"));
}

TEST(RequireCheck, SkipsTheFailingPluginAndLoadsTheRestWithOnErrorSkip) {
  TempConfig config(require_check_config({kPluginDir, contract_dir("echoes_input_on_error")}, "skip"));
  const RunResult r = run({kAirlockBinary, "list", "--config", config.path().string()});
  ASSERT_TRUE(r.exit_code) << r.err;
  EXPECT_EQ(*r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("fails the fail-closed check"));
  EXPECT_THAT(r.out, HasSubstr("airlock.strip-control"));
  EXPECT_THAT(r.out, Not(HasSubstr("broken.echo-on-error")));
}

TEST(RequireCheck, LoadsEveryFirstPartySanitizer) {
  TempConfig config(require_check_config({kPluginDir}, "fail"));
  const RunResult r = run({kAirlockBinary, "list", "--config", config.path().string()});
  ASSERT_TRUE(r.exit_code) << r.err;
  EXPECT_EQ(*r.exit_code, 0) << r.err;
  for (const char* name : {"airlock.identity", "airlock.strip-control", "airlock.escape-markup", "airlock.inert-urls",
                           "airlock.redact-secrets", "airlock.truncate-strings"})
    EXPECT_THAT(r.out, HasSubstr(name));
}

TEST(RequireCheck, IsOffByDefault) {
  TempConfig config("[plugins]\n" + toml_dirs({contract_dir("non_idempotent_suffix")}) + "\n");
  const RunResult r = run({kAirlockBinary, "list", "--config", config.path().string()});
  ASSERT_TRUE(r.exit_code) << r.err;
  EXPECT_EQ(*r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("broken.suffix"));
}

}  // namespace
}  // namespace airlock::test
