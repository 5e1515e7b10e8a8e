// The MCP session over stdio: the handshake, tools/list paging, tools/call.
#include "integration.hpp"

namespace airlock::test {
namespace {

using testing::HasSubstr;
namespace json = boost::json;

TEST(StdioSession, AnswersPingBeforeInitialize) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = serve(config.path());
  const Message pong = client->call("ping");
  ASSERT_NE(nullptr, find(pong, "/result")) << pong.line;
  EXPECT_EQ(json::value(json::object{}), *find(pong, "/result")) << pong.line;
  EXPECT_EQ("2.0", string_at(pong, "/jsonrpc"));
}

TEST(StdioSession, RejectsOtherRequestsBeforeInitialize) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = serve(config.path());
  for (const char* method : {"tools/list", "tools/call"}) {
    const Message m = client->call(method);
    EXPECT_EQ(-32600, int_at(m, "/error/code")) << method << ": " << m.line;
    EXPECT_THAT(string_at(m, "/error/message"), HasSubstr("not initialized")) << m.line;
  }
  EXPECT_NE(nullptr, find(client->initialize(), "/result"));
}

TEST(StdioSession, EchoesSupportedProtocolVersions) {
  TempConfig config(standard_config());
  for (const char* version : {"2025-06-18", "2025-11-25"}) {
    std::unique_ptr<McpStdioClient> client = serve(config.path());
    const Message init = client->initialize(version);
    EXPECT_EQ(version, string_at(init, "/result/protocolVersion")) << init.line;
  }
}

TEST(StdioSession, AnswersUnknownProtocolVersionWithLatest) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = serve(config.path());
  const Message init = client->initialize("1999-01-01");
  EXPECT_EQ("2025-11-25", string_at(init, "/result/protocolVersion")) << init.line;
}

TEST(StdioSession, AnnouncesToolsCapabilityAndServerInfo) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = serve(config.path());
  const Message init = client->initialize();
  const json::value* tools = find(init, "/result/capabilities/tools");
  ASSERT_NE(nullptr, tools) << init.line;
  EXPECT_TRUE(tools->is_object()) << init.line;
  EXPECT_EQ("test-server", string_at(init, "/result/serverInfo/name")) << init.line;
  EXPECT_FALSE(string_at(init, "/result/serverInfo/version").empty()) << init.line;
}

TEST(StdioSession, RejectsSecondInitialize) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message again = client->call(
      "initialize", {{"protocolVersion", "2025-11-25"},
                     {"capabilities", json::object{}},
                     {"clientInfo", {{"name", "again"}, {"version", "0"}}}});
  EXPECT_EQ(-32600, int_at(again, "/error/code")) << again.line;
  EXPECT_THAT(string_at(again, "/error/message"), HasSubstr("already initialized"));
  EXPECT_NE(nullptr, find(client->call("ping"), "/result"));
}

TEST(StdioSession, ExitsWithZeroOnEndOfInput) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  EXPECT_EQ(0, client->finish(3s)) << client->stderr_text();
}

TEST(StdioSession, ExitsWithZeroOnEndOfInputBeforeInitialize) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = serve(config.path());
  EXPECT_EQ(0, client->finish(3s)) << client->stderr_text();
}

// Pages through tools/list and returns every tool, failing on a bad page.
std::vector<json::object> list_all_tools(McpStdioClient& client, int& pages) {
  std::vector<json::object> tools;
  std::optional<std::string> cursor;
  pages = 0;
  for (int guard = 0; guard < 100; ++guard) {
    json::object params;
    if (cursor) params["cursor"] = *cursor;
    const Message page = client.call("tools/list", params);
    ++pages;
    const json::value* list = find(page, "/result/tools");
    if (!list || !list->is_array()) {
      ADD_FAILURE() << "tools/list page without tools: " << page.line;
      break;
    }
    for (const json::value& tool : list->as_array()) tools.push_back(tool.as_object());
    const json::value* next = find(page, "/result/nextCursor");
    if (!next || next->is_null()) break;
    if (!next->is_string()) {
      ADD_FAILURE() << "nextCursor is not a string: " << page.line;
      break;
    }
    EXPECT_LE(list->as_array().size(), 2u) << "page_size = 2: " << page.line;
    cursor = std::string(next->as_string());
  }
  return tools;
}

TEST(ToolsList, PagesThroughEveryToolOnceInNameOrder) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  int pages = 0;
  const std::vector<json::object> tools = list_all_tools(*client, pages);

  std::vector<std::string> names;
  for (const json::object& tool : tools) {
    ASSERT_TRUE(tool.contains("name") && tool.at("name").is_string()) << json::serialize(tool);
    names.emplace_back(tool.at("name").as_string());
    ASSERT_TRUE(tool.contains("inputSchema")) << json::serialize(tool);
    EXPECT_TRUE(tool.at("inputSchema").is_object()) << json::serialize(tool);
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, names) << "tools are not sorted by name";
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end())
      << "a tool is listed twice";
  for (const char* expected : {"example.echo", "example.hello-c", "canary.echo", "canary.slow",
                               "canary.structured", "canary.throws"}) {
    EXPECT_THAT(names, testing::Contains(std::string(expected)));
  }
  // Six tools at least, two a page: a cursor appeared until the last page.
  EXPECT_EQ(pages, static_cast<int>((names.size() + 1) / 2));
}

