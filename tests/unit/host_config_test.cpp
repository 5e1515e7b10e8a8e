// Tests for the airlock.toml loader: values, defaults, and the file:line:column
// of every kind of error an operator can make.
#include "config/host_config.hpp"
#include "util/sha256.hpp"

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
using testing::HasSubstr;

Result<Config> parse(std::string_view text) { return parse_config(text, "airlock.toml"); }

// The error a config must produce; fails the test when it parses.
std::string error_of(std::string_view text) {
  const auto config = parse(text);
  EXPECT_FALSE(config.has_value()) << "config parsed, but an error was expected";
  return config.has_value() ? std::string() : config.error().message;
}

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

// --- [transport.http]

TEST(HostConfig, ParsesEveryHttpKey) {
  const auto config = parse(R"([transport.http]
listen = "0.0.0.0:8808"
path = "/rpc"
response = "json"
standalone_stream = false
io_threads = 4
allowed_hosts = ["mcp.example.com", "MCP.Example.com:8808", "[::1]", "[::1]:8808", "10.0.0.5"]
allowed_origins = ["https://app.example.com", "HTTP://LOCALHOST:3000", "vscode-file://vscode-app"]
allow_unauthenticated_remote = true
max_sessions = 500
session_idle_timeout_s = 60
max_connections = 64
max_header_bytes = 8192
read_timeout_ms = 5000
idle_timeout_ms = 30000
rate_limit = 2.5
rate_burst = 10
replay_bytes = 65536
sse_retry_ms = 250
shutdown_grace_ms = 2000
access_log = false
)");
  ASSERT_TRUE(config.has_value()) << config.error().message;

  const auto& http = config->http;
  EXPECT_EQ(http.listen, "0.0.0.0:8808");
  EXPECT_EQ(http.path, "/rpc");
  EXPECT_EQ(http.response, HttpResponseMode::json);
  EXPECT_FALSE(http.standalone_stream);
  EXPECT_EQ(http.io_threads, 4u);
  EXPECT_EQ(http.allowed_hosts, (std::vector<std::string>{"mcp.example.com", "mcp.example.com:8808",
                                                          "[::1]", "[::1]:8808", "10.0.0.5"}));
  EXPECT_EQ(http.allowed_origins,
            (std::vector<std::string>{"https://app.example.com", "http://localhost:3000",
                                      "vscode-file://vscode-app"}));
  EXPECT_TRUE(http.allow_unauthenticated_remote);
  EXPECT_EQ(http.max_sessions, 500u);
  EXPECT_EQ(http.session_idle_timeout_s, 60u);
  EXPECT_EQ(http.max_connections, 64u);
  EXPECT_EQ(http.max_header_bytes, 8192u);
  EXPECT_EQ(http.read_timeout_ms, 5000u);
  EXPECT_EQ(http.idle_timeout_ms, 30000u);
  EXPECT_DOUBLE_EQ(http.rate_limit, 2.5);
  EXPECT_EQ(http.rate_burst, 10u);
  EXPECT_EQ(http.replay_bytes, 65536u);
  EXPECT_EQ(http.sse_retry_ms, 250u);
  EXPECT_EQ(http.shutdown_grace_ms, 2000u);
  EXPECT_FALSE(http.access_log);
  EXPECT_TRUE(http.tokens.empty());
}

