// [transport.http] and [[transport.http.tokens]] (config/http_section.cpp).
#include "config_test_support.hpp"
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
using config_test::error_of;
using config_test::parse;
using testing::HasSubstr;

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
max_body_bytes_in_flight = 8388608
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
  EXPECT_EQ(http.max_body_bytes_in_flight, 8u << 20);
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
  EXPECT_EQ(http.max_body_bytes_in_flight, 1u << 20);
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
    {"max_body_bytes_in_flight", 65'536, std::int64_t{1} << 40},
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

}  // namespace
}  // namespace airlock::host
