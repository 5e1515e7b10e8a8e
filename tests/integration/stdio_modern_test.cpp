// MCP 2026-07-28 over stdio: before any initialize, each request carrying
// the revision's _meta stands alone; an initialize makes the process a
// 2025 session, as before. One stdio server, the real binary.
#include "integration.hpp"

namespace airlock::test {
namespace {

using testing::HasSubstr;
namespace json = boost::json;

std::string interactive_config() {
  return "[server]\nname = \"stdio-modern\"\nworkers = 2\n\n[plugins]\n" + toml_dirs({fixture_dir("interactive")}) +
         "\non_error = \"fail\"\n";
}

json::object with_meta(json::object params, json::object capabilities = {{"elicitation", json::object{}}}) {
  params["_meta"] = json::object{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                                 {"io.modelcontextprotocol/clientCapabilities", std::move(capabilities)}};
  return params;
}

TEST(StdioModern, StandAloneRequestsAreServedWithoutInitialize) {
  TempConfig config(interactive_config());
  std::unique_ptr<McpStdioClient> client = serve(config.path());

  const Message discover = client->call("server/discover", with_meta({}));
  EXPECT_EQ("complete", string_at(discover, "/result/resultType")) << discover.line;
  EXPECT_EQ("2026-07-28", string_at(discover, "/result/supportedVersions/0")) << discover.line;
  EXPECT_EQ("stdio-modern", string_at(discover, "/result/_meta/io.modelcontextprotocol~1serverInfo/name"));

  // Without the _meta a 2025 method needs a session first, and a
  // 2026-07-28 one is refused for what it lacks.
  const Message bare = client->call("tools/list", {});
  EXPECT_EQ(-32600, int_at(bare, "/error/code")) << bare.line;
  EXPECT_THAT(string_at(bare, "/error/message"), HasSubstr("server not initialized")) << bare.line;
  const Message bare_discover = client->call("server/discover", {});
  EXPECT_EQ(-32602, int_at(bare_discover, "/error/code")) << bare_discover.line;
  // ping is gone from 2026-07-28.
  const Message ping = client->call("ping", with_meta({}));
  EXPECT_EQ(-32601, int_at(ping, "/error/code")) << ping.line;

  // The elicitation round trip, with no state kept in the process.
  const json::object call{{"name", "interactive.elicit"}, {"arguments", {{"message", "Name?"}}}};
  const Message first = client->call("tools/call", with_meta(call));
  ASSERT_EQ("input_required", string_at(first, "/result/resultType")) << first.line;
  EXPECT_EQ("elicitation/create", string_at(first, "/result/inputRequests/input-1/method")) << first.line;
  json::object retry = call;
  retry["inputResponses"] = json::object{{"input-1", {{"action", "decline"}}}};
  retry["requestState"] = string_at(first, "/result/requestState");
  const Message done = client->call("tools/call", with_meta(retry));
  EXPECT_EQ("complete", string_at(done, "/result/resultType")) << done.line;
  EXPECT_THAT(first_text(done), HasSubstr("action=decline")) << done.line;
}

TEST(StdioModern, AfterInitializeTheProcessIsA2025Session) {
  TempConfig config(interactive_config());
  std::unique_ptr<McpStdioClient> client = serve(config.path());
  const Message init = client->initialize("2025-11-25");
  ASSERT_NE(nullptr, find(init, "/result")) << init.line;
  const Message list = client->call("tools/list", {});
  EXPECT_NE(nullptr, find(list, "/result/tools")) << list.line;
  EXPECT_EQ(nullptr, find(list, "/result/resultType")) << "2025 results are unchanged: " << list.line;
  EXPECT_EQ("{}", json::serialize(client->call("ping", {}).json.at("result")));
}

}  // namespace
}  // namespace airlock::test
