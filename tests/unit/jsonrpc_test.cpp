// Tests for JSON-RPC framing: how a line is classified, every reason it can be
// refused (and which id the refusal answers), and the text of what goes out.
#include "mcp/jsonrpc.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <variant>

namespace airlock::host::jsonrpc {
namespace {

using testing::HasSubstr;

Message message_of(std::string_view text) {
  auto parsed = parse(text);
  if (auto* failure = std::get_if<Failure>(&parsed)) {
    ADD_FAILURE() << text << " was refused: " << failure->message;
    return {};
  }
  return std::get<Message>(std::move(parsed));
}

Failure failure_of(std::string_view text) {
  auto parsed = parse(text);
  if (std::holds_alternative<Message>(parsed)) {
    ADD_FAILURE() << text << " parsed, but a failure was expected";
    return Failure{0, "", nullptr};
  }
  return std::get<Failure>(std::move(parsed));
}

// --- classification

TEST(JsonRpc, ClassifiesAMessageWithIdAndMethodAsARequest) {
  const Message m = message_of(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"o1"}})");
  EXPECT_EQ(m.kind, Message::Kind::request);
  EXPECT_EQ(m.id, 7);
  EXPECT_EQ(m.method, "tools/list");
  EXPECT_EQ(m.params, boost::json::parse(R"({"cursor":"o1"})"));
}

TEST(JsonRpc, ClassifiesAMessageWithoutIdAsANotification) {
  const Message m = message_of(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(m.kind, Message::Kind::notification);
  EXPECT_TRUE(m.id.is_null());
  EXPECT_EQ(m.method, "notifications/initialized");
  EXPECT_TRUE(m.params.is_null());
}

TEST(JsonRpc, ClassifiesAResultOrErrorWithIdAsAResponse) {
  const Message ok = message_of(R"({"jsonrpc":"2.0","id":"s-1","result":{}})");
  EXPECT_EQ(ok.kind, Message::Kind::response);
  EXPECT_EQ(ok.id, "s-1");
  EXPECT_TRUE(ok.method.empty());
  const Message error = message_of(R"({"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}})");
  EXPECT_EQ(error.kind, Message::Kind::response);
  EXPECT_EQ(error.id, 3);
}

TEST(JsonRpc, AcceptsStringAndIntegerIdsOfAnySign) {
  EXPECT_EQ(message_of(R"({"jsonrpc":"2.0","id":"abc","method":"ping"})").id, "abc");
  EXPECT_EQ(message_of(R"({"jsonrpc":"2.0","id":"","method":"ping"})").id, "");
  EXPECT_EQ(message_of(R"({"jsonrpc":"2.0","id":-5,"method":"ping"})").id, -5);
  EXPECT_EQ(message_of(R"({"jsonrpc":"2.0","id":0,"method":"ping"})").id, 0);
  EXPECT_EQ(message_of(R"({"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"})").id,
            18446744073709551615ull);
}

TEST(JsonRpc, AcceptsParamsAsAnArray) {
  const Message m = message_of(R"({"jsonrpc":"2.0","id":1,"method":"x","params":[1,2]})");
  EXPECT_EQ(m.params, boost::json::parse("[1,2]"));
}

// --- failures

TEST(JsonRpc, AnswersTextThatIsNotJsonWithParseErrorAndNullId) {
  for (const char* text : {R"({"jsonrpc":"2.0","id":1,"method":)", "not json", R"({"id":1}})", ""}) {
    const Failure f = failure_of(text);
    EXPECT_EQ(f.code, kParseError) << text;
    EXPECT_TRUE(f.id.is_null()) << text;
    EXPECT_THAT(f.message, HasSubstr("parse error")) << text;
  }
}

