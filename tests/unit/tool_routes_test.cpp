// ToolRoutes: what the configuration binds to each loaded tool (chain,
// mirror, deadline, budget, egress), first match in file order per setting,
// and the errors that name the line of a binding nothing answers. Real
// config text through the real reader, and the canary fixture loaded
// through the ABI.
#include "config/host_config.hpp"
#include "pipeline/tool_routes.hpp"
#include "unit_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace airlock::host {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The canary fixture's directory, then `rest`.
std::string config_text(const std::string& rest) {
  return "[plugins]\ndirs = [\"" + unit::fixture_dir("canary").string() + "\"]\n" + rest;
}

Config parsed(const std::string& rest) {
  auto config = parse_config(config_text(rest), "routes.toml");
  if (!config) throw std::runtime_error(config.error().message);
  return std::move(*config);
}

struct Built {
  Config config;
  std::unique_ptr<PluginRegistry> registry;
  Result<std::unique_ptr<ToolRoutes>> routes;
};

Built build(const std::string& rest) {
  Config config = parsed(rest);
  auto registry = unit::load_registry(config);
  auto routes = ToolRoutes::build(config, *registry);
  return Built{std::move(config), std::move(registry), std::move(routes)};
}

TEST(ToolRoutes, EachSettingComesFromTheFirstMatchingTableInFileOrder) {
  const Built built = build(R"(
[chains.default]
steps = ["canary.redact"]

[chains.strict]
steps = ["canary.redact", "canary.redact"]

[tools."canary.s*"]
timeout_ms = 500
max_result_bytes = 4096

[tools."canary.*"]
timeout_ms = 100
mirror = "none"

[tools."canary.echo"]
chain = "none"

[tools."canary.structured"]
chain = "strict"
)");
  ASSERT_TRUE(built.routes) << built.routes.error().message;
  const ToolRoutes& routes = **built.routes;

  const ToolRoute* echo = routes.find("canary.echo");
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(echo->chain, nullptr) << "chain = \"none\" runs the tool with no chain";
  EXPECT_EQ(echo->timeout_ms, 100u);
  EXPECT_EQ(echo->mirror, Mirror::none);
  EXPECT_EQ(echo->max_result_bytes, std::size_t{1} << 20) << "the server's budget where no table sets one";

  const ToolRoute* slow = routes.find("canary.slow");
  ASSERT_NE(slow, nullptr);
  ASSERT_NE(slow->chain, nullptr);
  EXPECT_EQ(slow->chain->name(), "default") << "no table binds a chain: the default chain";
  EXPECT_EQ(slow->timeout_ms, 500u) << "canary.s* comes first in the file";
  EXPECT_EQ(slow->max_result_bytes, 4096u);
  EXPECT_EQ(slow->mirror, Mirror::none) << "the first table that sets mirror";

  const ToolRoute* structured = routes.find("canary.structured");
  ASSERT_NE(structured, nullptr);
  ASSERT_NE(structured->chain, nullptr);
  EXPECT_EQ(structured->chain->name(), "strict");
  EXPECT_EQ(structured->timeout_ms, 500u);

  EXPECT_EQ(routes.find("canary.unknown"), nullptr);
}

TEST(ToolRoutes, WithoutADefaultChainAToolRunsWithNone) {
  const Built built = build("");
  ASSERT_TRUE(built.routes) << built.routes.error().message;
  const ToolRoute* echo = (*built.routes)->find("canary.echo");
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(echo->chain, nullptr);
  EXPECT_FALSE(echo->timeout_ms);
  EXPECT_EQ(echo->mirror, Mirror::text);
}

TEST(ToolRoutes, ListsEveryLoadedToolOnceInNameOrder) {
  const Built built = build("");
  ASSERT_TRUE(built.routes) << built.routes.error().message;
  std::vector<std::string> names;
  for (const ToolRoute* route : (*built.routes)->sorted()) names.push_back(route->tool->name);
  EXPECT_EQ(names.size(), built.registry->tools().size());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "canary.echo"), names.end());
}

TEST(ToolRoutes, EgressIsWhatTheFirstMatchingTableGrantsAndNothingElsewhere) {
  const Built built = build(R"(
[tools."canary.echo"]
egress = ["https://api.example.org", "http://docs.test:8080"]

[tools."canary.*"]
egress = ["https://everything.example"]
)");
  ASSERT_TRUE(built.routes) << built.routes.error().message;
  const ToolRoute* echo = (*built.routes)->find("canary.echo");
  const ToolRoute* slow = (*built.routes)->find("canary.slow");
  ASSERT_NE(echo, nullptr);
  ASSERT_NE(slow, nullptr);
  const std::string echo_grants = describe_egress(*echo->egress);
  EXPECT_THAT(echo_grants, HasSubstr("api.example.org"));
  EXPECT_THAT(echo_grants, HasSubstr("docs.test:8080"));
  EXPECT_THAT(echo_grants, Not(HasSubstr("everything.example")));
  EXPECT_THAT(describe_egress(*slow->egress), HasSubstr("everything.example"));

  const Built none = build("");
  ASSERT_TRUE(none.routes);
  EXPECT_EQ(describe_egress(*(*none.routes)->find("canary.echo")->egress), "none (every fetch is denied)");
}

TEST(ToolRoutes, AChainStepNoPluginProvidesIsAnErrorThatNamesItsLine) {
  const Built built = build(R"(
[chains.default]
steps = ["canary.redact", "nobody.provides-this"]
)");
  ASSERT_FALSE(built.routes);
  EXPECT_THAT(built.routes.error().message, HasSubstr("routes.toml:5:"));
  EXPECT_THAT(built.routes.error().message,
              HasSubstr("chain 'default' names sanitizer 'nobody.provides-this', which no loaded plugin provides"));
}

TEST(ToolRoutes, ABindingThatMatchesNoLoadedToolIsAnErrorThatNamesIt) {
  const Built built = build(R"(
[tools."weather.*"]
timeout_ms = 100
)");
  ASSERT_FALSE(built.routes);
  EXPECT_THAT(built.routes.error().message, HasSubstr("routes.toml:"));
  EXPECT_THAT(built.routes.error().message, HasSubstr("[tools.\"weather.*\"] matches no loaded tool"));
}

TEST(ToolRoutes, APluginTableForAPluginThatIsNotLoadedIsAnError) {
  const Built built = build(R"(
[plugin."ghost-pack"]
key = "value"
)");
  ASSERT_FALSE(built.routes);
  EXPECT_THAT(built.routes.error().message,
              HasSubstr("[plugin.\"ghost-pack\"] configures a plugin that is not loaded"));
}

}  // namespace
}  // namespace airlock::host
