// Tests for loading one plugin file: the ELF check, the ABI handshake, init,
// and what a good plugin registers. Every fixture is a real shared object from
// tests/fixtures, named after the failure it causes.
#include "plugins/plugin_library.hpp"

#include "config/host_config.hpp"
#include "unit_support.hpp"

#include <airlock/airlock.h>
#include <boost/json/parse.hpp>
#include <elf.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace airlock::host {
namespace {

using testing::HasSubstr;
using unit::fixture_file;
using unit::plugin_file;
namespace fs = std::filesystem;

// The error opening `file` must produce; fails the test when it loads.
std::string open_error(const fs::path& file) {
  const Config config;
  auto plugin = PluginLibrary::open(file, config);
  EXPECT_FALSE(plugin.has_value()) << file << " loaded, but an error was expected";
  return plugin.has_value() ? std::string() : plugin.error().message;
}

std::shared_ptr<PluginLibrary> open_ok(const fs::path& file) {
  const Config config;
  auto plugin = PluginLibrary::open(file, config);
  if (!plugin) throw std::runtime_error(plugin.error().message);
  return *plugin;
}

const Tool* tool_named(const PluginLibrary& plugin, std::string_view name) {
  for (const auto& tool : plugin.ctx().tools)
    if (tool.name == name) return &tool;
  return nullptr;
}

const Sanitizer* sanitizer_named(const PluginLibrary& plugin, std::string_view name) {
  for (const auto& s : plugin.ctx().sanitizers)
    if (s.name == name) return &s;
  return nullptr;
}

// A copy of a good plugin with byte `at` of its ELF header set to `value`.
fs::path patched_copy(const unit::TempDir& dir, const std::string& name, std::size_t at, unsigned char value) {
  std::ifstream in(fixture_file("no_op"), std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() <= at) throw std::runtime_error("no_op.so is too short to patch");
  bytes[at] = static_cast<char>(value);
  const fs::path out = dir.path() / name;
  std::ofstream(out, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return out;
}

// "host 1.N" as this host reports its own ABI.
const std::string kHostAbi =
    "host " + std::to_string(AIRLOCK_ABI_VERSION_MAJOR) + "." + std::to_string(AIRLOCK_ABI_VERSION_MINOR);

// --- refused before any plugin code runs

TEST(PluginLibrary, RejectsATextFileNamedSo) {
  const fs::path file = fixture_file("not_a_shared_object");
  const std::string error = open_error(file);
  EXPECT_THAT(error, HasSubstr(file.string() + ": "));
  EXPECT_THAT(error, HasSubstr("not a shared object"));
}

TEST(PluginLibrary, RejectsAPluginBuiltForAnotherArchitecture) {
  const fs::path file = fixture_file("wrong_architecture");
  const std::string error = open_error(file);
  EXPECT_THAT(error, HasSubstr(file.string() + ": "));
  EXPECT_THAT(error, HasSubstr("wrong architecture"));
  EXPECT_THAT(error, HasSubstr("aarch64"));
}

TEST(PluginLibrary, RejectsAMissingFileNamingIt) {
  const fs::path file = unit::kFixtureDir / "no_such_plugin" / "no_such_plugin.so";
  const std::string error = open_error(file);
  EXPECT_THAT(error, HasSubstr(file.string() + ": "));
  EXPECT_THAT(error, HasSubstr("cannot open"));
}

TEST(PluginLibrary, RejectsASharedObjectWithoutTheAbiVersionEntryPoint) {
  const fs::path file = fixture_file("no_abi_version");
  const std::string error = open_error(file);
  EXPECT_THAT(error, HasSubstr(file.string() + ": "));
  EXPECT_THAT(error, HasSubstr("no entry point airlock_plugin_abi_version"));
}

TEST(PluginLibrary, RejectsASharedObjectWithoutTheInitEntryPoint) {
  const fs::path file = fixture_file("no_init");
  const std::string error = open_error(file);
  EXPECT_THAT(error, HasSubstr(file.string() + ": "));
  EXPECT_THAT(error, HasSubstr("no entry point airlock_plugin_init"));
}

// Both ABI fixtures abort in init: reaching the assertions proves the host
// refused them without calling it.
TEST(PluginLibrary, RejectsPluginBuiltForNewerMajorAbi) {
  const fs::path file = fixture_file("abi_major_too_new");
  const std::string error = open_error(file);
  EXPECT_THAT(error, HasSubstr(file.string() + ": "));
  EXPECT_THAT(error, HasSubstr("abi 2.0 is not loadable by " + kHostAbi));
}

TEST(PluginLibrary, RejectsPluginBuiltForNewerMinorAbi) {
  const fs::path file = fixture_file("abi_minor_too_new");
  const std::string error = open_error(file);
  EXPECT_THAT(error, HasSubstr(file.string() + ": "));
  EXPECT_THAT(error, HasSubstr("abi 1.99 is not loadable by " + kHostAbi));
}

// --- refused by what init says or registers

TEST(PluginLibrary, ReportsThePluginsOwnReasonWhenInitFails) {
  const fs::path file = fixture_file("init_fails");
  const std::string error = open_error(file);
  EXPECT_THAT(error, HasSubstr(file.string() + ": "));
  EXPECT_THAT(error, HasSubstr("init failed: missing setting 'api_key'"));
}

TEST(PluginLibrary, RejectsAToolWhoseInputSchemaIsNotJson) {
  const fs::path file = fixture_file("invalid_schema");
  const std::string error = open_error(file);
  EXPECT_THAT(error, HasSubstr(file.string() + ": "));
  EXPECT_THAT(error, HasSubstr("bad.schema"));
  EXPECT_THAT(error, HasSubstr("input_schema is not valid JSON"));
}

// --- good plugins

TEST(PluginLibrary, LoadsAGoodPluginAndKeepsItsName) {
  const auto plugin = open_ok(fixture_file("canary"));
  EXPECT_EQ(plugin->file(), fixture_file("canary"));
  EXPECT_EQ(plugin->abi_version(), AIRLOCK_ABI_VERSION);
  EXPECT_EQ(plugin->ctx().name, "canary");
  EXPECT_EQ(plugin->ctx().version, "1.0.0");
  EXPECT_FALSE(plugin->ctx().in_init);
}

TEST(PluginLibrary, RegistersEveryToolWithItsFlags) {
  const auto plugin = open_ok(fixture_file("canary"));
  std::vector<std::string> names;
  for (const auto& tool : plugin->ctx().tools) names.push_back(tool.name);
  EXPECT_THAT(names, testing::UnorderedElementsAre("canary.echo", "canary.throws", "canary.slow", "canary.structured"));

  const Tool* slow = tool_named(*plugin, "canary.slow");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->flags, AIRLOCK_TOOL_CANCELLABLE | AIRLOCK_TOOL_REENTRANT);
  EXPECT_TRUE(slow->cancellable());
  EXPECT_TRUE(slow->reentrant());
  EXPECT_NE(slow->on_call, nullptr);

  const Tool* echo = tool_named(*plugin, "canary.echo");
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(echo->flags, AIRLOCK_TOOL_REENTRANT);
  EXPECT_FALSE(echo->cancellable());
}

TEST(PluginLibrary, ParsesTheInputSchemaIntoJson) {
  const auto plugin = open_ok(fixture_file("canary"));
  const Tool* echo = tool_named(*plugin, "canary.echo");
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(boost::json::value(echo->input_schema),
            boost::json::parse(
                R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})"));
  EXPECT_FALSE(echo->output_schema.has_value());
  EXPECT_FALSE(echo->annotations.has_value());
}

TEST(PluginLibrary, GivesAToolWithoutSchemaTheEmptyObjectSchema) {
  const auto plugin = open_ok(fixture_file("canary"));
  const Tool* throws = tool_named(*plugin, "canary.throws");
  ASSERT_NE(throws, nullptr);
  EXPECT_EQ(boost::json::value(throws->input_schema), boost::json::parse(R"({"type":"object"})"));
}

TEST(PluginLibrary, KeepsTitleDescriptionAndParsedAnnotations) {
  if (!unit::kExamplesBuilt) GTEST_SKIP() << "examples are not built (AIRLOCK_BUILD_EXAMPLES=OFF)";
  const auto plugin = open_ok(plugin_file("example_echo"));
  const Tool* echo = tool_named(*plugin, "example.echo");
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(echo->title, "Echo");
  EXPECT_EQ(echo->description, "Returns the given text unchanged, as text content.");
  ASSERT_TRUE(echo->annotations.has_value());
  EXPECT_EQ(boost::json::value(*echo->annotations),
            boost::json::parse(R"({"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false})"));
}

TEST(PluginLibrary, RegistersTextAndResultSanitizersByKind) {
  const auto plugin = open_ok(fixture_file("canary"));
  std::vector<std::string> names;
  for (const auto& s : plugin->ctx().sanitizers) names.push_back(s.name);
  EXPECT_THAT(names, testing::UnorderedElementsAre("canary.fail", "canary.bad-output", "canary.throwing",
                                                    "canary.redact"));

  const Sanitizer* redact = sanitizer_named(*plugin, "canary.redact");
  ASSERT_NE(redact, nullptr);
  EXPECT_EQ(redact->kind, SanitizerKind::text);
  EXPECT_NE(redact->on_text, nullptr);
  EXPECT_EQ(redact->on_result, nullptr);

  const Sanitizer* bad_output = sanitizer_named(*plugin, "canary.bad-output");
  ASSERT_NE(bad_output, nullptr);
  EXPECT_EQ(bad_output->kind, SanitizerKind::result);
  EXPECT_EQ(bad_output->on_text, nullptr);
  EXPECT_NE(bad_output->on_result, nullptr);
}

TEST(PluginLibrary, LoadsAPluginInPlainC) {
  const auto plugin = open_ok(plugin_file("airlock_identity"));
  EXPECT_EQ(plugin->ctx().name, "airlock-identity");
  ASSERT_EQ(plugin->ctx().sanitizers.size(), 1u);
  EXPECT_EQ(plugin->ctx().sanitizers[0].name, "airlock.identity");
  EXPECT_EQ(plugin->ctx().sanitizers[0].kind, SanitizerKind::text);
  EXPECT_TRUE(plugin->ctx().tools.empty());
}

TEST(PluginLibrary, LoadsAPluginBuiltAgainstTheFrozenAbi10Header) {
  const auto plugin = open_ok(fixture_file("frozen_abi_1_0"));
  EXPECT_EQ(plugin->abi_version(), 1u << 16);
  EXPECT_EQ(plugin->ctx().name, "frozen-abi-1-0");
  ASSERT_EQ(plugin->ctx().tools.size(), 1u);
  EXPECT_EQ(plugin->ctx().tools[0].name, "frozen.echo");
  EXPECT_EQ(plugin->ctx().tools[0].flags, AIRLOCK_TOOL_REENTRANT);
  ASSERT_EQ(plugin->ctx().sanitizers.size(), 1u);
  EXPECT_EQ(plugin->ctx().sanitizers[0].name, "frozen.keep");
}

TEST(PluginLibrary, LoadsTheSamePluginTwiceIndependently) {
  const auto first = open_ok(fixture_file("duplicate_tool_a"));
  const auto second = open_ok(fixture_file("duplicate_tool_a"));
  EXPECT_NE(&first->ctx(), &second->ctx());
  EXPECT_EQ(first->ctx().tools.size(), 1u);
  EXPECT_EQ(second->ctx().tools.size(), 1u);
}

// --- check_elf_header on its own

TEST(CheckElfHeader, AcceptsASharedObjectForThisHost) {
  EXPECT_EQ(check_elf_header(fixture_file("no_op")), std::nullopt);
  EXPECT_EQ(check_elf_header(fixture_file("canary")), std::nullopt);
}

TEST(CheckElfHeader, SaysATextFileHasNoElfHeader) {
  const auto why = check_elf_header(fixture_file("not_a_shared_object"));
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, HasSubstr("not a shared object (no ELF header)"));
}

