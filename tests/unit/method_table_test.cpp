// The one method table: which methods exist in which era, and the one
// decision that puts an incoming message in an era, for stdio (no headers)
// and HTTP (the session id and the MCP-Protocol-Version header).
#include "mcp/method_table.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <variant>

namespace airlock::host {
namespace {

jsonrpc::Message parsed(std::string_view text) {
  auto result = jsonrpc::parse(text);
  if (auto* failure = std::get_if<jsonrpc::Failure>(&result)) {
    ADD_FAILURE() << text << ": " << failure->message;
    return {};
  }
  return std::get<jsonrpc::Message>(std::move(result));
}

jsonrpc::Message request(std::string_view method, std::string_view params = "{}") {
  return parsed(R"({"jsonrpc":"2.0","id":1,"method":")" + std::string(method) + R"(","params":)" +
                std::string(params) + "}");
}

constexpr std::string_view kModernMeta =
    R"({"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
    R"("io.modelcontextprotocol/clientCapabilities":{}}})";

TEST(MethodTable, EachMethodBelongsToTheErasTheRevisionsGiveIt) {
  for (std::string_view name : {"initialize", "ping", "logging/setLevel", "resources/subscribe",
                                "resources/unsubscribe", "tasks/result", "tasks/list"}) {
    const Method* method = find_method(name);
    ASSERT_NE(method, nullptr) << name;
    EXPECT_TRUE(method->in(Era::session)) << name;
    EXPECT_FALSE(method->in(Era::modern)) << name;
  }
  for (std::string_view name : {"server/discover", "subscriptions/listen", "tasks/update"}) {
    const Method* method = find_method(name);
    ASSERT_NE(method, nullptr) << name;
    EXPECT_FALSE(method->in(Era::session)) << name;
    EXPECT_TRUE(method->in(Era::modern)) << name;
  }
  for (std::string_view name : {"tools/list", "tools/call", "resources/list", "resources/templates/list",
                                "resources/read", "prompts/list", "prompts/get", "completion/complete", "tasks/get",
                                "tasks/cancel"}) {
    const Method* method = find_method(name);
    ASSERT_NE(method, nullptr) << name;
    EXPECT_TRUE(method->in(Era::session) && method->in(Era::modern)) << name;
  }
  EXPECT_EQ(find_method("tools/call2"), nullptr);
  EXPECT_EQ(find_method(""), nullptr);
  EXPECT_EQ(find_method("notifications/cancelled"), nullptr);  // notifications are not requests
}

TEST(MethodTable, OnlyInitializeAndPingMayComeBeforeInitialize) {
  EXPECT_TRUE(find_method("initialize")->before_initialize);
  EXPECT_TRUE(find_method("ping")->before_initialize);
  EXPECT_FALSE(find_method("tools/list")->before_initialize);
  EXPECT_FALSE(find_method("logging/setLevel")->before_initialize);
}

TEST(MethodTable, WhatAMethodNeedsIsNamedInItsNotFoundReason) {
  EXPECT_EQ(find_method("resources/read")->needs, Needs::resources);
  EXPECT_EQ(find_method("prompts/get")->needs, Needs::prompts);
  EXPECT_EQ(find_method("completion/complete")->needs, Needs::completions);
  EXPECT_EQ(find_method("tasks/update")->needs, Needs::tasks);
  EXPECT_EQ(find_method("tools/call")->needs, Needs::nothing);
  EXPECT_EQ(unserved_reason(Needs::resources), "no plugin serves resources");
  EXPECT_EQ(unserved_reason(Needs::tasks), "no task store is configured ([tasks])");
}

TEST(MessageEra, InsideASessionEveryMessageIsTheSessions) {
  EXPECT_EQ(message_era(request("tools/list", kModernMeta), true), Era::session);
  EXPECT_EQ(message_era(request("server/discover"), true, "2026-07-28"), Era::session);
}

TEST(MessageEra, OutsideASessionTheModernMetaOrAModernOnlyMethodDecides) {
  EXPECT_EQ(message_era(request("tools/list", kModernMeta), false), Era::modern);
  EXPECT_EQ(message_era(request("server/discover"), false), Era::modern);
  EXPECT_EQ(message_era(request("subscriptions/listen"), false), Era::modern);
  EXPECT_EQ(message_era(request("tools/list"), false), Era::session);  // "server not initialized" follows
  EXPECT_EQ(message_era(request("no/such"), false), Era::session);
  EXPECT_EQ(message_era(request("initialize", R"({"protocolVersion":"2025-11-25"})"), false), Era::session);
}

TEST(MessageEra, OverHttpTheProtocolHeaderDecidesWhatTheBodyLeavesOpen) {
  EXPECT_EQ(message_era(request("tools/list"), false, "2026-07-28"), Era::modern);
  EXPECT_EQ(message_era(request("tools/list"), false, "2099-01-01"), Era::modern);  // refused by admission
  EXPECT_EQ(message_era(request("tools/list"), false, "2025-11-25"), Era::session);
  EXPECT_EQ(message_era(request("tools/list"), false, "2025-06-18"), Era::session);
  // initialize opens a session whatever the header says; its own checks answer.
  EXPECT_EQ(message_era(request("initialize"), false, "2026-07-28"), Era::session);
  // ... unless its body is 2026-07-28's, which has no initialize (404 follows).
  EXPECT_EQ(message_era(request("initialize", kModernMeta), false), Era::modern);
}

TEST(MessageEra, NotificationsAndResponsesFollowTheirMetaOrTheHeader) {
  const auto note = parsed(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})");
  EXPECT_EQ(message_era(note, false), Era::session);
  EXPECT_EQ(message_era(note, false, "2026-07-28"), Era::modern);
  const auto answer = parsed(R"({"jsonrpc":"2.0","id":"airlock-1","result":{}})");
  EXPECT_EQ(message_era(answer, false), Era::session);
  EXPECT_EQ(message_era(answer, false, "2026-07-28"), Era::modern);
}

}  // namespace
}  // namespace airlock::host
