// [auth.oauth] (config/auth_section.cpp).
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

TEST(HostConfigOAuth, IsOffWithoutTheTableAndReadsEveryKeyWithIt) {
  EXPECT_FALSE(parse("")->oauth.enabled);
  const auto config = parse(
      "[auth.oauth]\nresource = \"https://mcp.example.com/mcp\"\n"
      "authorization_servers = [\"https://id.example.com/realms/x\", \"http://127.0.0.1:9000\"]\n"
      "algorithms = [\"ES256\"]\nleeway_s = 5\njwks_refresh_min_s = 0\nfetch_timeout_ms = 100\n"
      "fetch_addresses = [\"10.0.0.0/8\"]\n[auth.oauth.scopes]\n\"files:read\" = [\"files.*\"]\nadmin = [\"*\"]\n"
      "docs = { tools = [\"docs.*\"], resources = [\"docs://*\"], prompts = [\"summarize\"] }\n");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  const OAuthConfig& oauth = config->oauth;
  EXPECT_TRUE(oauth.enabled);
  EXPECT_EQ(oauth.resource, "https://mcp.example.com/mcp");
  EXPECT_EQ(oauth.authorization_servers,
            (std::vector<std::string>{"https://id.example.com/realms/x", "http://127.0.0.1:9000"}));
  EXPECT_EQ(oauth.algorithms, std::vector<std::string>{"ES256"});
  EXPECT_EQ(oauth.leeway_s, 5u);
  EXPECT_EQ(oauth.jwks_refresh_min_s, 0u);
  EXPECT_EQ(oauth.fetch_timeout_ms, 100u);
  ASSERT_EQ(oauth.fetch_addresses.size(), 1u);
  EXPECT_EQ(oauth.fetch_addresses[0].text, "10.0.0.0/8");
  EXPECT_EQ(oauth.scopes.at("files:read").tools, std::vector<std::string>{"files.*"});
  EXPECT_TRUE(oauth.scopes.at("files:read").resources.empty()) << "a list grants tools only";
  EXPECT_EQ(oauth.scopes.at("admin").tools, std::vector<std::string>{"*"});
  EXPECT_EQ(oauth.scopes.at("docs").tools, std::vector<std::string>{"docs.*"});
  EXPECT_EQ(oauth.scopes.at("docs").resources, std::vector<std::string>{"docs://*"});
  EXPECT_EQ(oauth.scopes.at("docs").prompts, std::vector<std::string>{"summarize"});
  const auto defaults = parse("[auth.oauth]\nauthorization_servers = [\"https://id.example.com\"]\n");
  ASSERT_TRUE(defaults.has_value()) << defaults.error().message;
  EXPECT_EQ(defaults->oauth.algorithms.size(), 9u) << "every asymmetric algorithm by default";
  EXPECT_TRUE(defaults->oauth.resource.empty());
}

TEST(HostConfigOAuth, NamesWhatIsWrong) {
  const std::string servers = "authorization_servers = [\"https://id.example.com\"]\n";
  EXPECT_THAT(error_of("[auth.oauth]\n"), HasSubstr("missing key 'authorization_servers'"));
  EXPECT_THAT(error_of("[auth.oauth]\nauthorization_servers = [\"http://id.example.com\"]\n"),
              HasSubstr("http on a loopback host"));
  EXPECT_THAT(error_of("[auth.oauth]\nauthorization_servers = [\"https://id.example.com?x=1\"]\n"),
              HasSubstr("authorization_servers[0]"));
  EXPECT_THAT(error_of("[auth.oauth]\nauthorization_servers = [\"https://a\", \"https://a\"]\n"),
              HasSubstr("listed twice"));
  EXPECT_THAT(error_of("[auth.oauth]\n" + servers + "algorithms = [\"HS256\"]\n"),
              HasSubstr("symmetric and unsigned tokens are never accepted"));
  EXPECT_THAT(error_of("[auth.oauth]\n" + servers + "algorithms = [\"none\"]\n"), HasSubstr("auth.oauth.algorithms[0]"));
  EXPECT_THAT(error_of("[auth.oauth]\n" + servers + "resource = \"mcp.example.com\"\n"), HasSubstr("auth.oauth.resource"));
  EXPECT_THAT(error_of("[auth.oauth]\n" + servers + "leeway_s = 3600\n"), HasSubstr("auth.oauth.leeway_s"));
  EXPECT_THAT(error_of("[auth.oauth]\n" + servers + "fetch_addresses = [\"10.0.0.1/8\"]\n"), HasSubstr("10.0.0.1/8"));
  EXPECT_THAT(error_of("[auth.oauth]\n" + servers + "[auth.oauth.scopes]\n\"a b\" = [\"*\"]\n"),
              HasSubstr("RFC 6749 3.3"));
  EXPECT_THAT(error_of("[auth.oauth]\n" + servers + "audience = \"x\"\n"), HasSubstr("unknown key 'audience' in [auth.oauth]"));
  EXPECT_THAT(error_of("[auth.saml]\n"), HasSubstr("unknown key 'saml' in [auth]"));
  EXPECT_THAT(error_of("[auth.oauth]\n" + servers + "[auth.oauth.scopes]\ndocs = { files = [\"*\"] }\n"),
              HasSubstr("unknown key 'files'"));
}

}  // namespace
}  // namespace airlock::host
