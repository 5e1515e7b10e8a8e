// The airlock.toml loader as a whole: values and defaults across sections,
// unknown keys and wrong types anywhere, syntax errors and files, the
// file:line:column of every problem, and the glob and token syntax it exports.
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

// --- valid configs

TEST(HostConfig, ParsesFullConfigIntoExpectedValues) {
  const auto config = parse_config(R"([server]
name = "acme-tools"
log_level = "debug"
max_message_bytes = 65536
workers = 8
queue_capacity = 50
page_size = 20
mirror = "none"

[transport.http]
listen = "127.0.0.1:8808"
path = "/rpc"

[plugins]
dirs = ["/usr/lib/airlock/plugins"]
on_error = "skip"

[chains.default]
steps = ["airlock.strip-control", "acme.redact"]

[chains.empty]
steps = []

[tools."acme.search"]
chain = "default"
timeout_ms = 10000
mirror = "text"

[tools."raw.*"]
chain = "none"
)",
                                   "/etc/airlock/airlock.toml");
  ASSERT_TRUE(config.has_value()) << config.error().message;

  EXPECT_EQ(config->file, fs::path("/etc/airlock/airlock.toml"));
  EXPECT_EQ(config->server.name, "acme-tools");
  EXPECT_EQ(config->server.log_level, "debug");
  EXPECT_EQ(config->server.max_message_bytes, 65536u);
  EXPECT_EQ(config->server.workers, 8u);
  EXPECT_EQ(config->server.queue_capacity, 50u);
  EXPECT_EQ(config->server.page_size, 20u);
  EXPECT_EQ(config->server.mirror, Mirror::none);
  EXPECT_EQ(config->http.listen, "127.0.0.1:8808");
  EXPECT_EQ(config->http.path, "/rpc");
  EXPECT_EQ(config->plugins.dirs, std::vector<fs::path>{"/usr/lib/airlock/plugins"});
  EXPECT_EQ(config->plugins.on_error, OnPluginError::skip);

  ASSERT_EQ(config->chains.size(), 2u);
  EXPECT_EQ(config->chains.at("default").name, "default");
  EXPECT_EQ(config->chains.at("default").steps,
            (std::vector<std::string>{"airlock.strip-control", "acme.redact"}));
  EXPECT_TRUE(config->chains.at("empty").steps.empty());

  ASSERT_EQ(config->tools.size(), 2u);
  EXPECT_EQ(config->tools[0].pattern, "acme.search");
  EXPECT_EQ(config->tools[0].chain, "default");
  EXPECT_EQ(config->tools[0].timeout_ms, 10000u);
  EXPECT_EQ(config->tools[0].mirror, Mirror::text);
  EXPECT_EQ(config->tools[1].pattern, "raw.*");
  EXPECT_EQ(config->tools[1].chain, "none");
  EXPECT_FALSE(config->tools[1].timeout_ms.has_value());
  EXPECT_FALSE(config->tools[1].mirror.has_value());
}

TEST(HostConfig, UsesDefaultsWhenSectionsAreAbsent) {
  const auto config = parse("");
  ASSERT_TRUE(config.has_value()) << config.error().message;

  EXPECT_EQ(config->server.name, "airlock");
  EXPECT_EQ(config->server.log_level, "info");
  EXPECT_EQ(config->server.max_message_bytes, 4u << 20);
  EXPECT_EQ(config->server.workers, 4u);
  EXPECT_EQ(config->server.queue_capacity, 1024u);
  EXPECT_EQ(config->server.page_size, 100u);
  EXPECT_EQ(config->server.mirror, Mirror::text);
  EXPECT_FALSE(config->http.listen.has_value());
  EXPECT_EQ(config->http.path, "/mcp");
  EXPECT_TRUE(config->plugins.dirs.empty());
  EXPECT_EQ(config->plugins.on_error, OnPluginError::fail);
  EXPECT_TRUE(config->chains.empty());
  EXPECT_TRUE(config->tools.empty());
  EXPECT_TRUE(config->plugin_settings.empty());
}

TEST(HostConfig, ResolvesRelativePluginDirsAgainstTheFilesDirectory) {
  const auto config = parse_config(
      R"([plugins]
dirs = ["./plugins", "../lib/acme", "/usr/lib/airlock/plugins"]
)",
      "/etc/airlock/airlock.toml");
  ASSERT_TRUE(config.has_value()) << config.error().message;

  EXPECT_EQ(config->plugins.dirs, (std::vector<fs::path>{"/etc/airlock/plugins", "/etc/lib/acme",
                                                         "/usr/lib/airlock/plugins"}));
}

