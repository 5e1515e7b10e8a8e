// Tests for loading the configured plugin directories: which files count, the
// order of tools, name clashes, and what on_error = "skip" forgives.
#include "plugins/plugin_registry.hpp"
#include "plugins/plugin_library.hpp"

#include "unit_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace airlock::host {
namespace {

using testing::ElementsAre;
using testing::HasSubstr;
using unit::config_with_dirs;
using unit::fixture_dir;
using unit::fixture_file;
using unit::load_registry;
namespace fs = std::filesystem;

// The error loading `config` must produce; fails the test when it loads.
std::string load_error(const Config& config) {
  auto registry = PluginRegistry::load(config);
  EXPECT_FALSE(registry.has_value()) << "registry loaded, but an error was expected";
  return registry.has_value() ? std::string() : registry.error().message;
}

std::vector<std::string> tool_names(const PluginRegistry& registry) {
  std::vector<std::string> names;
  for (const Tool* tool : registry.tools()) names.push_back(tool->name);
  return names;
}

// --- clashes and failures

TEST(PluginRegistry, RefusesTheSameToolFromTwoDirectoriesNamingBothFiles) {
  const std::string error =
      load_error(config_with_dirs({fixture_dir("duplicate_tool_a"), fixture_dir("duplicate_tool_b")}));
  EXPECT_THAT(error, HasSubstr("'dup.tool'"));
  EXPECT_THAT(error, HasSubstr(fixture_file("duplicate_tool_a").string()));
  EXPECT_THAT(error, HasSubstr(fixture_file("duplicate_tool_b").string()));
  // The second file is the subject; the first one already holds the name.
  EXPECT_EQ(error.rfind(fixture_file("duplicate_tool_b").string(), 0), 0u) << error;
  EXPECT_THAT(error, HasSubstr("is already registered by " + fixture_file("duplicate_tool_a").string()));
}

TEST(PluginRegistry, RefusesASanitizerNameAlreadyTakenNamingBothFiles) {
  // airlock.identity registers one sanitizer and no tool.
  const unit::TempDir dir("registry");
  fs::copy_file(unit::plugin_file("airlock_identity"), dir.path() / "a.so");
  fs::copy_file(unit::plugin_file("airlock_identity"), dir.path() / "b.so");
  const std::string error = load_error(config_with_dirs({dir.path()}));
  EXPECT_THAT(error, HasSubstr((dir.path() / "b.so").string() + ": sanitizer 'airlock.identity' is already "
                               "registered by " + (dir.path() / "a.so").string()));
}

TEST(PluginRegistry, RefusesTheSamePluginDirectoryListedTwice) {
  const std::string error = load_error(config_with_dirs({fixture_dir("canary"), fixture_dir("canary")}));
  EXPECT_THAT(error, HasSubstr("is already registered by " + fixture_file("canary").string()));
}

TEST(PluginRegistry, FailsOnTheFirstBadPluginByDefault) {
  const std::string error = load_error(config_with_dirs({fixture_dir("canary"), fixture_dir("init_fails")}));
  EXPECT_THAT(error, HasSubstr(fixture_file("init_fails").string()));
  EXPECT_THAT(error, HasSubstr("init failed"));
}

TEST(PluginRegistry, FailsOnAMissingDirectoryNamingIt) {
  const fs::path missing = unit::kFixtureDir / "no_such_directory";
  const std::string error = load_error(config_with_dirs({missing}));
  EXPECT_THAT(error, HasSubstr(missing.string()));
  EXPECT_THAT(error, HasSubstr("cannot read plugin directory"));
}

// --- on_error = "skip"

TEST(PluginRegistry, SkipKeepsTheFirstOfTwoClashingPluginsAndCountsTheOther) {
  const auto registry =
      load_registry(config_with_dirs({fixture_dir("duplicate_tool_a"), fixture_dir("duplicate_tool_b"),
                                      fixture_dir("canary")},
                                     OnPluginError::skip));
  EXPECT_EQ(registry->skipped(), 1u);
  const Tool* dup = registry->find_tool("dup.tool");
  ASSERT_NE(dup, nullptr);
  EXPECT_EQ(PluginRegistry::file_of(dup->owner), fixture_file("duplicate_tool_a").string());
  EXPECT_NE(registry->find_tool("canary.echo"), nullptr);
  ASSERT_EQ(registry->plugins().size(), 2u);
  EXPECT_EQ(registry->plugins()[0]->ctx().name, "dup-a");
  EXPECT_EQ(registry->plugins()[1]->ctx().name, "canary");
}

TEST(PluginRegistry, SkipLoadsTheRestAfterUnloadablePlugins) {
  const auto registry = load_registry(config_with_dirs(
      {fixture_dir("not_a_shared_object"), fixture_dir("wrong_architecture"), fixture_dir("abi_major_too_new"),
       fixture_dir("init_fails"), fixture_dir("invalid_schema"), fixture_dir("canary")},
      OnPluginError::skip));
  EXPECT_EQ(registry->skipped(), 5u);
  ASSERT_EQ(registry->plugins().size(), 1u);
  EXPECT_EQ(registry->plugins()[0]->ctx().name, "canary");
  EXPECT_EQ(registry->find_tool("bad.schema"), nullptr);
}

TEST(PluginRegistry, SkipCountsAMissingDirectory) {
  const auto registry = load_registry(config_with_dirs(
      {unit::kFixtureDir / "no_such_directory", fixture_dir("canary")}, OnPluginError::skip));
  EXPECT_EQ(registry->skipped(), 1u);
  EXPECT_NE(registry->find_tool("canary.echo"), nullptr);
}

TEST(PluginRegistry, CountsNothingSkippedWhenEveryPluginLoads) {
  const auto registry = load_registry(config_with_dirs({fixture_dir("canary")}, OnPluginError::skip));
  EXPECT_EQ(registry->skipped(), 0u);
}

// --- what a loaded registry offers

TEST(PluginRegistry, ListsToolsSortedByNameNotByLoadOrder) {
  // Loaded frozen.echo first, then canary's in registration order (echo,
  // throws, slow, structured), then the plugin directory.
  const auto registry = load_registry(
      config_with_dirs({fixture_dir("frozen_abi_1_0"), fixture_dir("canary"), unit::kPluginDir}));
  std::vector<std::string> expected = {"canary.echo", "canary.slow", "canary.structured", "canary.throws"};
  if (unit::kExamplesBuilt) {
    expected.push_back("example.echo");
    expected.push_back("example.hello-c");
  }
  expected.push_back("fetch");  // airlock.fetch, first party, under its default name
  expected.push_back("frozen.echo");
  EXPECT_EQ(tool_names(*registry), expected);
}

TEST(PluginRegistry, FindsToolsByExactName) {
  const auto registry = load_registry(config_with_dirs({fixture_dir("canary")}));
  const Tool* echo = registry->find_tool("canary.echo");
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(echo->name, "canary.echo");
  EXPECT_EQ(PluginRegistry::file_of(echo->owner), fixture_file("canary").string());
  EXPECT_EQ(registry->find_tool("canary.nope"), nullptr);
  EXPECT_EQ(registry->find_tool("canary"), nullptr);
  EXPECT_EQ(registry->find_tool("CANARY.ECHO"), nullptr);
  EXPECT_EQ(registry->find_tool("canary.redact"), nullptr);  // a sanitizer, not a tool
}

TEST(PluginRegistry, FindsSanitizersByExactName) {
  const auto registry = load_registry(config_with_dirs({fixture_dir("canary"), unit::kPluginDir}));
  const Sanitizer* strip = registry->find_sanitizer("airlock.strip-control");
  ASSERT_NE(strip, nullptr);
  EXPECT_EQ(strip->kind, SanitizerKind::text);
  EXPECT_EQ(PluginRegistry::file_of(strip->owner), unit::plugin_file("airlock_strip_control").string());
  const Sanitizer* bad_output = registry->find_sanitizer("canary.bad-output");
  ASSERT_NE(bad_output, nullptr);
  EXPECT_EQ(bad_output->kind, SanitizerKind::result);
  EXPECT_EQ(registry->find_sanitizer("airlock.strip"), nullptr);
  EXPECT_EQ(registry->find_sanitizer("canary.echo"), nullptr);  // a tool, not a sanitizer
}

TEST(PluginRegistry, LoadsNothingFromNoDirectories) {
  const auto registry = load_registry(config_with_dirs({}));
  EXPECT_TRUE(registry->tools().empty());
  EXPECT_TRUE(registry->sanitizers().empty());
  EXPECT_TRUE(registry->plugins().empty());
}

TEST(PluginRegistry, LoadsOnlyRegularSoFilesAndFollowsSymlinks) {
  const unit::TempDir dir("registry");
  std::ofstream(dir.path() / "README.txt") << "not a plugin";
  fs::create_directory(dir.path() / "subdir.so");
  fs::copy_file(fixture_file("not_a_shared_object"), dir.path() / "notes.so.txt");
  fs::create_symlink(fixture_file("canary"), dir.path() / "canary-link.so");
  const auto registry = load_registry(config_with_dirs({dir.path()}));
  ASSERT_EQ(registry->plugins().size(), 1u);
  EXPECT_EQ(registry->plugins()[0]->ctx().name, "canary");
  EXPECT_NE(registry->find_tool("canary.echo"), nullptr);
}

TEST(PluginRegistry, LoadsTheFilesOfOneDirectoryInNameOrder) {
  const unit::TempDir dir("registry");
  // Copied under names that sort opposite to their plugin names.
  fs::copy_file(fixture_file("duplicate_tool_a"), dir.path() / "b.so");
  fs::copy_file(fixture_file("canary"), dir.path() / "a.so");
  const auto registry = load_registry(config_with_dirs({dir.path()}));
  ASSERT_EQ(registry->plugins().size(), 2u);
  EXPECT_EQ(registry->plugins()[0]->ctx().name, "canary");
  EXPECT_EQ(registry->plugins()[1]->ctx().name, "dup-a");
}

TEST(PluginRegistry, LeavesNoOwnershipCycleBetweenAPluginAndItsTools) {
  std::shared_ptr<PluginLibrary> owner;
  {
    const auto registry = load_registry(config_with_dirs({fixture_dir("canary")}));
    owner = registry->find_tool("canary.echo")->owner;
    EXPECT_EQ(owner, registry->plugins()[0]);
  }
  // Only this test holds the plugin now: its context kept no tool (which
  // would own the plugin back).
  ASSERT_NE(owner, nullptr);
  EXPECT_EQ(owner->ctx().name, "canary");
  EXPECT_TRUE(owner->ctx().tools.empty());
  EXPECT_EQ(owner.use_count(), 1);
}

}  // namespace
}  // namespace airlock::host
