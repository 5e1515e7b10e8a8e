// [chains], [tools], [resources], [prompts] (config/binding_sections.cpp).
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

// --- chains and bindings

TEST(HostConfig, RejectsBindingNamingUndeclaredChainAtTheChainValue) {
  EXPECT_EQ(error_of(R"([chains.default]
steps = []

[tools."acme.search"]
timeout_ms = 100
chain = "defualt"
)"),
            "airlock.toml:6:9: tools.\"acme.search\".chain: chain \"defualt\" is not declared");
}

TEST(HostConfig, AcceptsBindingToChainNoneWithoutDeclaringIt) {
  const auto config = parse("[tools.\"*\"]\nchain = \"none\"\n");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->tools.at(0).chain, "none");
}

TEST(HostConfig, RejectsDeclaredChainNamedNone) {
  const auto error = error_of("[chains.none]\nsteps = []\n");
  EXPECT_THAT(error, HasSubstr("airlock.toml:1:9: chains.none: \"none\" is reserved"));
}

TEST(HostConfig, RejectsChainNameOutsideTheBareKeyAlphabet) {
  EXPECT_EQ(error_of("[chains.\"my.chain\"]\nsteps = []\n"),
            "airlock.toml:1:9: chains.\"my.chain\": a chain name may hold only letters, digits, "
            "'_' and '-'");
}

TEST(HostConfig, RejectsChainWithoutSteps) {
  EXPECT_EQ(error_of("[server]\n\n[chains.default]\n"),
            "airlock.toml:3:1: chains.default: missing key 'steps'");
}

TEST(HostConfig, RejectsEmptyToolPattern) {
  EXPECT_EQ(error_of("[tools.\"\"]\ntimeout_ms = 1\n"),
            "airlock.toml:1:8: tools.\"\": a tool name or glob cannot be empty");
}

TEST(HostConfig, ReportsTheEarliestProblemInTheFile) {
  // toml++ orders keys by name, so a walk meets [chains] before [server].
  EXPECT_EQ(error_of(R"([server]
workers = 0
[chains.default]
steps = [1]
)"),
            "airlock.toml:2:11: server.workers: expected an integer from 1 to 256, got 0");
}

}  // namespace
}  // namespace airlock::host