TEST(HostConfig, AcceptsIntegersAtTheEdgesOfTheirRanges) {
  const auto config = parse(R"([server]
max_message_bytes = 1024
workers = 256
queue_capacity = 1000000
page_size = 1
[tools.t]
timeout_ms = 86400000
)");
  ASSERT_TRUE(config.has_value()) << config.error().message;

  EXPECT_EQ(config->server.max_message_bytes, 1024u);
  EXPECT_EQ(config->server.workers, 256u);
  EXPECT_EQ(config->server.queue_capacity, 1000000u);
  EXPECT_EQ(config->server.page_size, 1u);
  EXPECT_EQ(config->tools.at(0).timeout_ms, 86400000u);
}

TEST(HostConfig, AcceptsBracketedIpv6ListenAddress) {
  const auto config = parse("[transport.http]\nlisten = \"[::1]:8808\"\n");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->http.listen, "[::1]:8808");
}

TEST(HostConfig, KeepsBindingsInFileOrder) {
  // Alphabetical order is the reverse of file order, so sorting by name would show.
  const auto config = parse(R"([tools."zeta.*"]
timeout_ms = 1
[tools."mid"]
timeout_ms = 2
[tools."alpha"]
timeout_ms = 3
)");
  ASSERT_TRUE(config.has_value()) << config.error().message;

  ASSERT_EQ(config->tools.size(), 3u);
  EXPECT_EQ(config->tools[0].pattern, "zeta.*");
  EXPECT_EQ(config->tools[1].pattern, "mid");
  EXPECT_EQ(config->tools[2].pattern, "alpha");
}

TEST(HostConfig, RecordsSourcePlacesForChainsStepsBindingsAndPluginTables) {
  const auto config = parse(R"([chains.default]
steps = ["a", "b"]

[tools."acme.search"]
chain = "default"

[plugin.acme]
key = 1
)");
  ASSERT_TRUE(config.has_value()) << config.error().message;

  const auto& chain = config->chains.at("default");
  EXPECT_EQ(chain.place.describe(), "airlock.toml:1:1");
  EXPECT_EQ(chain.place.key, "chains.default");
  ASSERT_EQ(chain.step_places.size(), 2u);
  EXPECT_EQ(chain.step_places[1].describe(), "airlock.toml:2:15");
  EXPECT_EQ(chain.step_places[1].key, "chains.default.steps[1]");

  const auto& binding = config->tools.at(0);
  EXPECT_EQ(binding.place.describe(), "airlock.toml:4:1");
  EXPECT_EQ(binding.place.key, "tools.\"acme.search\"");
  EXPECT_EQ(binding.chain_place.describe(), "airlock.toml:5:9");
  EXPECT_EQ(binding.chain_place.key, "tools.\"acme.search\".chain");

  const auto& plugin = config->plugin_setting_places.at("acme");
  EXPECT_EQ(plugin.describe(), "airlock.toml:7:1");
  EXPECT_EQ(plugin.key, "plugin.acme");
}

TEST(HostConfig, ConvertsPluginTableToJsonWithNestedValues) {
  const auto config = parse(R"([plugin."acme-pack"]
api_key_env = "ACME_KEY"
retries = 3
ratio = 0.5
verbose = true
hosts = ["a.example", "b.example"]
since = 1979-05-27
limits = { per_minute = 60, burst = [1, 2] }

[plugin."acme-pack".nested.deeper]
on = false
)");
  ASSERT_TRUE(config.has_value()) << config.error().message;

  ASSERT_EQ(config->plugin_settings.count("acme-pack"), 1u);
  const auto& settings = config->plugin_settings.at("acme-pack");
  EXPECT_EQ(settings.at("api_key_env").as_string(), "ACME_KEY");
  EXPECT_EQ(settings.at("retries").as_int64(), 3);
  EXPECT_DOUBLE_EQ(settings.at("ratio").as_double(), 0.5);
  EXPECT_TRUE(settings.at("verbose").as_bool());
  EXPECT_EQ(boost::json::serialize(settings.at("hosts")), R"(["a.example","b.example"])");
  EXPECT_EQ(settings.at("since").as_string(), "1979-05-27");
  EXPECT_EQ(settings.at("limits").at("per_minute").as_int64(), 60);
  EXPECT_EQ(boost::json::serialize(settings.at("limits").at("burst")), "[1,2]");
  EXPECT_FALSE(settings.at("nested").at("deeper").at("on").as_bool());
}