TEST(JsonRpc, RefusesABatch) {
  const Failure f = failure_of(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  EXPECT_EQ(f.code, kInvalidRequest);
  EXPECT_TRUE(f.id.is_null());
  EXPECT_THAT(f.message, HasSubstr("batch"));
}

TEST(JsonRpc, RefusesJsonThatIsNotAnObject) {
  for (const char* text : {"42", R"("ping")", "null", "true"}) {
    const Failure f = failure_of(text);
    EXPECT_EQ(f.code, kInvalidRequest) << text;
    EXPECT_TRUE(f.id.is_null()) << text;
    EXPECT_THAT(f.message, HasSubstr("must be a JSON object")) << text;
  }
}

TEST(JsonRpc, RefusesAMissingOrWrongJsonrpcVersionEchoingTheId) {
  for (const char* text : {R"({"id":4,"method":"ping"})", R"({"jsonrpc":"1.0","id":4,"method":"ping"})",
                           R"({"jsonrpc":2.0,"id":4,"method":"ping"})"}) {
    const Failure f = failure_of(text);
    EXPECT_EQ(f.code, kInvalidRequest) << text;
    EXPECT_EQ(f.id, 4) << text;
    EXPECT_THAT(f.message, HasSubstr("jsonrpc must be \"2.0\"")) << text;
  }
}

TEST(JsonRpc, RefusesAnIdThatIsNotAStringOrIntegerWithNullId) {
  for (const char* id : {"null", "true", "false", "1.5", "1.0", "1e3", "[1]", R"({"n":1})"}) {
    const std::string text = std::string(R"({"jsonrpc":"2.0","method":"ping","id":)") + id + "}";
    const Failure f = failure_of(text);
    EXPECT_EQ(f.code, kInvalidRequest) << text;
    EXPECT_TRUE(f.id.is_null()) << text;
    EXPECT_THAT(f.message, HasSubstr("id must be a string or an integer")) << text;
  }
}

TEST(JsonRpc, RefusesAMissingMethodEchoingTheId) {
  const Failure f = failure_of(R"({"jsonrpc":"2.0","id":"r1"})");
  EXPECT_EQ(f.code, kInvalidRequest);
  EXPECT_EQ(f.id, "r1");
  EXPECT_THAT(f.message, HasSubstr("method is missing"));
}

TEST(JsonRpc, RefusesAResultWithoutIdAsAMessageWithoutMethod) {
  const Failure f = failure_of(R"({"jsonrpc":"2.0","result":{}})");
  EXPECT_EQ(f.code, kInvalidRequest);
  EXPECT_TRUE(f.id.is_null());
  EXPECT_THAT(f.message, HasSubstr("method is missing"));
}

TEST(JsonRpc, RefusesAMethodThatIsNotAStringEchoingTheId) {
  for (const char* method : {"1", "null", R"(["ping"])", R"({"name":"ping"})"}) {
    const std::string text = std::string(R"({"jsonrpc":"2.0","id":9,"method":)") + method + "}";
    const Failure f = failure_of(text);
    EXPECT_EQ(f.code, kInvalidRequest) << text;
    EXPECT_EQ(f.id, 9) << text;
    EXPECT_THAT(f.message, HasSubstr("method must be a string")) << text;
  }
}

TEST(JsonRpc, RefusesParamsThatAreNotAnObjectOrArrayEchoingTheId) {
  for (const char* params : {R"("x")", "1", "true", "null"}) {
    const std::string text = std::string(R"({"jsonrpc":"2.0","id":"p","method":"ping","params":)") + params + "}";
    const Failure f = failure_of(text);
    EXPECT_EQ(f.code, kInvalidRequest) << text;
    EXPECT_EQ(f.id, "p") << text;
    EXPECT_THAT(f.message, HasSubstr("params must be an object or an array")) << text;
  }
}

TEST(JsonRpc, RefusesNotificationsWithBadParamsWithNullId) {
  const Failure f = failure_of(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":3})");
  EXPECT_EQ(f.code, kInvalidRequest);
  EXPECT_TRUE(f.id.is_null());
}

TEST(JsonRpc, RefusesNestingDeeperThanTheLimitAsAParseError) {
  const std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"x","params":)" + std::string(200, '[') +
                           std::string(200, ']') + "}";
  const Failure f = failure_of(deep);
  EXPECT_EQ(f.code, kParseError);
}

// A proxy that reads the first of two equal keys and a parser that keeps the
// last would disagree about what was asked: such a message is refused whole.
TEST(JsonRpc, RefusesADuplicateKeyAnywhereAsAParseErrorNamingIt) {
  const std::string cases[][2] = {
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","method":"ping"})", "method"},
      {R"({"jsonrpc":"2.0","id":1,"id":2,"method":"ping"})", "id"},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"u":1,"u":2}}})", "u"},
      {R"({"jsonrpc":"2.0","id":1,"method":"x","params":[{"k":1},{"k":2,"k":3}]})", "k"},
      // Equal once the escapes are read.
      {R"({"jsonrpc":"2.0","id":1,"method":"ping","m\u0065thod":"tools/call"})", "method"},
  };
  for (const auto& [text, key] : cases) {
    const Failure f = failure_of(text);
    EXPECT_EQ(f.code, kParseError) << text;
    EXPECT_THAT(f.message, HasSubstr("duplicate key \"" + key + "\"")) << text;
    EXPECT_TRUE(f.id.is_null()) << text;
  }
}

TEST(JsonRpc, AcceptsEqualKeysInDifferentObjectsAndManyDistinctKeys) {
  const Message m = message_of(R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}})");
  EXPECT_EQ(m.method, "x");
  // Enough keys that the check cannot be a pairwise scan of one object.
  std::string wide = R"({"jsonrpc":"2.0","id":2,"method":"x","params":{)";
  for (int i = 0; i < 5000; ++i) wide += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
  EXPECT_EQ(message_of(wide + "}}").params.as_object().size(), 5000u);
  EXPECT_EQ(failure_of(wide + ",\"k4321\":0}}").code, kParseError);
}

// --- output

TEST(JsonRpc, WritesAResultThatParsesBackWithIdAndResult) {
  EXPECT_EQ(boost::json::parse(result(7, R"({"tools":[]})")),
            boost::json::parse(R"({"jsonrpc":"2.0","id":7,"result":{"tools":[]}})"));
  EXPECT_EQ(boost::json::parse(result("a\"b", "{}")),
            boost::json::parse(R"({"jsonrpc":"2.0","id":"a\"b","result":{}})"));
}

TEST(JsonRpc, WritesAnErrorThatParsesBackWithCodeAndMessage) {
  EXPECT_EQ(boost::json::parse(error("x", kMethodNotFound, "method not found: \"y\"\n")),
            boost::json::parse(
                R"({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"method not found: \"y\"\n"}})"));
  EXPECT_EQ(boost::json::parse(error(nullptr, kParseError, "parse error")),
            boost::json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}})"));
}

TEST(JsonRpc, EchoesTheParsedIdUnchangedInTheAnswer) {
  for (const char* id : {"\"s-1\"", "-3", "18446744073709551615"}) {
    const Message m = message_of(std::string(R"({"jsonrpc":"2.0","method":"ping","id":)") + id + "}");
    EXPECT_EQ(boost::json::parse(result(m.id, "{}")).at("id"), boost::json::parse(id)) << id;
  }
}

}  // namespace
}  // namespace airlock::host::jsonrpc
