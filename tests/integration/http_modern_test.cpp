// MCP 2026-07-28 over Streamable HTTP, from outside: the real binary serves
// sessions (initialize, 2025-11-25) and stand-alone requests (no initialize,
// _meta on every request) on one endpoint at once. The same unchanged tool
// that elicits works in both: in a session the server asks on the stream and
// waits; in a stand-alone request it answers with an InputRequiredResult and
// runs the tool again on the retry. Every refusal has the revision's code and
// HTTP status, and a requestState that was tampered with, or sealed by a
// server with another key, is refused.
#include "http_integration.hpp"

#include <fstream>

namespace airlock::test {
namespace {

using testing::HasSubstr;
namespace json = boost::json;

constexpr std::string_view kModern = "2026-07-28";

json::object modern_meta(json::object capabilities = {{"elicitation", json::object{}}}) {
  return json::object{{"io.modelcontextprotocol/protocolVersion", kModern},
                      {"io.modelcontextprotocol/clientCapabilities", std::move(capabilities)}};
}

// A stand-alone 2026-07-28 request with the headers the revision asks for.
McpReply modern(McpHttpClient& client, std::string_view method, json::object params, std::string_view name = {},
                std::optional<json::object> meta = std::nullopt) {
  params["_meta"] = meta ? std::move(*meta) : modern_meta();
  client.set_protocol_header(std::string(kModern));
  client.set_header("Mcp-Method", std::string(method));
  client.set_header("Mcp-Name", std::string(name));
  return client.send(rpc_request(client.next_id(), method, std::move(params)));
}

json::object elicit_call(json::object extra = {}) {
  json::object params{{"name", "interactive.elicit"}, {"arguments", {{"message", "Who are you?"}}}};
  for (auto& [k, v] : extra) params[k] = v;
  return params;
}

const json::object kAnswer{{"action", "accept"}, {"content", {{"username", "ada"}, {"email", "ada@example.test"}}}};

class HttpModern : public testing::Test {
 protected:
  void SetUp() override {
    // base64 of 32 bytes; replicas that share it serve each other's retries
    std::ofstream(key_file_) << "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=\n";
    std::filesystem::permissions(key_file_, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    server_ = std::make_unique<HttpServerUnderTest>(http_config("", "", server_extra()));
    ASSERT_TRUE(server_->server.ready()) << server_->server.stderr_text();
  }
  std::string server_extra() const { return "request_state_key_file = " + toml_string(key_file_.string()) + "\n"; }
  std::uint16_t port() const { return server_->port(); }

  TempConfig key_dir_{"", "unused.toml"};
  std::filesystem::path key_file_ = key_dir_.dir() / "state.key";
  std::unique_ptr<HttpServerUnderTest> server_;
};

TEST_F(HttpModern, DiscoverSaysWhatTheServerSpeaksAndEveryResultIdentifiesIt) {
  McpHttpClient client(port());
  const McpReply reply = modern(client, "server/discover", {});
  ASSERT_EQ(200, reply.http.status) << reply.describe();
  EXPECT_TRUE(reply.http.header_or_empty("mcp-session-id").empty()) << "no session in 2026-07-28";
  EXPECT_EQ("complete", string_at(reply.response, "/result/resultType"));
  EXPECT_EQ("2026-07-28", string_at(reply.response, "/result/supportedVersions/0"));
  EXPECT_NE(nullptr, find(reply.response, "/result/capabilities/tools"));
  EXPECT_EQ("http-test-server", string_at(reply.response, "/result/_meta/io.modelcontextprotocol~1serverInfo/name"));
  EXPECT_NE(nullptr, find(reply.response, "/result/ttlMs"));

  const McpReply tools = modern(client, "tools/list", {});
  EXPECT_EQ("complete", string_at(tools.response, "/result/resultType")) << tools.describe();
  EXPECT_EQ("public", string_at(tools.response, "/result/cacheScope"));
}

TEST_F(HttpModern, RefusalsHaveTheRevisionsCodesAndStatuses) {
  McpHttpClient client(port());
  // No _meta: not a 2026-07-28 request the server can serve.
  const McpReply no_meta = modern(client, "tools/list", {}, {}, json::object{{"other", 1}});
  EXPECT_EQ(400, no_meta.http.status) << no_meta.describe();
  EXPECT_EQ(-32602, int_at(no_meta.response, "/error/code"));
  EXPECT_NE(nullptr, find(no_meta.response, "/id")) << "the error echoes the request's id";

  // The header and _meta disagree.
  json::object other = modern_meta();
  other["io.modelcontextprotocol/protocolVersion"] = "2026-07-29";
  const McpReply mismatch = modern(client, "tools/list", {}, {}, other);
  EXPECT_EQ(400, mismatch.http.status) << mismatch.describe();
  EXPECT_EQ(-32020, int_at(mismatch.response, "/error/code"));

  // A version nobody speaks, consistently in both.
  client.set_protocol_header("2099-01-01");
  client.set_header("Mcp-Method", "tools/list");
  json::object future = modern_meta();
  future["io.modelcontextprotocol/protocolVersion"] = "2099-01-01";
  const McpReply unsupported = client.send(rpc_request(client.next_id(), "tools/list", {{"_meta", future}}));
  EXPECT_EQ(400, unsupported.http.status) << unsupported.describe();
  EXPECT_EQ(-32022, int_at(unsupported.response, "/error/code"));
  EXPECT_EQ("2026-07-28", string_at(unsupported.response, "/error/data/supported/0"));
  EXPECT_EQ("2099-01-01", string_at(unsupported.response, "/error/data/requested"));

  // Mcp-Method must repeat the body's method.
  client.set_protocol_header(std::string(kModern));
  client.set_header("Mcp-Method", "tools/call");
  const McpReply wrong_method = client.send(rpc_request(client.next_id(), "tools/list", {{"_meta", modern_meta()}}));
  EXPECT_EQ(400, wrong_method.http.status) << wrong_method.describe();
  EXPECT_EQ(-32020, int_at(wrong_method.response, "/error/code"));

  // Mcp-Name must repeat the tool's name.
  client.set_header("Mcp-Method", "tools/call");
  client.set_header("Mcp-Name", "interactive.sample");
  const McpReply wrong_name = client.send(rpc_request(client.next_id(), "tools/call",
                                                      {{"name", "interactive.elicit"}, {"_meta", modern_meta()}}));
  EXPECT_EQ(400, wrong_name.http.status) << wrong_name.describe();
  EXPECT_EQ(-32020, int_at(wrong_name.response, "/error/code"));

  // Methods the revision removed are not found.
  const McpReply ping = modern(client, "ping", {});
  EXPECT_EQ(404, ping.http.status) << ping.describe();
  EXPECT_EQ(-32601, int_at(ping.response, "/error/code"));
}

TEST_F(HttpModern, ASessionAndStandAloneRequestsShareTheServerAndTheSameToolElicitsInBoth) {
  // The 2025-11-25 client: a session, a real request on the stream.
  McpHttpClient legacy(port());
  legacy.on_server_request = [](const Message& request) {
    EXPECT_EQ("elicitation/create", string_at(request, "/method")) << request.line;
    return json::object{{"result", kAnswer}};
  };
  const McpReply init = legacy.send(rpc_request(
      0, "initialize",
      {{"protocolVersion", "2025-11-25"},
       {"capabilities", {{"elicitation", json::object{}}}},
       {"clientInfo", {{"name", "legacy"}, {"version", "0"}}}}));
  ASSERT_EQ(200, init.http.status) << init.describe();
  legacy.set_session_id(init.http.header_or_empty("mcp-session-id"));
  legacy.set_protocol_header("2025-11-25");
  ASSERT_EQ(202, legacy.notify("notifications/initialized").status);

  // The 2026-07-28 client starts its call first: nothing of it lives on the
  // server between its rounds.
  McpHttpClient fresh(port());
  const McpReply first = modern(fresh, "tools/call", elicit_call(), "interactive.elicit");
  ASSERT_EQ(200, first.http.status) << first.describe();
  EXPECT_EQ("input_required", string_at(first.response, "/result/resultType")) << first.describe();
  EXPECT_EQ("elicitation/create", string_at(first.response, "/result/inputRequests/input-1/method"));
  EXPECT_EQ("Who are you?", string_at(first.response, "/result/inputRequests/input-1/params/message"));
  const std::string state = string_at(first.response, "/result/requestState");
  ASSERT_FALSE(state.empty()) << first.describe();
  EXPECT_EQ(nullptr, find(first.response, "/result/content")) << "the attempt's own output is dropped";

  const McpReply in_session = legacy.call_tool("interactive.elicit", {{"message", "Who are you?"}}, 10s);
  EXPECT_THAT(first_text(in_session), HasSubstr("action=accept")) << in_session.describe();
  EXPECT_EQ(nullptr, find(in_session.response, "/result/resultType")) << "2025 results stay as they were";

  const McpReply retry = modern(fresh, "tools/call",
                                elicit_call({{"inputResponses", {{"input-1", kAnswer}}}, {"requestState", state}}),
                                "interactive.elicit");
  EXPECT_EQ("complete", string_at(retry.response, "/result/resultType")) << retry.describe();
  EXPECT_THAT(first_text(retry), HasSubstr("\"username\":\"ada\"")) << retry.describe();
  EXPECT_EQ(first_text(in_session), first_text(retry)) << "the same tool, the same answer, either era";
}

TEST_F(HttpModern, ATamperedOrForeignRequestStateIsRefusedWithOneMessage) {
  McpHttpClient client(port());
  const McpReply first = modern(client, "tools/call", elicit_call(), "interactive.elicit");
  const std::string state = string_at(first.response, "/result/requestState");
  ASSERT_FALSE(state.empty()) << first.describe();

  std::string tampered = state;
  tampered[tampered.size() / 2] = tampered[tampered.size() / 2] == 'A' ? 'B' : 'A';
  for (const std::string& bad : {tampered, state + "-TAMPERED", std::string("1.")}) {
    const McpReply reply = modern(
        client, "tools/call", elicit_call({{"inputResponses", {{"input-1", kAnswer}}}, {"requestState", bad}}),
        "interactive.elicit");
    EXPECT_EQ(-32602, int_at(reply.response, "/error/code")) << bad << "\n" << reply.describe();
    EXPECT_EQ("invalid params: invalid requestState", string_at(reply.response, "/error/message"));
  }

  // Bound to the request: the same state for other arguments is refused.
  json::object other = elicit_call({{"inputResponses", {{"input-1", kAnswer}}}, {"requestState", state}});
  other["arguments"] = json::object{{"message", "Someone else?"}};
  const McpReply moved = modern(client, "tools/call", other, "interactive.elicit");
  EXPECT_EQ(-32602, int_at(moved.response, "/error/code")) << moved.describe();

  // An answer of the wrong shape names its key.
  const McpReply malformed = modern(
      client, "tools/call",
      elicit_call({{"inputResponses", {{"input-1", {{"user_name", 12345}}}}}, {"requestState", state}}),
      "interactive.elicit");
  EXPECT_EQ(-32602, int_at(malformed.response, "/error/code")) << malformed.describe();
  EXPECT_EQ("input-1", string_at(malformed.response, "/error/data/key"));
}

TEST_F(HttpModern, ReplicasSharingTheKeyServeEachOthersRetriesAndOthersDoNot) {
  HttpServerUnderTest twin(http_config("", "", server_extra()));
  ASSERT_TRUE(twin.server.ready()) << twin.server.stderr_text();
  HttpServerUnderTest stranger(http_config());  // a key of its own, made at start
  ASSERT_TRUE(stranger.server.ready()) << stranger.server.stderr_text();

  McpHttpClient here(port());
  const McpReply first = modern(here, "tools/call", elicit_call(), "interactive.elicit");
  const std::string state = string_at(first.response, "/result/requestState");
  ASSERT_FALSE(state.empty()) << first.describe();
  const json::object retry = elicit_call({{"inputResponses", {{"input-1", kAnswer}}}, {"requestState", state}});

  McpHttpClient there(twin.port());
  const McpReply served = modern(there, "tools/call", retry, "interactive.elicit");
  EXPECT_EQ("complete", string_at(served.response, "/result/resultType")) << served.describe();

  McpHttpClient elsewhere(stranger.port());
  const McpReply refused = modern(elsewhere, "tools/call", retry, "interactive.elicit");
  EXPECT_EQ(-32602, int_at(refused.response, "/error/code")) << refused.describe();
}

TEST_F(HttpModern, AToolAsksOnlyForWhatTheRequestDeclared) {
  McpHttpClient client(port());
  const McpReply reply = modern(client, "tools/call", elicit_call(), "interactive.elicit", modern_meta({}));
  // No elicitation declared: the tool's question is refused, never asked.
  EXPECT_EQ(nullptr, find(reply.response, "/result/inputRequests")) << reply.describe();
  EXPECT_TRUE(is_tool_error(reply.response)) << reply.describe();
}

TEST_F(HttpModern, AListenIsAcknowledgedFirstAndEndsWithItsResultAtShutdown) {
  McpHttpClient client(port());
  client.set_protocol_header(std::string(kModern));
  client.set_header("Mcp-Method", "subscriptions/listen");
  json::object params{{"notifications", {{"toolsListChanged", true}}}, {"_meta", modern_meta()}};
  SseStream stream = client.post_stream(rpc_request("listen-1", "subscriptions/listen", params));
  const std::optional<SseEvent> ack = stream.next(3s);
  ASSERT_TRUE(ack.has_value()) << server_->server.stderr_text();
  const json::value first = json::parse(ack->data);
  EXPECT_EQ("notifications/subscriptions/acknowledged", first.at("method").as_string());
  EXPECT_EQ("listen-1", first.at_pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId").as_string());
  EXPECT_TRUE(first.at_pointer("/params/notifications/toolsListChanged").as_bool());
  EXPECT_FALSE(ack->id.has_value()) << "2026-07-28 streams are not resumable: no event ids";

  // Stopping the server answers the listen (its bytes wait in the socket).
  EXPECT_EQ(0, server_->server.terminate().value_or(-1)) << server_->server.stderr_text();
  const std::optional<SseEvent> last = stream.next(5s);
  ASSERT_TRUE(last.has_value()) << "the listen must be answered when the server stops";
  const json::value end = json::parse(last->data);
  EXPECT_EQ("complete", end.at_pointer("/result/resultType").as_string()) << last->data;
}

}  // namespace
}  // namespace airlock::test
