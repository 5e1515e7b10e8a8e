// The contract harness against real plugins through the ABI: every broken
// fixture caught by the check named for its defect, with a counterexample;
// every first-party plugin and the well-behaved fixture passing; the
// load-time subset refusing what it must.
#include "check/plugin_check.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

// The racy fixtures race on purpose, and the concurrency and reentrancy
// checks must still see it by its wrong outputs; in the TSan build the race
// itself is reported, so it is suppressed for those two files alone.
// The tool checks fork once this process's checking threads have been
// joined; the children start threads of their own.
#if defined(__SANITIZE_THREAD__)
extern "C" const char* __tsan_default_suppressions() {
  return "race:racy_static_buffer.so\nrace:tool_racy_static_buffer.so\n";
}
extern "C" const char* __tsan_default_options() { return "die_after_fork=0"; }
#endif

namespace airlock::host::check {
namespace {

namespace fs = std::filesystem;
using testing::HasSubstr;

fs::path contract_plugin(const std::string& name) {
  return fs::path(AIRLOCK_CONTRACT_PLUGIN_DIR) / name / (name + ".so");
}

std::vector<fs::path> first_party_plugins() {
  std::vector<fs::path> files;
  std::stringstream in(AIRLOCK_FIRST_PARTY_PLUGINS);
  for (std::string file; std::getline(in, file, ':');) files.emplace_back(file);
  return files;
}

// One full check per plugin file, shared by the tests that look at it.
const PluginReport& report_of(const fs::path& file) {
  static std::map<fs::path, PluginReport> reports;
  auto it = reports.find(file);
  if (it == reports.end()) it = reports.emplace(file, check_plugin(file, Config{}, CheckOptions{})).first;
  return it->second;
}

const CheckResult* find_check(const PluginReport& report, std::string_view component, std::string_view check) {
  for (const auto& c : report.components)
    if (c.name == component)
      for (const auto& k : c.checks)
        if (k.check == check) return &k;
  return nullptr;
}

struct Broken {
  const char* plugin;
  const char* component;
  const char* check;
  // Whether shrinking applies: races, clocks and crashes are shown as found.
  bool shrinks;
};

const Broken kBroken[] = {
    {"nondeterministic_time", "broken.timestamp", "determinism", false},
    {"nondeterministic_rand", "broken.random-escape", "determinism", true},
    {"non_idempotent_suffix", "broken.suffix", "idempotence", true},
    {"racy_static_buffer", "broken.racy-strip", "concurrency", false},
    {"percent_decoding_normalizer", "broken.url-normalizer", "destination-preserving", true},
    {"scheme_reviver", "broken.scheme-reviver", "destination-preserving", true},
    {"echoes_input_on_error", "broken.echo-on-error", "fail-closed", true},
    {"counts_calls", "broken.seen-counter", "no-side-effects", true},
    {"non_idempotent_result", "broken.result-footer", "idempotence", true},
    {"tool_crashes_on_empty_arguments", "broken.crash-on-empty", "arguments", false},
    {"tool_breaks_output_schema", "broken.count-words", "output-schema", false},
    {"tool_racy_static_buffer", "broken.racy-upper", "reentrancy", false},
    {"tool_ignores_cancel", "broken.deaf-wait", "cancellation", false},
};

class BrokenPlugin : public testing::TestWithParam<Broken> {};

TEST_P(BrokenPlugin, IsCaughtByTheCheckNamedForItsDefectWithACounterexample) {
  const Broken& b = GetParam();
  const PluginReport& report = report_of(contract_plugin(b.plugin));
  ASSERT_FALSE(report.load_error) << *report.load_error;
  EXPECT_FALSE(report.passed());
  const CheckResult* check = find_check(report, b.component, b.check);
  ASSERT_NE(check, nullptr) << render_plugin_text(report);
  EXPECT_EQ(check->verdict, Verdict::fail) << render_plugin_text(report);
  EXPECT_FALSE(check->detail.empty());
  ASSERT_TRUE(check->example) << render_plugin_text(report);
  EXPECT_FALSE(check->example->first_label.empty()) << render_plugin_text(report);
  if (b.shrinks) {
    // The smallest counterexample: a few bytes of text (or a result around
    // them), not the corpus item it was found in.
    EXPECT_LE(check->example->input.size(), 200u) << render_plugin_text(report);
  }
}

TEST_P(BrokenPlugin, ShowsTheCheckTheCounterexampleAndTheTwoOutputsInTheReport) {
  const Broken& b = GetParam();
  const std::string text = render_plugin_text(report_of(contract_plugin(b.plugin)));
  EXPECT_THAT(text, HasSubstr(std::string("FAIL  ") + b.component + "  " + b.check));
  EXPECT_THAT(text, HasSubstr("input:"));
  EXPECT_THAT(text, HasSubstr("FAILED"));
}

std::string broken_name(const testing::TestParamInfo<Broken>& info) { return info.param.plugin; }

INSTANTIATE_TEST_SUITE_P(Fixtures, BrokenPlugin, testing::ValuesIn(kBroken), broken_name);

TEST(BrokenPlugin, PercentDecodingIsShownAsTheDestinationItMadeUp) {
  const CheckResult* check = find_check(report_of(contract_plugin("percent_decoding_normalizer")),
                                        "broken.url-normalizer", "destination-preserving");
  ASSERT_NE(check, nullptr);
  EXPECT_THAT(check->detail, HasSubstr("made up the destination"));
  ASSERT_TRUE(check->example);
  EXPECT_THAT(check->example->input, HasSubstr("%"));  // the encoded form went in
}

TEST(BrokenPlugin, SuffixIsShownAsSOfSOfXBesideSOfX) {
  const CheckResult* check =
      find_check(report_of(contract_plugin("non_idempotent_suffix")), "broken.suffix", "idempotence");
  ASSERT_NE(check, nullptr);
  ASSERT_TRUE(check->example);
  EXPECT_EQ(check->example->first_label, "s(x)");
  EXPECT_EQ(check->example->second_label, "s(s(x))");
  EXPECT_THAT(check->example->second, HasSubstr("[checked] [checked]"));
}

TEST(BrokenPlugin, CrashIsReportedAsACrashOnTheEmptyObject) {
  const CheckResult* check =
      find_check(report_of(contract_plugin("tool_crashes_on_empty_arguments")), "broken.crash-on-empty", "arguments");
  ASSERT_NE(check, nullptr);
  EXPECT_THAT(check->detail, HasSubstr("crashed"));
  ASSERT_TRUE(check->example);
  EXPECT_EQ(check->example->input, "{}");
}

// ---------------------------------------------------------------------------

class FirstPartyPlugin : public testing::TestWithParam<fs::path> {};

TEST_P(FirstPartyPlugin, PassesEveryCheck) {
  const PluginReport& report = report_of(GetParam());
  ASSERT_FALSE(report.load_error) << *report.load_error;
  ASSERT_FALSE(report.components.empty());
  EXPECT_TRUE(report.passed()) << render_plugin_text(report);
  for (const auto& c : report.components)
    for (const auto& k : c.checks) EXPECT_EQ(k.verdict, Verdict::pass) << c.name << " " << k.check;
}

TEST_P(FirstPartyPlugin, PassesTheLoadTimeSubset) {
  auto plugin = PluginLibrary::open(GetParam(), Config{});
  ASSERT_TRUE(plugin) << plugin.error().message;
  const auto vetted = vet_sanitizers(**plugin);
  EXPECT_TRUE(vetted) << vetted.error().message;
}

std::string plugin_name(const testing::TestParamInfo<fs::path>& info) { return info.param.stem().string(); }

INSTANTIATE_TEST_SUITE_P(Plugins, FirstPartyPlugin, testing::ValuesIn(first_party_plugins()), plugin_name);

TEST(WellBehavedPlugin, PassesEveryCheckOfAResultSanitizerAndOfATool) {
  const PluginReport& report = report_of(contract_plugin("well_behaved"));
  ASSERT_FALSE(report.load_error) << *report.load_error;
  EXPECT_TRUE(report.passed()) << render_plugin_text(report);
  ASSERT_EQ(report.components.size(), 2u);
  EXPECT_EQ(report.components[0].kind, "result sanitizer");
  EXPECT_EQ(report.components[1].kind, "tool");
  for (const auto& c : report.components)
    for (const auto& k : c.checks) EXPECT_EQ(k.verdict, Verdict::pass) << c.name << " " << k.check << ": " << k.detail;
}

// ---------------------------------------------------------------------------

TEST(LoadTimeSubset, RefusesANonIdempotentSanitizerNamingTheCheck) {
  const fs::path file = contract_plugin("non_idempotent_suffix");
  auto plugin = PluginLibrary::open(file, Config{});
  ASSERT_TRUE(plugin) << plugin.error().message;
  const auto vetted = vet_sanitizers(**plugin);
  ASSERT_FALSE(vetted);
  EXPECT_THAT(vetted.error().message, HasSubstr(file.string() + ": sanitizer 'broken.suffix' fails the idempotence check"));
  EXPECT_THAT(vetted.error().message, HasSubstr("plugins.require_check"));
}

TEST(LoadTimeSubset, RefusesASanitizerThatFailsOpenNamingTheCheck) {
  auto plugin = PluginLibrary::open(contract_plugin("echoes_input_on_error"), Config{});
  ASSERT_TRUE(plugin) << plugin.error().message;
  const auto vetted = vet_sanitizers(**plugin);
  ASSERT_FALSE(vetted);
  EXPECT_THAT(vetted.error().message, HasSubstr("sanitizer 'broken.echo-on-error' fails the fail-closed check"));
}

TEST(LoadTimeSubset, RefusesADecodingSanitizer) {
  auto plugin = PluginLibrary::open(contract_plugin("percent_decoding_normalizer"), Config{});
  ASSERT_TRUE(plugin) << plugin.error().message;
  EXPECT_FALSE(vet_sanitizers(**plugin));
}

TEST(LoadTimeSubset, TakesLittleTimePerSanitizer) {
  auto plugin = PluginLibrary::open(first_party_plugins().at(1), Config{});
  ASSERT_TRUE(plugin) << plugin.error().message;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(vet_sanitizers(**plugin));
  // Generous for a debug or sanitizer build; typically a few tens of ms.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

}  // namespace
}  // namespace airlock::host::check
