// Malformed JSON-RPC gets the right error, and the session survives it.
#include "integration.hpp"

namespace airlock::test {
namespace {

using testing::HasSubstr;
namespace json = boost::json;

class JsonRpcErrors : public testing::Test {
 protected:
  void SetUp() override {
    config_ = std::make_unique<TempConfig>(standard_config());
    client_ = start_initialized(*config_);
  }

  // After every error the server must still be serving.
  void TearDown() override {
    const Message pong = client_->call("ping");
    EXPECT_NE(nullptr, find(pong, "/result")) << "ping after the error: " << pong.line;
    EXPECT_EQ(0, client_->finish(3s)) << client_->stderr_text();
  }

  std::unique_ptr<TempConfig> config_;
  std::unique_ptr<McpStdioClient> client_;
};

TEST_F(JsonRpcErrors, AnswersUnparsableLineWithParseErrorAndNullId) {
  client_->send_line("{not json");
  const std::optional<Message> m = client_->wait_response(nullptr, 3s);
  ASSERT_TRUE(m) << "no response with id null";
  EXPECT_EQ(-32700, int_at(*m, "/error/code")) << m->line;
  EXPECT_EQ("2.0", string_at(*m, "/jsonrpc")) << m->line;
  EXPECT_FALSE(string_at(*m, "/error/message").empty()) << m->line;
}

TEST_F(JsonRpcErrors, RejectsBatchWithInvalidRequestAndNullId) {
  client_->send_line("[1,2]");
  const std::optional<Message> m = client_->wait_response(nullptr, 3s);
  ASSERT_TRUE(m) << "no response with id null";
  EXPECT_EQ(-32600, int_at(*m, "/error/code")) << m->line;
}

TEST_F(JsonRpcErrors, RejectsNonObjectMessageWithNullId) {
  client_->send_line("42");
  const std::optional<Message> m = client_->wait_response(nullptr, 3s);
  ASSERT_TRUE(m) << "no response with id null";
  EXPECT_EQ(-32600, int_at(*m, "/error/code")) << m->line;
}

TEST_F(JsonRpcErrors, RejectsRequestWithoutMethodEchoingItsId) {
  client_->send_line(R"({"jsonrpc":"2.0","id":5})");
  const std::optional<Message> m = client_->wait_response(5, 3s);
  ASSERT_TRUE(m) << "no response with id 5";
  EXPECT_EQ(-32600, int_at(*m, "/error/code")) << m->line;
}

TEST_F(JsonRpcErrors, RejectsWrongJsonRpcVersion) {
  client_->send_line(R"({"jsonrpc":"1.0","id":6,"method":"ping"})");
  const std::optional<Message> m = client_->wait_response(6, 3s);
  ASSERT_TRUE(m) << "no response with id 6";
  EXPECT_EQ(-32600, int_at(*m, "/error/code")) << m->line;
}

TEST_F(JsonRpcErrors, AnswersUnknownMethodWithMethodNotFound) {
  client_->send_line(R"({"jsonrpc":"2.0","id":7,"method":"foo/bar"})");
  const std::optional<Message> m = client_->wait_response(7, 3s);
  ASSERT_TRUE(m) << "no response with id 7";
  EXPECT_EQ(-32601, int_at(*m, "/error/code")) << m->line;
}

TEST_F(JsonRpcErrors, EchoesStringIdsExactly) {
  client_->send_line(R"({"jsonrpc":"2.0","id":"abc","method":"ping"})");
  const std::optional<Message> m = client_->wait_response("abc", 3s);
  ASSERT_TRUE(m) << "no response with id \"abc\"";
  EXPECT_THAT(m->line, HasSubstr(R"("id":"abc")"));
  EXPECT_NE(nullptr, find(*m, "/result")) << m->line;
}

TEST_F(JsonRpcErrors, EchoesStringIdsOfErrorsExactly) {
  client_->send_line(R"({"jsonrpc":"2.0","id":"x y","method":"foo/bar"})");
  const std::optional<Message> m = client_->wait_response("x y", 3s);
  ASSERT_TRUE(m) << "no response with id \"x y\"";
  EXPECT_EQ(-32601, int_at(*m, "/error/code")) << m->line;
}

TEST_F(JsonRpcErrors, EchoesNumericIdsExactly) {
  // 2^53 + 1 does not survive a round trip through a double.
  for (const char* id : {"0", "-3", "9007199254740993"}) {
    client_->send_line(std::string(R"({"jsonrpc":"2.0","id":)") + id + R"(,"method":"ping"})");
    const std::optional<Message> m = client_->next_message(3s);
    ASSERT_TRUE(m) << "no response to id " << id;
    EXPECT_THAT(m->line, HasSubstr(std::string(R"("id":)") + id + ",")) << m->line;
  }
}

TEST_F(JsonRpcErrors, SendsNothingForUnknownNotification) {
  client_->send_line(R"({"jsonrpc":"2.0","method":"notifications/whatever","params":{}})");
  client_->send_line(R"({"jsonrpc":"2.0","method":"foo/bar"})");
  // The next response must be the ping's: nothing answered the notifications.
  const json::value id = client_->request("ping");
  const std::optional<Message> next = client_->next_message(3s);
  ASSERT_TRUE(next) << "no answer to ping";
  EXPECT_EQ(id, next->json.as_object().at("id")) << "unexpected message: " << next->line;
}

TEST_F(JsonRpcErrors, RejectsOversizedLineWithNullId) {
  // max_message_bytes = 65536; a 100 KiB line must be refused and skipped.
  std::string big = R"({"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":")";
  big += std::string(100 * 1024, 'x');
  big += R"("}})";
  client_->send_line(big);
  const std::optional<Message> m = client_->wait_response(nullptr, 3s);
  ASSERT_TRUE(m) << "no response with id null";
  EXPECT_EQ(-32600, int_at(*m, "/error/code")) << m->line;
  EXPECT_THAT(string_at(*m, "/error/message"), HasSubstr("exceeds"));
  EXPECT_TRUE(client_->no_response_within(9, 200ms)) << "the oversized request was served";
}

TEST_F(JsonRpcErrors, RefusesADuplicateMethodKeyInsteadOfServingTheLastOne) {
  client_->send_line(R"({"jsonrpc":"2.0","id":12,"method":"tools/call","method":"ping"})");
  const std::optional<Message> m = client_->wait_response(nullptr, 3s);
  ASSERT_TRUE(m) << "no response with id null";
  EXPECT_EQ(-32700, int_at(*m, "/error/code")) << m->line;
  EXPECT_THAT(string_at(*m, "/error/message"), HasSubstr("duplicate key \"method\"")) << m->line;
  EXPECT_TRUE(client_->no_response_within(12, 200ms)) << "the ambiguous request was served";
}

TEST_F(JsonRpcErrors, RejectsUnknownParamsTypeForToolsCall) {
  client_->send_line(R"({"jsonrpc":"2.0","id":11,"method":"tools/call","params":[1]})");
  const std::optional<Message> m = client_->wait_response(11, 3s);
  ASSERT_TRUE(m) << "no response with id 11";
  EXPECT_TRUE(is_error(*m)) << m->line;
}

}  // namespace
}  // namespace airlock::test
