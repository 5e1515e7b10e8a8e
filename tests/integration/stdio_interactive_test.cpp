// A tool that talks to the client while it runs, over stdio, end to end: the
// real binary with the interactive fixture. Progress and logs arrive before
// the call's response; the server's requests (sampling, elicitation) are
// answered by this test as a client would, and the result reflects the answer.
#include "integration.hpp"

namespace airlock::test {
namespace {

using testing::HasSubstr;
using testing::StartsWith;
namespace json = boost::json;

std::string interactive_config() {
  return "[server]\nname = \"interactive-test\"\nworkers = 4\n\n[plugins]\n" +
         toml_dirs({fixture_dir("interactive")}) + "\non_error = \"fail\"\n";
}

// A server with the interactive fixture, initialized with `capabilities`.
std::unique_ptr<McpStdioClient> start(const TempConfig& config, json::object capabilities = {}) {
  std::unique_ptr<McpStdioClient> client = serve(config.path());
  const Message init = client->initialize("2025-11-25", std::move(capabilities));
  EXPECT_NE(nullptr, find(init, "/result")) << init.line << "\nstderr:\n" << client->stderr_text();
  return client;
}

// Sends tools/call with an id of the test's choosing (and _meta when given).
void send_call(McpStdioClient& client, const json::value& id, std::string_view tool, json::object arguments = {},
               std::optional<json::object> meta = std::nullopt) {
  json::object params{{"name", tool}, {"arguments", std::move(arguments)}};
  if (meta) params["_meta"] = std::move(*meta);
  client.send(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", std::move(params)}});
}

// Every message up to and including the response to `id`, in arrival order.
std::vector<Message> until_response(McpStdioClient& client, const json::value& id) {
  std::vector<Message> seen;
  for (;;) {
    std::optional<Message> m = client.next_message(5s);
    if (!m) {
      ADD_FAILURE() << "no response to " << json::serialize(id) << "; stderr:\n" << client.stderr_text();
      return seen;
    }
    const bool done = !is_server_request(*m) && m->json.as_object().contains("id") && m->json.at("id") == id;
    seen.push_back(std::move(*m));
    if (done) return seen;
  }
}

std::vector<Message> with_method(const std::vector<Message>& messages, std::string_view method) {
  std::vector<Message> out;
  for (const Message& m : messages)
    if (method_of(m) == method) out.push_back(m);
  return out;
}

TEST(StdioInteractive, DeclaresLoggingAndAnswersSetLevelWithAnEmptyObject) {
  TempConfig config(interactive_config());
  std::unique_ptr<McpStdioClient> client = serve(config.path());
  const Message init = client->initialize();
  ASSERT_NE(nullptr, find(init, "/result/capabilities/logging")) << init.line;
  const Message set = client->call("logging/setLevel", {{"level", "debug"}});
  EXPECT_EQ(json::value(json::object{}), *find(set, "/result")) << set.line;
  const Message bad = client->call("logging/setLevel", {{"level", "loud"}});
  EXPECT_EQ(-32602, int_at(bad, "/error/code")) << bad.line;
  EXPECT_THAT(string_at(bad, "/error/message"), HasSubstr("\"loud\""));
}

TEST(StdioInteractive, ProgressArrivesBeforeTheResponseWithTheTokenEchoedAsANumber) {
  TempConfig config(interactive_config());
  std::unique_ptr<McpStdioClient> client = start(config);
  send_call(*client, 41, "interactive.progress", {}, json::object{{"progressToken", 41}});
  const std::vector<Message> seen = until_response(*client, 41);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ("41", first_text(seen.back())) << seen.back().line;
  const std::vector<Message> progress = with_method(seen, "notifications/progress");
  ASSERT_EQ(3u, progress.size());
  for (std::size_t i = 0; i < progress.size(); ++i) {
    const json::value* token = find(progress[i], "/params/progressToken");
    ASSERT_NE(nullptr, token);
    EXPECT_TRUE(token->is_int64()) << progress[i].line;
    EXPECT_EQ(41, int_at(progress[i], "/params/progressToken"));
    EXPECT_EQ(static_cast<std::int64_t>(i) * 50, int_at(progress[i], "/params/progress")) << progress[i].line;
    EXPECT_EQ(100, int_at(progress[i], "/params/total"));
    EXPECT_EQ("Completed step " + std::to_string(i * 50) + " of 100", string_at(progress[i], "/params/message"));
  }
}

TEST(StdioInteractive, ProgressEchoesAStringTokenAsAString) {
  TempConfig config(interactive_config());
  std::unique_ptr<McpStdioClient> client = start(config);
  send_call(*client, "p", "interactive.progress", {}, json::object{{"progressToken", "progress-test-1"}});
  const std::vector<Message> seen = until_response(*client, "p");
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ("progress-test-1", first_text(seen.back()));
  const std::vector<Message> progress = with_method(seen, "notifications/progress");
  ASSERT_EQ(3u, progress.size());
  for (const Message& m : progress) EXPECT_EQ("progress-test-1", string_at(m, "/params/progressToken")) << m.line;
}

TEST(StdioInteractive, LogMessagesArriveBeforeTheResponse) {
  TempConfig config(interactive_config());
  std::unique_ptr<McpStdioClient> client = start(config);
  client->call("logging/setLevel", {{"level", "debug"}});
  send_call(*client, 7, "interactive.log");
  const std::vector<Message> seen = until_response(*client, 7);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ("Tool with logging executed successfully", first_text(seen.back()));
  const std::vector<Message> logs = with_method(seen, "notifications/message");
  ASSERT_EQ(3u, logs.size());
  EXPECT_EQ(json::parse(R"({"level":"info","data":"Tool execution started"})"), *find(logs[0], "/params"));
  EXPECT_EQ("Tool processing data", string_at(logs[1], "/params/data"));
  EXPECT_EQ("Tool execution completed", string_at(logs[2], "/params/data"));
}

TEST(StdioInteractive, LogsBelowTheClientsLevelAreNotSent) {
  TempConfig config(interactive_config());
  std::unique_ptr<McpStdioClient> client = start(config);
  client->call("logging/setLevel", {{"level", "warning"}});
  send_call(*client, 8, "interactive.log", {{"level", "notice"}});
  const std::vector<Message> seen = until_response(*client, 8);
  EXPECT_EQ(1u, seen.size()) << "the response only; first: " << (seen.empty() ? "" : seen.front().line);
}

TEST(StdioInteractive, SamplingRequestIsAnsweredByTheClientAndTheResultReflectsIt) {
  TempConfig config(interactive_config());
  std::unique_ptr<McpStdioClient> client = start(config, {{"sampling", json::object{}}});
  send_call(*client, 1, "interactive.sample", {{"prompt", "Test prompt for sampling"}});
  const std::optional<Message> asked = client->wait_request("sampling/createMessage");
  ASSERT_TRUE(asked) << "stderr:\n" << client->stderr_text();
  const json::value& id = asked->json.at("id");
  ASSERT_TRUE(id.is_string()) << asked->line;
  EXPECT_THAT(std::string(id.as_string()), StartsWith("airlock-"));
  EXPECT_EQ(json::parse(R"({"messages":[{"role":"user","content":{"type":"text","text":"Test prompt for sampling"}}],
                            "maxTokens":100})"),
            *find(*asked, "/params"));
  EXPECT_TRUE(client->no_response_within(1, 100ms)) << "the tool waits for the client's answer";
  client->respond(id, json::parse(R"({"role":"assistant","content":{"type":"text",
      "text":"This is a test response from the client"},"model":"test-model","stopReason":"endTurn"})"));
  const std::optional<Message> result = client->wait_response(1);
  ASSERT_TRUE(result) << "stderr:\n" << client->stderr_text();
  EXPECT_FALSE(is_tool_error(*result)) << result->line;
  EXPECT_EQ("LLM response: This is a test response from the client", first_text(*result));
}

TEST(StdioInteractive, ElicitationRequestCarriesTheFormAndTheUsersAnswerComesBack) {
  TempConfig config(interactive_config());
  std::unique_ptr<McpStdioClient> client = start(config, {{"elicitation", json::object{}}});
  send_call(*client, 2, "interactive.elicit", {{"message", "Please provide your information"}});
  const std::optional<Message> asked = client->wait_request("elicitation/create");
  ASSERT_TRUE(asked) << "stderr:\n" << client->stderr_text();
  EXPECT_EQ("Please provide your information", string_at(*asked, "/params/message"));
  EXPECT_EQ("object", string_at(*asked, "/params/requestedSchema/type"));
  EXPECT_EQ(json::parse(R"(["username","email"])"), *find(*asked, "/params/requestedSchema/required"));
  client->respond(asked->json.at("id"),
                  json::parse(R"({"action":"accept","content":{"username":"testuser","email":"test@example.com"}})"));
  const std::optional<Message> result = client->wait_response(2);
  ASSERT_TRUE(result);
  EXPECT_EQ(R"(User response: action=accept, content={"username":"testuser","email":"test@example.com"})",
            first_text(*result));
}

TEST(StdioInteractive, AClientsErrorAnswerBecomesAToolErrorWithItsMessage) {
  TempConfig config(interactive_config());
  std::unique_ptr<McpStdioClient> client = start(config, {{"sampling", json::object{}}});
  send_call(*client, 3, "interactive.sample", {{"prompt", "no"}});
  const std::optional<Message> asked = client->wait_request("sampling/createMessage");
  ASSERT_TRUE(asked);
  client->respond_error(asked->json.at("id"), -1, "User rejected sampling request");
  const std::optional<Message> result = client->wait_response(3);
  ASSERT_TRUE(result);
  EXPECT_TRUE(is_tool_error(*result)) << result->line;
  EXPECT_THAT(first_text(*result), HasSubstr("User rejected sampling request"));
}

TEST(StdioInteractive, WithoutTheCapabilityTheToolErrsAndTheServerAsksNothing) {
  TempConfig config(interactive_config());
  std::unique_ptr<McpStdioClient> client = start(config);
  send_call(*client, 4, "interactive.sample", {{"prompt", "p"}});
  const std::vector<Message> seen = until_response(*client, 4);
  ASSERT_EQ(1u, seen.size()) << seen.front().line;
  EXPECT_TRUE(is_tool_error(seen.back())) << seen.back().line;
  EXPECT_EQ("sampling/createMessage: the client does not support it", first_text(seen.back()));
}

TEST(StdioInteractive, CancellingACallThatWaitsOnTheClientCancelsTheServersRequestToo) {
  TempConfig config(interactive_config());
  std::unique_ptr<McpStdioClient> client = start(config, {{"roots", json::object{}}});
  send_call(*client, 5, "interactive.ask", {{"method", "roots/list"}, {"timeout_ms", 30000}});
  const std::optional<Message> asked = client->wait_request("roots/list");
  ASSERT_TRUE(asked);
  client->notify("notifications/cancelled", {{"requestId", 5}, {"reason", "test"}});
  std::optional<Message> cancelled;
  for (int i = 0; i < 5 && !cancelled; ++i) {
    std::optional<Message> m = client->next_message(3s);
    ASSERT_TRUE(m) << "stderr:\n" << client->stderr_text();
    if (method_of(*m) == "notifications/cancelled") cancelled = std::move(m);
  }
  ASSERT_TRUE(cancelled);
  EXPECT_EQ(asked->json.at("id"), *find(*cancelled, "/params/requestId"));
  const Message pong = client->call("ping");
  EXPECT_NE(nullptr, find(pong, "/result"));
  EXPECT_TRUE(client->no_response_within(5, 200ms)) << "a cancelled call is never answered";
  // An answer after the cancellation is dropped without a word.
  client->respond(asked->json.at("id"), json::parse(R"({"roots":[]})"));
  EXPECT_EQ(0, client->finish());
}

TEST(StdioInteractive, EndingTheStreamDoesNothingOverStdioAndTheResultStillComes) {
  TempConfig config(interactive_config());
  std::unique_ptr<McpStdioClient> client = start(config);
  const Message result = client->call_tool("interactive.reconnect", json::object{});
  EXPECT_FALSE(is_tool_error(result)) << result.line;
  EXPECT_THAT(first_text(result), StartsWith("Reconnection test completed successfully."));
}

}  // namespace
}  // namespace airlock::test
