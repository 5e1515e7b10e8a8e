// The admission of a 2026-07-28 request (mcp/modern_request): each check
// with its code and HTTP status, in the revision's order, over HTTP (with
// headers) and stdio (none). Driven directly against a real ServerState
// with the canary fixture's tools loaded through the ABI.
#include "mcp/modern_request.hpp"

#include "mcp/protocol.hpp"
#include "mcp/request_headers.hpp"
#include "test_server.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

namespace airlock::host {
namespace {

using testing::HasSubstr;

// Request headers as HTTP carries them: names match in any case.
class Headers : public HeaderView {
 public:
  Headers& set(std::string name, std::string value) {
    values_[lower(std::move(name))] = std::move(value);
    return *this;
  }
  Headers& erase(std::string name) {
    values_.erase(lower(std::move(name)));
    return *this;
  }
  std::size_t count(std::string_view name) const override { return values_.count(lower(std::string(name))); }
  std::optional<std::string_view> get(std::string_view name) const override {
    const auto it = values_.find(lower(std::string(name)));
    return it == values_.end() ? std::nullopt : std::optional<std::string_view>(it->second);
  }

 private:
  static std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  }
  std::map<std::string, std::string> values_;
};

// A request of `method` whose params are `params` with the revision's _meta.
jsonrpc::Message request(std::string method, std::string params = "{}", std::string version = "2026-07-28",
                         std::string capabilities = "{}") {
  jsonrpc::Message m;
  m.id = 1;
  m.method = std::move(method);
  m.params = boost::json::parse(params);
  auto& meta = m.params.as_object()["_meta"].emplace_object();
  meta[kMetaProtocolVersion] = version;
  meta[kMetaClientCapabilities] = boost::json::parse(capabilities);
  return m;
}

// The headers a correct HTTP request of `m` carries.
Headers headers_for(const jsonrpc::Message& m, std::string name = {}) {
  Headers h;
  h.set("MCP-Protocol-Version", std::string(m.params.at("_meta").at(kMetaProtocolVersion).as_string()));
  h.set("Mcp-Method", m.method);
  if (!name.empty()) h.set("Mcp-Name", std::move(name));
  return h;
}

// The rejection of an outcome that must be one; a copy, since the outcome
// is a temporary.
Rejection rejected(std::variant<RequestScope, Rejection> outcome) {
  if (!std::holds_alternative<Rejection>(outcome)) throw std::runtime_error("the request was admitted");
  return std::get<Rejection>(std::move(outcome));
}

class ModernRequest : public testing::Test {
 protected:
  std::variant<RequestScope, Rejection> admit(const jsonrpc::Message& m, const HeaderView* headers) {
    return admit_modern(server_.state(), m, headers, {}, "alice");
  }
  // The canary fixture's tools, no content plugin, no task store.
  unit::TestServer server_{{.workers = 1,
                            .queue_capacity = 4,
                            .deadline_timer = true,
                            .configure = [](Config& config) { config.server.name = "unit-airlock"; }}};
};

TEST_F(ModernRequest, ACorrectToolsCallIsAdmittedWithItsVersionCapabilitiesAndCaller) {
  const auto m = request("tools/call", R"({"name":"canary.echo","arguments":{"text":"hi"}})", "2026-07-28",
                         R"({"elicitation":{}})");
  const Headers h = headers_for(m, "canary.echo");
  for (const HeaderView* headers : {static_cast<const HeaderView*>(&h), static_cast<const HeaderView*>(nullptr)}) {
    const auto outcome = admit(m, headers);
    ASSERT_TRUE(std::holds_alternative<RequestScope>(outcome));
    const RequestScope& scope = std::get<RequestScope>(outcome);
    EXPECT_EQ(scope.protocol_version, "2026-07-28");
    EXPECT_EQ(scope.caller, "alice");
    EXPECT_TRUE(scope.client_capabilities.contains("elicitation"));
    EXPECT_EQ(boost::json::parse(scope.client_capabilities_json), boost::json::value(scope.client_capabilities));
  }
}

TEST_F(ModernRequest, WithoutTheMetaItIsARequestThatNeedsASession) {
  jsonrpc::Message m = request("tools/list");
  m.params.as_object().erase("_meta");
  EXPECT_FALSE(carries_modern_meta(m));
  const Rejection r = rejected(admit(m, nullptr));
  EXPECT_EQ(r.http_status, 400u);
  EXPECT_EQ(r.code, jsonrpc::kInvalidParams);
  EXPECT_THAT(r.message, HasSubstr(std::string(kMetaProtocolVersion)));
  EXPECT_THAT(r.message, HasSubstr("needs a session (initialize)"));
  EXPECT_TRUE(carries_modern_meta(request("tools/list")));
}

TEST_F(ModernRequest, AnUnknownLogLevelIsInvalidParamsThatListsTheLevels) {
  jsonrpc::Message m = request("tools/list");
  m.params.at("_meta").as_object()[kMetaLogLevel] = "loud";
  const Rejection r = rejected(admit(m, nullptr));
  EXPECT_EQ(r.code, jsonrpc::kInvalidParams);
  EXPECT_THAT(r.message, HasSubstr("\"loud\": expected one of debug, info"));
}

TEST_F(ModernRequest, TheVersionHeaderIsCheckedBeforeTheVersionItself) {
  // Both wrong: the header mismatch is what the client hears first.
  const auto m = request("tools/list", "{}", "2099-01-01");
  Headers h = headers_for(m);
  h.set("MCP-Protocol-Version", "2026-07-28");
  const Rejection mismatch = rejected(admit(m, &h));
  EXPECT_EQ(mismatch.code, kHeaderMismatch);
  EXPECT_THAT(mismatch.message, HasSubstr("but params._meta says '2099-01-01'"));
  h.erase("MCP-Protocol-Version");
  EXPECT_THAT(rejected(admit(m, &h)).message, HasSubstr("the MCP-Protocol-Version header is missing"));

  // Over stdio there is no header: the version is what is refused.
  const Rejection unsupported = rejected(admit(m, nullptr));
  EXPECT_EQ(unsupported.http_status, 400u);
  EXPECT_EQ(unsupported.code, kUnsupportedProtocolVersion);
  EXPECT_EQ(unsupported.data.at("requested"), "2099-01-01");
  EXPECT_EQ(unsupported.data.at("supported"), boost::json::parse(R"(["2026-07-28"])"));
}

TEST_F(ModernRequest, TheMethodHeaderMustRepeatTheMethod) {
  const auto m = request("tools/list");
  Headers h = headers_for(m);
  h.set("Mcp-Method", "tools/call");
  const Rejection r = rejected(admit(m, &h));
  EXPECT_EQ(r.code, kHeaderMismatch);
  EXPECT_THAT(r.message, HasSubstr("Mcp-Method"));
}

TEST_F(ModernRequest, MethodsTheRevisionDroppedOrNoPluginServesAreNotFound) {
  const Rejection dropped = rejected(admit(request("initialize"), nullptr));
  EXPECT_EQ(dropped.http_status, 404u);
  EXPECT_EQ(dropped.code, jsonrpc::kMethodNotFound);
  EXPECT_THAT(dropped.message, HasSubstr("(not part of protocol 2026-07-28)"));

  const Rejection unserved = rejected(admit(request("resources/list"), nullptr));
  EXPECT_EQ(unserved.http_status, 404u);
  EXPECT_THAT(unserved.message, HasSubstr("(no plugin serves resources)"));

  // No task store: tasks/* are not served either.
  EXPECT_EQ(rejected(admit(request("tasks/get", R"({"taskId":"t"})"), nullptr)).http_status, 404u);
  EXPECT_THAT(rejected(admit(request("made/up"), nullptr)).message, HasSubstr("method not found: made/up"));
}

TEST_F(ModernRequest, TheNameHeaderMustRepeatTheToolsName) {
  const auto m = request("tools/call", R"({"name":"canary.echo"})");
  Headers h = headers_for(m, "canary.slow");
  const Rejection r = rejected(admit(m, &h));
  EXPECT_EQ(r.code, kHeaderMismatch);
  EXPECT_THAT(r.message, HasSubstr("Mcp-Name"));
  h.erase("Mcp-Name");
  EXPECT_EQ(rejected(admit(m, &h)).code, kHeaderMismatch);
}

TEST_F(ModernRequest, AnUnknownToolIsLeftToTheMethodsOwnError) {
  const auto m = request("tools/call", R"({"name":"nobody.here"})");
  const Headers h = headers_for(m, "nobody.here");
  EXPECT_TRUE(std::holds_alternative<RequestScope>(admit(m, &h)));
}

TEST_F(ModernRequest, TheTasksExtensionIsReadFromExtensions) {
  EXPECT_TRUE(declares_tasks_extension(
      boost::json::parse(R"({"extensions":{"io.modelcontextprotocol/tasks":{}}})").as_object()));
  EXPECT_FALSE(declares_tasks_extension(
      boost::json::parse(R"({"extensions":{"io.modelcontextprotocol/tasks":null}})").as_object()));
  EXPECT_FALSE(declares_tasks_extension(boost::json::parse(R"({"tasks":{}})").as_object()));
}

TEST_F(ModernRequest, CapabilitiesDeclareOnlyWhatWorks) {
  // Tools and logging always; no resources, prompts, completions or tasks
  // without a plugin or a task store that serves them, in either era.
  for (const bool modern : {false, true}) {
    const boost::json::object capabilities = server_capabilities(server_.state(), modern);
    EXPECT_EQ(capabilities.at("tools").at("listChanged"), true);
    EXPECT_TRUE(capabilities.contains("logging"));
    for (const char* absent : {"resources", "prompts", "completions", "tasks", "extensions"})
      EXPECT_FALSE(capabilities.contains(absent)) << absent << (modern ? " (2026-07-28)" : " (session)");
  }
}

}  // namespace
}  // namespace airlock::host