// --- unknown keys

TEST(HostConfig, RejectsUnknownTopLevelTableWithFileLineAndKey) {
  EXPECT_EQ(error_of(R"([server]
name = "x"

[tols]
x = 1
)"),
            "airlock.toml:4:2: unknown key 'tols'");
}

TEST(HostConfig, RejectsUnknownKeyInServerWithFileLineAndKey) {
  EXPECT_EQ(error_of(R"([server]
workers = 4
wrkers = 5
)"),
            "airlock.toml:3:1: unknown key 'wrkers' in [server]");
}

TEST(HostConfig, RejectsUnknownKeyInTransportAndHttp) {
  EXPECT_EQ(error_of("[transport.grpc]\nport = 1\n"),
            "airlock.toml:1:12: unknown key 'grpc' in [transport]");
  EXPECT_EQ(error_of("[transport.http]\nlisten = \"a:1\"\nhost = \"x\"\n"),
            "airlock.toml:3:1: unknown key 'host' in [transport.http]");
}

TEST(HostConfig, RejectsUnknownKeyInPlugins) {
  EXPECT_EQ(error_of("[plugins]\ndir = [\"x\"]\n"),
            "airlock.toml:2:1: unknown key 'dir' in [plugins]");
}

TEST(HostConfig, ReadsRequireCheckOffByDefaultAndOnWhenAsked) {
  const auto absent = parse("[plugins]\ndirs = []\n");
  ASSERT_TRUE(absent.has_value()) << absent.error().message;
  EXPECT_FALSE(absent->plugins.require_check);

  const auto on = parse("[plugins]\nrequire_check = true\n");
  ASSERT_TRUE(on.has_value()) << on.error().message;
  EXPECT_TRUE(on->plugins.require_check);
}

TEST(HostConfig, RejectsRequireCheckThatIsNotABoolean) {
  EXPECT_EQ(error_of("[plugins]\nrequire_check = \"yes\"\n"),
            "airlock.toml:2:17: plugins.require_check: expected true or false, got \"yes\"");
}

TEST(HostConfig, RejectsUnknownKeyInChainWithFileLineAndKey) {
  EXPECT_EQ(error_of(R"([chains.default]
steps = []
step = ["x"]
)"),
            "airlock.toml:3:1: unknown key 'step' in [chains.default]");
}

TEST(HostConfig, RejectsUnknownKeyInBindingWithFileLineAndKey) {
  EXPECT_EQ(error_of(R"([chains.default]
steps = []

[tools."acme.search"]
chain = "default"
timeout = 5
)"),
            "airlock.toml:6:1: unknown key 'timeout' in [tools.\"acme.search\"]");
}

TEST(HostConfig, SuggestsQuotesWhenADottedToolNameIsUnquoted) {
  const auto error = error_of("[tools.acme.search]\ntimeout_ms = 5\n");
  EXPECT_THAT(error, HasSubstr("airlock.toml:1:13: unknown key 'search' in [tools.acme]"));
  EXPECT_THAT(error, HasSubstr("[tools.\"acme.search\"]"));
}

// --- wrong types and values

TEST(HostConfig, RejectsWrongTypeNamingKeyAndExpectedType) {
  EXPECT_EQ(error_of("[server]\nworkers = \"four\"\n"),
            "airlock.toml:2:11: server.workers: expected an integer from 1 to 256, got \"four\"");
  EXPECT_EQ(error_of("[server]\nname = 7\n"),
            "airlock.toml:2:8: server.name: expected a string, got 7");
  EXPECT_EQ(error_of("server = 1\n"), "airlock.toml:1:10: server: expected a table, got 1");
  EXPECT_EQ(error_of("[plugins]\ndirs = \"./plugins\"\n"),
            "airlock.toml:2:8: plugins.dirs: expected an array of strings, got \"./plugins\"");
  EXPECT_EQ(error_of("[server]\nworkers = 4.0\n"),
            "airlock.toml:2:11: server.workers: expected an integer from 1 to 256, got 4.0");
}

TEST(HostConfig, RejectsChainStepThatIsNotANonEmptyString) {
  EXPECT_EQ(error_of("[chains.default]\nsteps = [\"a\", 3]\n"),
            "airlock.toml:2:15: chains.default.steps[1]: expected a non-empty string, got 3");
  EXPECT_EQ(error_of("[chains.default]\nsteps = [\"\"]\n"),
            "airlock.toml:2:10: chains.default.steps[0]: expected a non-empty string, got \"\"");
}

