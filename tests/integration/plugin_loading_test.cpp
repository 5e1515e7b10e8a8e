// Loading plugins: each broken fixture is refused with one clear line, a
// skipped one leaves the rest serving, and config errors name file and line.
#include "integration.hpp"

#include <sstream>

namespace airlock::test {
namespace {

using testing::HasSubstr;
using testing::Not;
namespace json = boost::json;

std::string config_for(std::initializer_list<std::filesystem::path> dirs, std::string_view on_error,
                       std::string_view rest = "") {
  return "[server]\nname = \"test-server\"\n\n[plugins]\n" + toml_dirs(dirs) + "\non_error = \"" +
         std::string(on_error) + "\"\n\n" + std::string(rest);
}

// The lines of `text` that contain every one of `needles`.
std::vector<std::string> lines_with(const std::string& text, std::vector<std::string> needles) {
  std::vector<std::string> found;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    bool all = true;
    for (const std::string& n : needles) all = all && line.find(n) != std::string::npos;
    if (all) found.push_back(line);
  }
  return found;
}

struct BadPlugin {
  const char* fixture;
  const char* reason;  // must appear on the line naming the file
};

std::string bad_plugin_name(const testing::TestParamInfo<BadPlugin>& info) {
  return info.param.fixture;
}

const BadPlugin kBadPlugins[] = {
    {"not_a_shared_object", "not a shared object"},
    {"wrong_architecture", "architecture"},
    {"no_abi_version", "airlock_plugin_abi_version"},
    {"no_init", "airlock_plugin_init"},
    {"abi_major_too_new", "abi 2.0"},
    {"abi_minor_too_new", "abi 1.99"},
    {"init_fails", "missing setting 'api_key'"},
    {"invalid_schema", "bad.schema"},
};

class BadPluginRefused : public testing::TestWithParam<BadPlugin> {};

TEST_P(BadPluginRefused, ServeExitsNamingTheFileAndTheReason) {
  const BadPlugin& bad = GetParam();
  TempConfig config(config_for({fixture_dir(bad.fixture)}, "fail"));
  // stdin stays open: the server must stop by itself.
  McpStdioClient client(serve_argv(config.path()));
  ASSERT_TRUE(client.process().wait_exit(5s)) << "serve kept running with a broken plugin";
  const std::optional<int> code = client.finish(1s);  // also reads what reached stdout
  ASSERT_TRUE(code);
  EXPECT_NE(0, *code);
  const std::string log = client.stderr_text();
  const std::string file = fixture_file(bad.fixture).string();
  EXPECT_EQ(1u, lines_with(log, {file, bad.reason}).size())
      << "want one line naming " << file << " and '" << bad.reason << "'; stderr:\n"
      << log;
  EXPECT_TRUE(client.lines().empty()) << "nothing may reach stdout";
}

TEST_P(BadPluginRefused, ListExitsNamingTheFileAndTheReason) {
  const BadPlugin& bad = GetParam();
  TempConfig config(config_for({fixture_dir(bad.fixture)}, "fail"));
  const RunResult r = run(list_argv(config.path()));
  ASSERT_TRUE(r.exit_code) << "list did not exit";
  EXPECT_NE(0, *r.exit_code);
  const std::string file = fixture_file(bad.fixture).string();
  EXPECT_EQ(1u, lines_with(r.err, {file, bad.reason}).size())
      << "want one line naming " << file << " and '" << bad.reason << "'; stderr:\n"
      << r.err;
}

TEST_P(BadPluginRefused, IsSkippedWhileTheOtherPluginsServe) {
  const BadPlugin& bad = GetParam();
  TempConfig config(config_for({kPluginDir, fixture_dir(bad.fixture)}, "skip"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message list = client->call("tools/list");
  EXPECT_THAT(list.line, HasSubstr(R"("name":"example.echo")"));
  const Message echo = client->call_tool("example.echo", json::object{{"text", "hi"}});
  EXPECT_EQ("hi", first_text(echo)) << echo.line;
  EXPECT_EQ(0, client->finish(3s));
  EXPECT_THAT(client->stderr_text(), HasSubstr(fixture_file(bad.fixture).string()));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BadPluginRefused, testing::ValuesIn(kBadPlugins),
                         bad_plugin_name);

TEST(PluginLoading, RefusesInvalidSchemaSayingSchema) {
  TempConfig config(config_for({fixture_dir("invalid_schema")}, "fail"));
  const RunResult r = run(serve_argv(config.path()));
  ASSERT_TRUE(r.exit_code);
  EXPECT_NE(0, *r.exit_code);
  EXPECT_EQ(1u, lines_with(r.err, {"invalid_schema.so", "bad.schema", "schema"}).size()) << r.err;
}

TEST(PluginLoading, RefusesDuplicateToolNamingBothFiles) {
  TempConfig config(config_for({fixture_dir("duplicate_tool_a"), fixture_dir("duplicate_tool_b")},
                               "fail"));
  for (const std::vector<std::string>& argv : {serve_argv(config.path()), list_argv(config.path())}) {
    const RunResult r = run(argv);
    ASSERT_TRUE(r.exit_code) << argv[1] << " did not exit";
    EXPECT_NE(0, *r.exit_code) << argv[1];
    EXPECT_EQ(1u, lines_with(r.err, {"dup.tool", "duplicate_tool_a.so", "duplicate_tool_b.so"}).size())
        << argv[1] << " stderr:\n"
        << r.err;
  }
}

TEST(PluginLoading, SkipsTheSecondOfTwoDuplicateTools) {
  TempConfig config(config_for(
      {kPluginDir, fixture_dir("duplicate_tool_a"), fixture_dir("duplicate_tool_b")}, "skip"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message list = client->call("tools/list");
  const json::value* tools = find(list, "/result/tools");
  ASSERT_TRUE(tools && tools->is_array()) << list.line;
  int dup = 0;
  for (const json::value& t : tools->as_array())
    if (t.as_object().at("name") == "dup.tool") ++dup;
  EXPECT_EQ(1, dup) << list.line;
  EXPECT_EQ(0, client->finish(3s));
  EXPECT_THAT(client->stderr_text(), HasSubstr("dup.tool"));
}

TEST(PluginLoading, LoadsAPluginBuiltAgainstFrozenAbi10) {
  TempConfig config(config_for({fixture_dir("frozen_abi_1_0")}, "fail"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call_tool("frozen.echo", json::object{{"text", "x"}});
  EXPECT_EQ("frozen abi 1.0", first_text(m)) << m.line << "\nstderr:\n" << client->stderr_text();
}

// airlock.h promises INVALID_ARGUMENT (or "{}", or nothing) for a NULL
// handle or struct pointer to every host function; the fixture tries each,
// in init and in a call, and names any that answered otherwise. In-process a
// dereferenced NULL would take the whole server down, so the suite's two
// modes also show both tables agree.
TEST(PluginLoading, APluginThatPassesNullEverywhereIsRefusedCallByCallAndTheServerKeepsServing) {
  TempConfig config(config_for({fixture_dir("null_handles"), kPluginDir}, "fail"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message probe = client->call_tool("null-handles.probe", json::object{});
  EXPECT_EQ("all refused", first_text(probe)) << probe.line << "\nstderr:\n" << client->stderr_text();
  const Message echo = client->call_tool("example.echo", json::object{{"text", "still here"}});
  EXPECT_EQ("still here", first_text(echo)) << echo.line;
  EXPECT_EQ(0, client->finish(3s));
}

TEST(PluginLoading, ResolvesRelativeDirsAgainstTheConfigFile) {
  // Written relative to the config's directory; started from "/", so a
  // path resolved against the working directory would not find it.
  TempConfig config("");
  const std::filesystem::path relative = std::filesystem::relative(kPluginDir, config.dir());
  ASSERT_TRUE(relative.is_relative()) << relative;
  config.write("[server]\nname = \"test-server\"\n\n[plugins]\ndirs = [" +
               toml_string(relative.string()) + "]\n");
  McpStdioClient client(serve_argv(config.path()), Subprocess::Options{"/"});
  EXPECT_NE(nullptr, find(client.initialize(), "/result")) << client.stderr_text();
  const Message echo = client.call_tool("example.echo", json::object{{"text", "rel"}});
  EXPECT_EQ("rel", first_text(echo)) << echo.line << "\nstderr:\n" << client.stderr_text();
}

TEST(ConfigErrors, NamesFileLineAndUnknownSanitizer) {
  const std::string toml = standard_config("[chains.broken]\nsteps = [\"nope.x\"]\n");
  // The line of `steps = ["nope.x"]` and of its table header, 1-based.
  const auto count_lines = [&](std::string_view upto) {
    return std::count(toml.begin(), toml.begin() + static_cast<long>(toml.find(upto)), '\n') + 1;
  };
  const long steps_line = count_lines("steps = [\"nope.x\"]");
  const long header_line = count_lines("[chains.broken]");
  TempConfig config(toml);
  for (const std::vector<std::string>& argv : {serve_argv(config.path()), list_argv(config.path())}) {
    const RunResult r = run(argv);
    ASSERT_TRUE(r.exit_code) << argv[1] << " did not exit";
    EXPECT_NE(0, *r.exit_code);
    EXPECT_THAT(r.err, HasSubstr("nope.x"));
    const std::string at_step = "airlock.toml:" + std::to_string(steps_line) + ":";
    const std::string at_header = "airlock.toml:" + std::to_string(header_line) + ":";
    EXPECT_TRUE(r.err.find(at_step) != std::string::npos || r.err.find(at_header) != std::string::npos)
        << "want " << at_step << " in stderr:\n"
        << r.err;
  }
}

TEST(ConfigErrors, NamesAMissingConfigFile) {
  const RunResult r = run(serve_argv("/nonexistent/airlock.toml"));
  ASSERT_TRUE(r.exit_code);
  EXPECT_NE(0, *r.exit_code);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/airlock.toml"));
}

TEST(ConfigErrors, NamesTheLineOfATomlSyntaxError) {
  TempConfig config("[server]\nname = \"x\"\nworkers = = 3\n");
  const RunResult r = run(serve_argv(config.path()));
  ASSERT_TRUE(r.exit_code);
  EXPECT_NE(0, *r.exit_code);
  EXPECT_THAT(r.err, HasSubstr("airlock.toml:3"));
}

TEST(ListCommand, PrintsPluginsToolsSanitizersAndChains) {
  TempConfig config(standard_config(
      "[chains.default]\nsteps = [\"airlock.strip-control\"]\n"
      "[chains.failing]\nsteps = [\"canary.fail\"]\n\n"
      "[tools.\"canary.*\"]\nchain = \"failing\"\n"));
  const RunResult r = run(list_argv(config.path()));
  ASSERT_EQ(0, r.exit_code) << r.err;
  for (const char* file : {"airlock_identity.so", "airlock_strip_control.so", "example_echo.so",
                           "example_hello_c.so", "canary.so"})
    EXPECT_THAT(r.out, HasSubstr(file));
  for (const char* name : {"example.echo", "example.hello-c", "canary.echo", "canary.slow",
                           "airlock.identity", "airlock.strip-control", "canary.fail",
                           "canary.redact"})
    EXPECT_THAT(r.out, HasSubstr(name));
  EXPECT_FALSE(lines_with(r.out, {"canary.echo", "failing"}).empty())
      << "canary.echo's line must name its chain:\n"
      << r.out;
  EXPECT_FALSE(lines_with(r.out, {"example.echo", "default"}).empty() &&
               lines_with(r.out, {"example.echo", "airlock.strip-control"}).empty())
      << "example.echo's line must name its chain:\n"
      << r.out;
}

}  // namespace
}  // namespace airlock::test