TEST(HostConfig, UsesHttpDefaultsWhenKeysAreAbsent) {
  const auto config = parse("[transport.http]\n");
  ASSERT_TRUE(config.has_value()) << config.error().message;

  const auto& http = config->http;
  EXPECT_FALSE(http.listen.has_value());
  EXPECT_EQ(http.path, "/mcp");
  EXPECT_EQ(http.response, HttpResponseMode::sse);
  EXPECT_TRUE(http.standalone_stream);
  EXPECT_EQ(http.io_threads, 1u);
  EXPECT_TRUE(http.allowed_hosts.empty());
  EXPECT_TRUE(http.allowed_origins.empty());
  EXPECT_TRUE(http.tokens.empty());
  EXPECT_FALSE(http.allow_unauthenticated_remote);
  EXPECT_EQ(http.max_sessions, 10'000u);
  EXPECT_EQ(http.session_idle_timeout_s, 1800u);
  EXPECT_EQ(http.max_connections, 1024u);
  EXPECT_EQ(http.max_header_bytes, 16u << 10);
  EXPECT_EQ(http.read_timeout_ms, 10'000u);
  EXPECT_EQ(http.idle_timeout_ms, 60'000u);
  EXPECT_EQ(http.rate_limit, 0.0);
  EXPECT_EQ(http.rate_burst, 0u);
  EXPECT_EQ(http.replay_bytes, 4u << 20);
  EXPECT_EQ(http.sse_retry_ms, 1000u);
  EXPECT_EQ(http.shutdown_grace_ms, 10'000u);
  EXPECT_TRUE(http.access_log);
}

struct IntegerRange {
  std::string key;
  std::int64_t min;
  std::int64_t max;
};

const IntegerRange kHttpIntegerKeys[] = {
    {"io_threads", 1, 64},
    {"max_sessions", 1, 1'000'000},
    {"session_idle_timeout_s", 1, 604'800},
    {"max_connections", 1, 1'000'000},
    {"max_header_bytes", 1024, 1'048'576},
    {"read_timeout_ms", 100, 3'600'000},
    {"idle_timeout_ms", 100, 3'600'000},
    {"rate_burst", 0, 1'000'000},
    {"replay_bytes", 1024, 1'073'741'824},
    {"sse_retry_ms", 0, 600'000},
    {"shutdown_grace_ms", 0, 600'000},
};

TEST(HostConfig, AcceptsHttpIntegersAtTheEdgesOfTheirRanges) {
  for (const auto& range : kHttpIntegerKeys) {
    for (const std::int64_t value : {range.min, range.max}) {
      const std::string text =
          "[transport.http]\n" + range.key + " = " + std::to_string(value) + "\n";
      SCOPED_TRACE(text);
      const auto config = parse(text);
      EXPECT_TRUE(config.has_value()) << config.error().message;
    }
  }
}

TEST(HostConfig, RejectsHttpIntegersOutsideTheirRangesNamingTheRange) {
  for (const auto& range : kHttpIntegerKeys) {
    for (const std::int64_t value : {range.min - 1, range.max + 1}) {
      const std::string text =
          "[transport.http]\n" + range.key + " = " + std::to_string(value) + "\n";
      SCOPED_TRACE(text);
      const std::string column = std::to_string(range.key.size() + 4);
      EXPECT_EQ(error_of(text), "airlock.toml:2:" + column + ": transport.http." + range.key +
                                    ": expected an integer from " + std::to_string(range.min) +
                                    " to " + std::to_string(range.max) + ", got " +
                                    std::to_string(value));
    }
  }
}

TEST(HostConfig, RejectsHttpValuesOfTheWrongType) {
  EXPECT_EQ(error_of("[transport.http]\nio_threads = \"2\"\n"),
            "airlock.toml:2:14: transport.http.io_threads: expected an integer from 1 to 64, got "
            "\"2\"");
  EXPECT_EQ(error_of("[transport.http]\nstandalone_stream = \"no\"\n"),
            "airlock.toml:2:21: transport.http.standalone_stream: expected true or false, got "
            "\"no\"");
  EXPECT_EQ(error_of("[transport.http]\naccess_log = 1\n"),
            "airlock.toml:2:14: transport.http.access_log: expected true or false, got 1");
  EXPECT_EQ(error_of("[transport.http]\nallow_unauthenticated_remote = \"yes\"\n"),
            "airlock.toml:2:32: transport.http.allow_unauthenticated_remote: expected true or "
            "false, got \"yes\"");
  EXPECT_EQ(error_of("[transport.http]\nresponse = \"ndjson\"\n"),
            "airlock.toml:2:12: transport.http.response: expected \"sse\" or \"json\", got "
            "\"ndjson\"");
  EXPECT_EQ(error_of("[transport.http]\nallowed_hosts = \"localhost\"\n"),
            "airlock.toml:2:17: transport.http.allowed_hosts: expected an array of strings, got "
            "\"localhost\"");
  EXPECT_EQ(error_of("[transport.http]\nallowed_origins = [1]\n"),
            "airlock.toml:2:20: transport.http.allowed_origins[0]: expected a non-empty string, "
            "got 1");
  EXPECT_EQ(error_of("[transport.http]\nmax_header_bytes = 8192.0\n"),
            "airlock.toml:2:20: transport.http.max_header_bytes: expected an integer from 1024 to "
            "1048576, got 8192.0");
  EXPECT_EQ(error_of("transport = { http = 1 }\n"),
            "airlock.toml:1:22: transport.http: expected a table, got 1");
}

TEST(HostConfig, AcceptsRateLimitAsIntegerOrFloat) {
  for (const auto& [text, expected] : std::vector<std::pair<std::string, double>>{
           {"0", 0.0}, {"0.5", 0.5}, {"7", 7.0}, {"1000000", 1e6}, {"1e6", 1e6}}) {
    SCOPED_TRACE(text);
    const auto config = parse("[transport.http]\nrate_limit = " + text + "\n");
    ASSERT_TRUE(config.has_value()) << config.error().message;
    EXPECT_DOUBLE_EQ(config->http.rate_limit, expected);
  }
}

TEST(HostConfig, RejectsRateLimitThatIsNegativeHugeOrNotANumber) {
  for (const char* text : {"-0.5", "-1", "1000000.5", "inf", "nan", "\"5\"", "true"}) {
    SCOPED_TRACE(text);
    const auto error = error_of(std::string("[transport.http]\nrate_limit = ") + text + "\n");
    EXPECT_THAT(error, HasSubstr("airlock.toml:2:14: transport.http.rate_limit: expected a number "
                                 "from 0 to 1000000, got "));
  }
}

TEST(HostConfig, RejectsAllowedHostsThatAreNotHostOrHostAndPort) {
  for (const char* host : {"local host", "host:0", "host:65536", "host:x", "host:", ":80",
                           "host:80:90", "[::1", "::1", "[::1]80", "[]", "[zz::1]", "[::1]:",
                           "http://host", "host/path", "*"}) {
    SCOPED_TRACE(host);
    EXPECT_EQ(error_of(std::string("[transport.http]\nallowed_hosts = [\"localhost\", \"") + host +
                       "\"]\n"),
              std::string("airlock.toml:2:31: transport.http.allowed_hosts[1]: expected \"HOST\", "
                          "\"HOST:PORT\", \"[IPV6]\" or \"[IPV6]:PORT\", got \"") +
                  host + "\"");
  }
}

TEST(HostConfig, RejectsAllowedOriginsThatAreNotSchemeHostAndPort) {
  for (const char* origin : {"localhost:3000", "http://", "http://host/", "http://host/path",
                             "://host", "1http://host", "http://host:0", "http://user@host",
                             "null"}) {
    SCOPED_TRACE(origin);
    EXPECT_EQ(error_of(std::string("[transport.http]\nallowed_origins = [\"") + origin + "\"]\n"),
              std::string("airlock.toml:2:20: transport.http.allowed_origins[0]: expected an "
                          "origin \"SCHEME://HOST\" or \"SCHEME://HOST:PORT\", got \"") +
                  origin + "\"");
  }
}

TEST(HostConfig, RejectsUnknownKeyInHttpAmongTheNewKeys) {
  EXPECT_EQ(error_of("[transport.http]\nrate_limit = 1\nrate_bust = 2\n"),
            "airlock.toml:3:1: unknown key 'rate_bust' in [transport.http]");
}

// --- [[transport.http.tokens]]

constexpr std::string_view kDigestOfAbc =
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

TEST(Sha256, HashesKnownVectors) {
  EXPECT_EQ(sha256_hex(sha256("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex(sha256("abc")), kDigestOfAbc);
}

TEST(Sha256, ParsesHexInEitherCaseAndRejectsAnythingElse) {
  EXPECT_EQ(parse_sha256_hex(kDigestOfAbc), sha256("abc"));
  std::string upper(kDigestOfAbc);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(parse_sha256_hex(upper), sha256("abc"));
  EXPECT_FALSE(parse_sha256_hex(kDigestOfAbc.substr(1)).has_value());
  EXPECT_FALSE(parse_sha256_hex(std::string(kDigestOfAbc) + "0").has_value());
  EXPECT_FALSE(parse_sha256_hex(std::string(63, '0') + "g").has_value());
  EXPECT_FALSE(parse_sha256_hex("").has_value());
}

TEST(HostConfig, ParsesTokensWithDigestIdentityAndToolGlobs) {
  const auto config = parse(std::string(R"([transport.http]
listen = "127.0.0.1:8808"

[[transport.http.tokens]]
identity = "ci-bot@acme"
sha256 = ")") + std::string(kDigestOfAbc) + R"("
tools = ["acme.*", "echo"]

[[transport.http.tokens]]
identity = "ops.team_1-x"
sha256 = "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"
tools = []
)");
  ASSERT_TRUE(config.has_value()) << config.error().message;

  const auto& tokens = config->http.tokens;
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[0].identity, "ci-bot@acme");
  EXPECT_EQ(tokens[0].sha256, sha256("abc"));
  EXPECT_EQ(tokens[0].tools, (std::vector<std::string>{"acme.*", "echo"}));
  EXPECT_EQ(tokens[0].place.describe(), "airlock.toml:4:1");
  EXPECT_EQ(tokens[0].place.key, "transport.http.tokens[0]");
  EXPECT_EQ(tokens[1].identity, "ops.team_1-x");
  EXPECT_EQ(tokens[1].sha256, sha256(""));
  EXPECT_TRUE(tokens[1].tools.empty());
  EXPECT_EQ(tokens[1].place.key, "transport.http.tokens[1]");
}

TEST(HostConfig, AcceptsAnEmptyTokenArrayAsNoAuthentication) {
  const auto config = parse("[transport.http]\ntokens = []\n");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_TRUE(config->http.tokens.empty());
}

// A token table as written in a config, with `body` after its header.
std::string token_table(std::string_view body) {
  return "[[transport.http.tokens]]\n" + std::string(body);
}

std::string sha256_line(std::string_view hex = kDigestOfAbc) {
  return "sha256 = \"" + std::string(hex) + "\"\n";
}

TEST(HostConfig, RefusesATokenWrittenInTheConfigWithoutEchoingIt) {
  const auto error = error_of(token_table("identity = \"a\"\ntoken = \"s3cr3t-value\"\n"));
  EXPECT_EQ(error,
            "airlock.toml:3:9: transport.http.tokens[0].token: a token is never written in the "
            "config: give its SHA-256 (sha256 = \"<64 hex digits>\") or a file that holds it "
            "(file = \"<path>\")");
  EXPECT_THAT(error, testing::Not(HasSubstr("s3cr3t")));
}

TEST(HostConfig, RejectsTokenWithBothOrNeitherOfSha256AndFile) {
  EXPECT_EQ(error_of(token_table("identity = \"a\"\n" + sha256_line() + "file = \"tok\"\n")),
            "airlock.toml:1:1: transport.http.tokens[0]: give either 'sha256' or 'file', not both");
  EXPECT_EQ(error_of(token_table("identity = \"a\"\ntools = [\"x\"]\n")),
            "airlock.toml:1:1: transport.http.tokens[0]: missing key 'sha256' or 'file'");
}

TEST(HostConfig, RejectsTokenWithoutIdentity) {
  EXPECT_EQ(error_of(token_table(sha256_line())),
            "airlock.toml:1:1: transport.http.tokens[0]: missing key 'identity'");
}

TEST(HostConfig, RejectsIdentityOutsideItsAlphabetOrLength) {
  for (const std::string& identity : {std::string(), std::string(65, 'a'), std::string("ci bot"),
                                     std::string("ci/bot"), std::string("bot\"")}) {
    SCOPED_TRACE(identity);
    const std::string written = boost::json::serialize(boost::json::string_view(identity));
    EXPECT_EQ(error_of(token_table("identity = " + written + "\n" + sha256_line())),
              "airlock.toml:2:12: transport.http.tokens[0].identity: expected 1 to 64 of A-Z a-z "
              "0-9 . _ @ -, got " + written);
  }
  const auto config = parse(token_table("identity = \"" + std::string(64, 'z') + "\"\n" +
                                        sha256_line()));
  EXPECT_TRUE(config.has_value()) << config.error().message;
}

TEST(HostConfig, RejectsSha256ThatIsNot64HexDigitsWithoutEchoingIt) {
  for (const std::string& value :
       {"\"" + std::string(kDigestOfAbc.substr(1)) + "\"", "\"" + std::string(63, 'a') + "x\"",
        std::string("\"my-plain-token\""), std::string("42")}) {
    SCOPED_TRACE(value);
    const auto error = error_of(token_table("identity = \"a\"\nsha256 = " + value + "\n"));
    EXPECT_EQ(error, "airlock.toml:3:10: transport.http.tokens[0].sha256: expected the token's "
                     "SHA-256 as 64 hex digits (sha256sum prints it)");
  }
}

TEST(HostConfig, RejectsDuplicateIdentityNamingTheFirst) {
  EXPECT_EQ(error_of(token_table("identity = \"a\"\n" + sha256_line()) +
                     token_table("identity = \"a\"\n" + sha256_line(std::string(64, '0')))),
            "airlock.toml:4:1: transport.http.tokens[1]: identity \"a\" is already declared at "
            "airlock.toml:1:1");
}

TEST(HostConfig, RejectsTheSameTokenForTwoIdentities) {
  EXPECT_EQ(error_of(token_table("identity = \"a\"\n" + sha256_line()) +
                     token_table("identity = \"b\"\n" + sha256_line())),
            "airlock.toml:4:1: transport.http.tokens[1]: identity \"b\" has the same token as "
            "\"a\" (airlock.toml:1:1)");
}

TEST(HostConfig, RejectsUnknownKeyAndBadToolsInToken) {
  EXPECT_EQ(error_of(token_table("identity = \"a\"\n" + sha256_line() + "scopes = [\"x\"]\n")),
            "airlock.toml:4:1: unknown key 'scopes' in [transport.http.tokens[0]]");
  EXPECT_EQ(error_of(token_table("identity = \"a\"\n" + sha256_line() + "tools = [\"\"]\n")),
            "airlock.toml:4:10: transport.http.tokens[0].tools[0]: expected a non-empty string, "
            "got \"\"");
  EXPECT_EQ(error_of(token_table("identity = \"a\"\n" + sha256_line() + "tools = \"x\"\n")),
            "airlock.toml:4:9: transport.http.tokens[0].tools: expected an array of strings, got "
            "\"x\"");
}

TEST(HostConfig, RejectsTokensWrittenAsAPlainTable) {
  EXPECT_EQ(error_of("[transport.http.tokens]\nidentity = \"a\"\n"),
            "airlock.toml:1:1: transport.http.tokens: expected an array of tables "
            "([[transport.http.tokens]]), got a table");
  EXPECT_EQ(error_of("[transport.http]\ntokens = [\"abc\"]\n"),
            "airlock.toml:2:10: transport.http.tokens: expected an array of tables "
            "([[transport.http.tokens]]), got an array");
}

// A directory of its own for one test's config and token files.
class TokenFiles : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) /
           ("airlock-token-files-" +
            std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "secrets");
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const fs::path& name, std::string_view text) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // Writes airlock.toml with one token whose `file` is `token_file`.
  Result<Config> load_with_token_file(std::string_view token_file) {
    return load_config(write("airlock.toml", token_table("identity = \"ci\"\nfile = \"" +
                                                         std::string(token_file) + "\"\n")));
  }

  fs::path dir_;
};

TEST_F(TokenFiles, HashesTheFileRelativeToTheConfigWithTrailingWhitespaceTrimmed) {
  write("secrets/ci.token", "abc\n");
  const auto config = load_with_token_file("secrets/ci.token");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  ASSERT_EQ(config->http.tokens.size(), 1u);
  EXPECT_EQ(config->http.tokens[0].identity, "ci");
  EXPECT_EQ(config->http.tokens[0].sha256, sha256("abc"));
}

TEST_F(TokenFiles, TrimsCarriageReturnsSpacesAndTabsButKeepsPadding) {
  write("a.token", "abc== \t\r\n\n");
  const auto config = load_with_token_file("a.token");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->http.tokens.at(0).sha256, sha256("abc=="));
}

TEST_F(TokenFiles, AcceptsAnAbsolutePath) {
  const fs::path token = write("secrets/abs.token", "abc");
  const auto config = load_with_token_file(token.string());
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->http.tokens.at(0).sha256, sha256("abc"));
}

TEST_F(TokenFiles, ReportsAMissingFileByItsResolvedPathAndReason) {
  const auto config = load_with_token_file("secrets/missing.token");
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().message,
            (dir_ / "airlock.toml").string() + ":3:8: transport.http.tokens[0].file: " +
                (dir_ / "secrets/missing.token").string() +
                ": cannot read: No such file or directory");
}

// /dev/zero never ends: a path to a device or a log by mistake is refused
// once it passes the cap, not read until the server runs out of memory.
TEST_F(TokenFiles, RefusesAFileLargerThanAConfigOrKeyCouldBe) {
  const auto config = load_with_token_file("/dev/zero");
  ASSERT_FALSE(config.has_value());
  EXPECT_THAT(config.error().message, HasSubstr("transport.http.tokens[0].file: /dev/zero: larger than 1 MiB"));
}

TEST_F(TokenFiles, ReportsADirectoryAsUnreadable) {
  const auto config = load_with_token_file("secrets");
  ASSERT_FALSE(config.has_value());
  EXPECT_THAT(config.error().message,
              HasSubstr((dir_ / "secrets").string() + ": cannot read: Is a directory"));
}

TEST_F(TokenFiles, ReportsAnEmptyOrBlankFile) {
  for (const char* content : {"", "\n", "  \t\r\n"}) {
    SCOPED_TRACE(testing::PrintToString(content));
    write("blank.token", content);
    const auto config = load_with_token_file("blank.token");
    ASSERT_FALSE(config.has_value());
    EXPECT_THAT(config.error().message,
                HasSubstr("transport.http.tokens[0].file: " + (dir_ / "blank.token").string() +
                          ": the token file is empty"));
  }
}

TEST_F(TokenFiles, ReportsATokenNoBearerHeaderCanCarryWithoutEchoingIt) {
  for (const char* content : {"zq9 with-space\n", "zq9\nsecond-line\n", "zq9\xc3\xa9", "=zq9",
                              "zq9\"x"}) {
    SCOPED_TRACE(testing::PrintToString(content));
    write("odd.token", content);
    const auto config = load_with_token_file("odd.token");
    ASSERT_FALSE(config.has_value());
    EXPECT_THAT(config.error().message,
                HasSubstr((dir_ / "odd.token").string() +
                          ": the token holds a character an Authorization: Bearer header cannot "
                          "carry"));
    EXPECT_THAT(config.error().message, testing::Not(HasSubstr("zq9")));
  }
}

TEST_F(TokenFiles, ReportsTheSameTokenFromAFileAndADigest) {
  write("abc.token", "abc\n");
  const auto config = load_config(
      write("airlock.toml", token_table("identity = \"one\"\nfile = \"abc.token\"\n") +
                                token_table("identity = \"two\"\n" + sha256_line())));
  ASSERT_FALSE(config.has_value());
  EXPECT_THAT(config.error().message, HasSubstr("identity \"two\" has the same token as \"one\""));
}

// --- egress

TEST(HostConfigEgress, ReadsGrantsAddressesAndHostWideSettings) {
  const auto config = parse(R"([egress]
timeout_ms = 2500
max_response_bytes = 4096
max_redirects = 2

[egress.hosts]
"Docs.Test" = ["127.0.0.1", "::1"]

[tools."web.fetch"]
egress = ["https://*.example.org", "http://docs.test:8080"]
egress_addresses = ["127.0.0.0/8"]

[tools."web.*"]
egress = []
)");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->egress.timeout_ms, 2500u);
  EXPECT_EQ(config->egress.max_response_bytes, 4096u);
  EXPECT_EQ(config->egress.max_redirects, 2u);
  ASSERT_EQ(config->egress.hosts.count("docs.test"), 1u);  // names are lowercased
  EXPECT_EQ(config->egress.hosts.at("docs.test").size(), 2u);
  ASSERT_EQ(config->tools.size(), 2u);
  const auto& fetch = config->tools[0];
  ASSERT_TRUE(fetch.egress.has_value());
  ASSERT_EQ(fetch.egress->size(), 2u);
  EXPECT_EQ((*fetch.egress)[0].text, "https://*.example.org");
  EXPECT_EQ((*fetch.egress)[1].port, std::optional<std::uint16_t>(8080));
  ASSERT_EQ(fetch.egress_addresses.size(), 1u);
  EXPECT_EQ(fetch.egress_addresses[0].text, "127.0.0.0/8");
  // An empty list is a binding that grants nothing, not an absent one.
  ASSERT_TRUE(config->tools[1].egress.has_value());
  EXPECT_TRUE(config->tools[1].egress->empty());
}

TEST(HostConfigEgress, DefaultsGrantNothing) {
  const auto config = parse("[tools.\"web.fetch\"]\nchain = \"none\"\n");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_FALSE(config->tools[0].egress.has_value());
  EXPECT_TRUE(config->egress.hosts.empty());
  EXPECT_EQ(config->egress.max_redirects, 5u);
}

TEST(HostConfigEgress, NamesTheGrantThatDoesNotParse) {
  const auto message = error_of("[tools.\"web.fetch\"]\negress = [\"https://ok.example\", \"https://a.example/path\"]\n");
  EXPECT_THAT(message, HasSubstr("airlock.toml:2:"));
  EXPECT_THAT(message, HasSubstr("tools.\"web.fetch\".egress[1]"));
}

TEST(HostConfigEgress, RefusesAddressGrantsWithoutDestinations) {
  const auto message = error_of("[tools.\"web.fetch\"]\negress_addresses = [\"10.0.0.0/8\"]\n");
  EXPECT_THAT(message, HasSubstr("egress_addresses"));
  EXPECT_THAT(message, HasSubstr("'egress'"));
}

TEST(HostConfigEgress, RefusesABadAddressRange) {
  const auto message =
      error_of("[tools.\"web.fetch\"]\negress = [\"http://x.test\"]\negress_addresses = [\"10.0.0.0/33\"]\n");
  EXPECT_THAT(message, HasSubstr("egress_addresses[0]"));
}

TEST(HostConfigEgress, RefusesResolverEntriesThatAreNotAddresses) {
  EXPECT_THAT(error_of("[egress.hosts]\n\"docs.test\" = [\"localhost\"]\n"),
              HasSubstr("expected an IPv4 or IPv6 address, got \"localhost\""));
  EXPECT_THAT(error_of("[egress.hosts]\n\"docs test\" = [\"127.0.0.1\"]\n"), HasSubstr("expected a host name"));
  EXPECT_THAT(error_of("[egress]\nmax_redirects = 21\n"), HasSubstr("egress.max_redirects"));
  EXPECT_THAT(error_of("[egress]\nproxy = \"x\"\n"), HasSubstr("unknown key 'proxy' in [egress]"));
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

TEST(HostConfigAudit, IsOffWithoutTheTableAndReadsEveryKeyWithIt) {
  const auto off = parse("");
  ASSERT_TRUE(off.has_value());
  EXPECT_FALSE(off->audit.enabled);
  const auto config = parse("[audit]\nsink = \"file\"\nfile = \"log/audit.log\"\nformat = \"cef\"\nqueue = 64\n"
                            "checkpoint_interval_s = 10\nsigning_key_file = \"audit.key\"\nrecord_arguments = true\n"
                            "replica = \"node-a\"\n");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  const AuditConfig& audit = config->audit;
  EXPECT_TRUE(audit.enabled);
  EXPECT_EQ(audit.sink, AuditSinkKind::file);
  EXPECT_TRUE(audit.file.is_absolute());
  EXPECT_EQ(audit.file.filename(), "audit.log");
  EXPECT_EQ(audit.format, AuditFormat::cef);
  EXPECT_EQ(audit.queue, 64u);
  EXPECT_EQ(audit.checkpoint_interval_s, 10u);
  ASSERT_TRUE(audit.signing_key_file.has_value());
  EXPECT_TRUE(audit.signing_key_file->is_absolute());
  EXPECT_TRUE(audit.record_arguments);
  EXPECT_EQ(audit.replica, "node-a");
  const auto syslog = parse("[audit]\nsink = \"syslog\"\n");
  ASSERT_TRUE(syslog.has_value()) << syslog.error().message;
  EXPECT_EQ(syslog->audit.syslog_socket, "/dev/log");
  EXPECT_EQ(syslog->audit.format, AuditFormat::ocsf);
}

TEST(HostConfigAudit, NamesWhatIsWrong) {
  EXPECT_THAT(error_of("[audit]\nsink = \"file\"\n"), HasSubstr("missing key 'file'"));
  EXPECT_THAT(error_of("[audit]\n"), HasSubstr("missing key 'file'")) << "file is the default sink";
  EXPECT_THAT(error_of("[audit]\nsink = \"kafka\"\n"), HasSubstr("audit.sink"));
  EXPECT_THAT(error_of("[audit]\nsink = \"stderr\"\nformat = \"leef\"\n"), HasSubstr("\"ocsf\""));
  EXPECT_THAT(error_of("[audit]\nsink = \"stderr\"\nqueue = 1\n"), HasSubstr("audit.queue"));
  EXPECT_THAT(error_of("[audit]\nsink = \"stderr\"\ncheckpoint_interval_s = 0\n"),
              HasSubstr("audit.checkpoint_interval_s"));
  EXPECT_THAT(error_of("[audit]\nsink = \"stderr\"\nreplica = \"a b\"\n"), HasSubstr("audit.replica"));
  EXPECT_THAT(error_of("[audit]\nsink = \"stderr\"\nrecord_argument = true\n"), HasSubstr("record_argument"));
}

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