TEST(HostConfig, RejectsOutOfRangeIntegers) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"[server]\nworkers = 0\n",
       "airlock.toml:2:11: server.workers: expected an integer from 1 to 256, got 0"},
      {"[server]\nworkers = 257\n",
       "airlock.toml:2:11: server.workers: expected an integer from 1 to 256, got 257"},
      {"[server]\nqueue_capacity = 1000001\n",
       "airlock.toml:2:18: server.queue_capacity: expected an integer from 1 to 1000000, got "
       "1000001"},
      {"[server]\npage_size = -1\n",
       "airlock.toml:2:13: server.page_size: expected an integer from 1 to 10000, got -1"},
      {"[server]\nmax_message_bytes = 1023\n",
       "airlock.toml:2:21: server.max_message_bytes: expected an integer of at least 1024, got "
       "1023"},
      {"[tools.t]\ntimeout_ms = 86400001\n",
       "airlock.toml:2:14: tools.t.timeout_ms: expected an integer from 1 to 86400000, got "
       "86400001"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(error_of(c.text), c.message);
  }
}

TEST(HostConfig, RejectsBadEnumValues) {
  EXPECT_EQ(error_of("[server]\nlog_level = \"verbose\"\n"),
            "airlock.toml:2:13: server.log_level: expected \"trace\", \"debug\", \"info\", "
            "\"warn\", \"error\" or \"off\", got \"verbose\"");
  EXPECT_EQ(error_of("[server]\nmirror = \"json\"\n"),
            "airlock.toml:2:10: server.mirror: expected \"text\" or \"none\", got \"json\"");
  EXPECT_EQ(error_of("[plugins]\non_error = \"ignore\"\n"),
            "airlock.toml:2:12: plugins.on_error: expected \"fail\" or \"skip\", got \"ignore\"");
  EXPECT_EQ(error_of("[tools.\"a.*\"]\nmirror = true\n"),
            "airlock.toml:2:10: tools.\"a.*\".mirror: expected \"text\" or \"none\", got true");
}

TEST(HostConfig, RejectsMalformedListenAddress) {
  for (const char* listen : {"localhost", "127.0.0.1:0", "127.0.0.1:65536", ":8808",
                             "127.0.0.1:80x", "::1:8808", "[::1]8808", "[]:80"}) {
    SCOPED_TRACE(listen);
    const auto error = error_of(std::string("[transport.http]\nlisten = \"") + listen + "\"\n");
    EXPECT_THAT(error, HasSubstr("airlock.toml:2:10: transport.http.listen: expected "
                                 "\"HOST:PORT\" or \"[IPV6]:PORT\""));
    EXPECT_THAT(error, HasSubstr(std::string("got \"") + listen + "\""));
  }
}

TEST(HostConfig, RejectsHttpPathWithoutLeadingSlash) {
  EXPECT_EQ(error_of("[transport.http]\npath = \"mcp\"\n"),
            "airlock.toml:2:8: transport.http.path: expected a path starting with '/', got "
            "\"mcp\"");
}

TEST(HostConfig, RejectsEmptyPluginDir) {
  EXPECT_EQ(error_of("[plugins]\ndirs = [\"./a\", \"\"]\n"),
            "airlock.toml:2:16: plugins.dirs[1]: expected a non-empty string, got \"\"");
}

// --- syntax and files

TEST(HostConfig, ReportsTomlSyntaxErrorWithLineAndColumn) {
  const auto error = error_of("[server]\nname = \"acme\"\nworkers = \n");
  EXPECT_THAT(error, HasSubstr("airlock.toml:3:11: error while parsing key-value pair"));
}

TEST(HostConfig, ReportsDuplicateKeyAsSyntaxError) {
  const auto error = error_of("[server]\nworkers = 1\nworkers = 2\n");
  EXPECT_THAT(error, HasSubstr("airlock.toml:3:"));
  EXPECT_THAT(error, HasSubstr("workers"));
}

TEST(HostConfig, ReportsMissingFileWithReason) {
  const fs::path missing = fs::path(testing::TempDir()) / "airlock-no-such-dir" / "airlock.toml";
  const auto config = load_config(missing);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().message, missing.string() + ": cannot read: No such file or directory");
}