TEST(ToolsList, RejectsGarbageCursor) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call("tools/list", {{"cursor", "%%garbage%%"}});
  EXPECT_EQ(-32602, int_at(m, "/error/code")) << m.line;
}

TEST(ToolsCall, ReturnsEchoedText) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call_tool("example.echo", json::object{{"text", "hi"}});
  const json::value* content = find(m, "/result/content");
  ASSERT_NE(nullptr, content) << m.line;
  EXPECT_EQ(json::parse(R"([{"type":"text","text":"hi"}])"), *content) << m.line;
  EXPECT_FALSE(is_tool_error(m)) << m.line;
}

TEST(ToolsCall, StripsControlCharactersWithDefaultChain) {
  TempConfig config(standard_config("[chains.default]\nsteps = [\"airlock.strip-control\"]\n"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m =
      client->call_tool("example.echo", json::object{{"text", "a\x1b[31mred\x1b[0m\x07" "b"}});
  EXPECT_EQ("aredb", first_text(m)) << m.line;
}

TEST(ToolsCall, KeepsNewlinesAndTabsThroughStripControl) {
  TempConfig config(standard_config("[chains.default]\nsteps = [\"airlock.strip-control\"]\n"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call_tool("example.echo", json::object{{"text", "a\nb\tc\x01"}});
  EXPECT_EQ("a\nb\tc", first_text(m)) << m.line;
}

TEST(ToolsCall, KeepsMultibyteUtf8ThroughStripControl) {
  // U+2713 is E2 9C 93: two of its bytes look like C1 controls to a byte-wise
  // filter. A real C1 control, U+0085 (C2 85), must still go.
  TempConfig config(standard_config("[chains.default]\nsteps = [\"airlock.strip-control\"]\n"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call_tool(
      "example.echo", json::object{{"text", "h\u00e9llo \u2713 \u65e5\u672c\u0085!"}});
  EXPECT_EQ("h\u00e9llo \u2713 \u65e5\u672c!", first_text(m)) << m.line;
}

TEST(ToolsCall, EchoesALargeTextUnderTheMessageLimit) {
  TempConfig config(standard_config("[chains.default]\nsteps = [\"airlock.strip-control\"]\n"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const std::string text(60 * 1024, 'z');
  const Message m = client->call_tool("example.echo", json::object{{"text", text}});
  EXPECT_EQ(text, first_text(m)) << m.line.substr(0, 200);
}

TEST(ToolsCall, RejectsUnknownToolNamingIt) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call_tool("nosuch.tool", json::object{});
  EXPECT_EQ(-32602, int_at(m, "/error/code")) << m.line;
  EXPECT_THAT(string_at(m, "/error/message"), HasSubstr("nosuch.tool"));
}

TEST(ToolsCall, RejectsArgumentsThatAreNotAnObject) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  for (const json::value& arguments : {json::value("text"), json::value(json::array{1, 2}),
                                       json::value(7)}) {
    const Message m = client->call_tool("example.echo", arguments);
    EXPECT_EQ(-32602, int_at(m, "/error/code")) << m.line;
  }
}

TEST(ToolsCall, GivesTheToolAnEmptyObjectWhenArgumentsAreMissing) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call_tool("example.hello-c", std::nullopt);
  EXPECT_THAT(all_texts(m), testing::Contains(std::string("hello from a C11 plugin"))) << m.line;
  EXPECT_EQ(2, int_at(m, "/result/structuredContent/argumentsBytes", -1)) << m.line;
}

TEST(ToolsCall, ReportsToolExceptionAsToolErrorThroughTheChain) {
  TempConfig config(standard_config("[chains.default]\nsteps = [\"airlock.strip-control\"]\n"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call_tool("canary.throws", json::object{});
  EXPECT_FALSE(is_error(m)) << "a tool error is a result, not a JSON-RPC error: " << m.line;
  EXPECT_TRUE(is_tool_error(m)) << m.line;
  EXPECT_THAT(first_text(m), HasSubstr("boom")) << m.line;
}

TEST(ToolsCall, ReturnsStructuredContent) {
  TempConfig config(standard_config());
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call_tool("canary.structured", json::object{});
  EXPECT_EQ(kCanary, string_at(m, "/result/structuredContent/secret")) << m.line;
  EXPECT_EQ(1, int_at(m, "/result/structuredContent/n")) << m.line;
}

TEST(Cli, PrintsVersion) {
  const RunResult r = run({kAirlockBinary, "--version"});
  EXPECT_EQ(0, r.exit_code) << r.err;
  EXPECT_THAT(r.out, HasSubstr(kAirlockVersion));
}

}  // namespace
}  // namespace airlock::test