TEST(CheckElfHeader, SaysATruncatedHeaderIsNoElfHeader) {
  const unit::TempDir dir("elf");
  const fs::path file = dir.path() / "short.so";
  std::ofstream(file, std::ios::binary) << "\x7f" "ELF\x02\x01";
  const auto why = check_elf_header(file);
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, HasSubstr("not a shared object"));
}

TEST(CheckElfHeader, NamesBothArchitecturesWhenTheyDiffer) {
  const auto why = check_elf_header(fixture_file("wrong_architecture"));
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, HasSubstr("wrong architecture: built for aarch64"));
#if defined(__x86_64__)
  EXPECT_THAT(*why, HasSubstr("this host is x86_64"));
#endif
}

TEST(CheckElfHeader, RejectsA32BitElfOnA64BitHost) {
  if (sizeof(void*) != 8) GTEST_SKIP() << "the host is not 64-bit";
  const unit::TempDir dir("elf");
  const auto file = patched_copy(dir, "elf32.so", EI_CLASS, ELFCLASS32);
  const auto why = check_elf_header(file);
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, HasSubstr("wrong architecture: 32-bit ELF"));
}

TEST(CheckElfHeader, RejectsAnElfFileThatIsNotASharedObject) {
  const unit::TempDir dir("elf");
  const auto file = patched_copy(dir, "relocatable.so", 16, ET_REL);  // e_type, little-endian low byte
  const auto why = check_elf_header(file);
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, HasSubstr("not a shared object (ELF, but not ET_DYN)"));
}

TEST(CheckElfHeader, SaysAMissingFileCannotBeOpened) {
  const auto why = check_elf_header(unit::kFixtureDir / "nothing-here.so");
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, HasSubstr("cannot open"));
}

}  // namespace
}  // namespace airlock::host