TEST(HostConfig, LoadsConfigFromFileAndNamesItInErrors) {
  const fs::path dir = fs::path(testing::TempDir()) / "airlock-host-config-test";
  fs::create_directories(dir);
  const fs::path good = dir / "good.toml";
  const fs::path bad = dir / "bad.toml";
  std::ofstream(good) << "[server]\nworkers = 2\n[plugins]\ndirs = [\"plugins\"]\n";
  std::ofstream(bad) << "[server]\nworkers = 0\n";

  const auto config = load_config(good);
  const auto error = load_config(bad);
  fs::remove_all(dir);

  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->file, good);
  EXPECT_EQ(config->server.workers, 2u);
  EXPECT_EQ(config->plugins.dirs, std::vector<fs::path>{dir / "plugins"});
  ASSERT_FALSE(error.has_value());
  EXPECT_THAT(error.error().message, HasSubstr(bad.string() + ":2:11: server.workers"));
}

TEST(HostConfig, SourcePlaceDescribesFileLineAndColumn) {
  const SourcePlace place{"conf/airlock.toml", 12, 5, "tools.x.chain"};
  EXPECT_EQ(place.describe(), "conf/airlock.toml:12:5");
}

TEST(IsBearerToken, AcceptsB64TokenSyntaxOnly) {
  EXPECT_TRUE(is_bearer_token("abc"));
  EXPECT_TRUE(is_bearer_token("A-Za-z0-9._~+/"));
  EXPECT_TRUE(is_bearer_token("abc=="));
  EXPECT_FALSE(is_bearer_token(""));
  EXPECT_FALSE(is_bearer_token("=="));
  EXPECT_FALSE(is_bearer_token("=abc"));
  EXPECT_FALSE(is_bearer_token("ab=c"));
  EXPECT_FALSE(is_bearer_token("a b"));
  EXPECT_FALSE(is_bearer_token("a,b"));
  EXPECT_FALSE(is_bearer_token("a\tb"));
  EXPECT_FALSE(is_bearer_token("caf\xc3\xa9"));
}

// --- glob_match

TEST(GlobMatch, MatchesLiteralNamesExactly) {
  EXPECT_TRUE(glob_match("acme.search", "acme.search"));
  EXPECT_FALSE(glob_match("acme.search", "acme.searc"));
  EXPECT_FALSE(glob_match("acme.search", "acme.search2"));
  EXPECT_TRUE(glob_match("", ""));
  EXPECT_FALSE(glob_match("", "a"));
}

TEST(GlobMatch, StarMatchesAnyRunIncludingEmptyAndDots) {
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("*", "acme.search.deep"));
  EXPECT_TRUE(glob_match("acme.*", "acme.search"));
  EXPECT_TRUE(glob_match("acme.*", "acme."));
  EXPECT_TRUE(glob_match("acme*", "acme.a.b"));
  EXPECT_TRUE(glob_match("*.search", "acme.web.search"));
  EXPECT_TRUE(glob_match("a*b*c", "aXXbYYc"));
  EXPECT_TRUE(glob_match("a**c", "ac"));
  EXPECT_FALSE(glob_match("acme.*", "acme"));
  EXPECT_FALSE(glob_match("a*b*c", "aXXbYY"));
}

TEST(GlobMatch, QuestionMarkMatchesExactlyOneByte) {
  EXPECT_TRUE(glob_match("tool?", "tool1"));
  EXPECT_FALSE(glob_match("tool?", "tool"));
  EXPECT_FALSE(glob_match("tool?", "tool12"));
  EXPECT_TRUE(glob_match("?*", "x"));
  EXPECT_FALSE(glob_match("?*", ""));
}

TEST(GlobMatch, TreatsOtherCharactersLiterally) {
  EXPECT_TRUE(glob_match("a[b]", "a[b]"));
  EXPECT_FALSE(glob_match("a[b]", "ab"));
  // A backslash is an ordinary byte, not an escape: "a\\*" needs a literal backslash.
  EXPECT_TRUE(glob_match("a\\*", "a\\b"));
  EXPECT_FALSE(glob_match("a\\*", "a*"));
}

TEST(GlobMatch, BacktracksWithoutBlowingUpOnManyStars) {
  // Exponential backtracking would not finish; the linear-ish algorithm does at once.
  const std::string name(10000, 'a');
  EXPECT_FALSE(glob_match("*a*a*a*a*a*a*a*a*a*a*b", name));
  EXPECT_TRUE(glob_match("*a*a*a*a*a*a*a*a*a*a*", name));
}

}  // namespace
}  // namespace airlock::host
