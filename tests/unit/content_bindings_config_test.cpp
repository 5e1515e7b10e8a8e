// Tests for [resources."<uri glob>"] and [prompts."<name glob>"] in
// airlock.toml: what they bind, in what order, and the file:line:column of
// every mistake, named like the [tools."..."] bindings'.
#include "config/host_config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace airlock::host {
namespace {

using testing::HasSubstr;

Result<Config> parse(std::string_view text) { return parse_config(text, "airlock.toml"); }

std::string error_of(std::string_view text) {
  const auto config = parse(text);
  EXPECT_FALSE(config.has_value()) << "config parsed, but an error was expected";
  return config.has_value() ? std::string() : config.error().message;
}

constexpr std::string_view kChains = R"([chains.default]
steps = ["a.b"]
[chains.strict]
steps = ["a.b", "c.d"]
)";

TEST(ContentBindings, BindChainsToResourceGlobsAndPromptNamesInFileOrder) {
  const auto config = parse(std::string(kChains) + R"(
[resources."file:///secret/*"]
chain = "strict"
[resources."docs://*"]
chain = "none"
[resources."*"]
chain = "default"
[prompts."summarize"]
chain = "strict"
)");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  ASSERT_EQ(config->resources.size(), 3u);
  EXPECT_EQ(config->resources[0].pattern, "file:///secret/*");
  EXPECT_EQ(config->resources[0].chain, "strict");
  EXPECT_EQ(config->resources[1].pattern, "docs://*");
  EXPECT_EQ(config->resources[1].chain, "none");
  EXPECT_EQ(config->resources[2].pattern, "*");
  EXPECT_EQ(config->resources[0].place.line, 6u);
  ASSERT_EQ(config->prompts.size(), 1u);
  EXPECT_EQ(config->prompts[0].pattern, "summarize");
  EXPECT_EQ(config->prompts[0].chain, "strict");
}

TEST(ContentBindings, AnUndeclaredChainIsNamedWithItsPlace) {
  EXPECT_EQ(error_of(std::string(kChains) + R"(
[resources."docs://*"]
chain = "missing"
)"),
            "airlock.toml:7:9: resources.\"docs://*\".chain: chain \"missing\" is not declared");
  EXPECT_EQ(error_of(std::string(kChains) + R"(
[prompts.summarize]
chain = "nope"
)"),
            "airlock.toml:7:9: prompts.summarize.chain: chain \"nope\" is not declared");
}

TEST(ContentBindings, UnknownKeysAndWrongTypesAreErrors) {
  EXPECT_THAT(error_of(R"([resources."docs://*"]
timeout_ms = 5
)"),
              HasSubstr("airlock.toml:2:1: unknown key 'timeout_ms' in [resources.\"docs://*\"]"));
  EXPECT_THAT(error_of(R"([prompts.x]
chain = 3
)"),
              HasSubstr("prompts.x.chain: expected a string, got 3"));
  EXPECT_THAT(error_of("resources = 1\n"), HasSubstr("resources: expected a table, got 1"));
}

TEST(ContentBindings, ADottedPromptNameMustBeQuoted) {
  EXPECT_THAT(error_of(R"([prompts.acme.summary]
chain = "none"
)"),
              HasSubstr("(quote a name that holds a dot: [prompts.\"acme.summary\"])"));
}

TEST(ContentBindings, AnEmptyPatternIsAnError) {
  EXPECT_THAT(error_of(R"([resources.""]
chain = "none"
)"),
              HasSubstr("a resource URI or glob cannot be empty"));
}

}  // namespace
}  // namespace airlock::host
