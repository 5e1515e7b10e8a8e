// [trust] and [pinning] (config/plugin_sections.cpp).
#include "config_test_support.hpp"

#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;
using config_test::error_of;
using config_test::parse;
using testing::HasSubstr;

// --- [trust] and [pinning]

constexpr std::string_view kMinisignKey = "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3";

TEST(HostConfigTrust, ReadsInlineKeysFilesAndUnsignedDirs) {
  const fs::path dir = fs::temp_directory_path() / ("airlock-trust-" + std::to_string(::getpid()));
  fs::create_directories(dir / "keys");
  std::ofstream(dir / "keys" / "acme.pub") << "untrusted comment: minisign public key\n" << kMinisignKey << "\n";
  std::ofstream(dir / "airlock.toml") << "[trust]\nkeys = [\"" << kMinisignKey
                                      << "\", \"keys/acme.pub\"]\nrequire_signed = true\n"
                                         "unsigned_dirs = [\"/usr/lib/airlock/plugins\", \"vendor\"]\n";
  const auto config = load_config(dir / "airlock.toml");
  fs::remove_all(dir);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  ASSERT_EQ(config->trust.keys.size(), 2u);
  EXPECT_EQ(config->trust.keys[0].text, kMinisignKey);
  EXPECT_EQ(config->trust.keys[0].place.key, "trust.keys[0]");
  EXPECT_THAT(config->trust.keys[1].text, HasSubstr("untrusted comment"));
  EXPECT_THAT(config->trust.keys[1].place.key, HasSubstr("acme.pub"));
  EXPECT_TRUE(config->trust.require_signed);
  ASSERT_EQ(config->trust.unsigned_dirs.size(), 2u);
  EXPECT_EQ(config->trust.unsigned_dirs[0], "/usr/lib/airlock/plugins");
  EXPECT_EQ(config->trust.unsigned_dirs[1], dir / "vendor");
}

TEST(HostConfigTrust, TrustsNothingAndRequiresNothingByDefault) {
  const auto config = parse("");
  ASSERT_TRUE(config.has_value());
  EXPECT_TRUE(config->trust.keys.empty());
  EXPECT_FALSE(config->trust.require_signed);
  EXPECT_FALSE(config->pinning.file.has_value());
}

TEST(HostConfigTrust, NamesAKeyFileThatCannotBeRead) {
  const auto message = error_of("[trust]\nkeys = [\"/nonexistent/acme.pub\"]\n");
  EXPECT_THAT(message, HasSubstr("airlock.toml:2:"));
  EXPECT_THAT(message, HasSubstr("/nonexistent/acme.pub"));
}

TEST(HostConfigTrust, RejectsUnknownKeysAndWrongTypes) {
  EXPECT_THAT(error_of("[trust]\nrequire_sigend = true\n"), HasSubstr("require_sigend"));
  EXPECT_THAT(error_of("[trust]\nrequire_signed = \"yes\"\n"), HasSubstr("trust.require_signed"));
  EXPECT_THAT(error_of("[trust]\nkeys = \"RW\"\n"), HasSubstr("expected an array of strings"));
}

TEST(HostConfigPinning, ResolvesTheFileAndReadsThePolicy) {
  const auto config = parse("[pinning]\nfile = \"state/pins.json\"\non_definition_change = \"warn\"\n");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  ASSERT_TRUE(config->pinning.file.has_value());
  EXPECT_TRUE(config->pinning.file->is_absolute());
  EXPECT_EQ(config->pinning.file->filename(), "pins.json");
  EXPECT_EQ(config->pinning.on_definition_change, OnDefinitionChange::warn);
  const auto strict = parse("[pinning]\nfile = \"pins.json\"\n");
  ASSERT_TRUE(strict.has_value());
  EXPECT_EQ(strict->pinning.on_definition_change, OnDefinitionChange::refuse);
}

TEST(HostConfigPinning, RejectsABadPolicyAnEmptyFileAndAPolicyWithoutAFile) {
  EXPECT_THAT(error_of("[pinning]\nfile = \"p.json\"\non_definition_change = \"ignore\"\n"),
              HasSubstr("\"refuse\""));
  EXPECT_THAT(error_of("[pinning]\nfile = \"\"\n"), HasSubstr("pinning.file"));
  EXPECT_THAT(error_of("[pinning]\non_definition_change = \"warn\"\n"), HasSubstr("missing key 'file'"));
}

}  // namespace
}  // namespace airlock::host
