// Tests for what a session serves besides tools (ABI 1.3): capabilities,
// resources (list, templates, read, subscribe and updates), prompts (list,
// get), completion/complete, content registered while the server runs, and
// the chains that resource reads and prompt gets pass, shown with
// AIRLOCK_CANARY: a bound chain redacts it, a failing step withholds the
// whole answer without a byte of it. Real plugins throughout: the "content"
// fixture serves the content, the "canary" fixture the sanitizers.
#include "mcp/session.hpp"

#include "pipeline/result_pipeline.hpp"
#include "mcp/protocol.hpp"
#include "test_server.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canary.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace airlock::host {
namespace {

using namespace std::chrono_literals;
using boost::json::object;
using boost::json::value;
using testing::HasSubstr;
using testing::Not;

constexpr std::string_view kCanary = AIRLOCK_CANARY;

// The server settings these tests turn.
struct ServerOptions {
  std::vector<std::string> fixtures{"canary", "content"};
  std::map<std::string, std::vector<std::string>> chains{};  // name -> steps
  std::vector<std::pair<std::string, std::string>> resources{};  // [resources."<glob>"] chain = ...
  std::vector<std::pair<std::string, std::string>> prompts{};    // [prompts."<glob>"] chain = ...
  std::uint32_t page_size = 100;
  std::size_t max_result_bytes = 1u << 20;
};

// Everything sessions share, as `airlock serve` builds it; the content
// catalog is the server's own, so what one test registers stays there.
class Server : public unit::TestServer {
 public:
  explicit Server(const ServerOptions& options = {}) : TestServer(translate(options)) {}

 private:
  static unit::TestServerOptions translate(const ServerOptions& options) {
    return {.fixtures = options.fixtures,
            .configure = [options](Config& config) {
              config.server.page_size = options.page_size;
              config.server.max_result_bytes = options.max_result_bytes;
              for (const auto& [name, steps] : options.chains)
                config.chains.emplace(name, ChainConfig{name, steps, {}, {}});
              for (const auto& [pattern, chain] : options.resources)
                config.resources.push_back({pattern, chain, {}, {}});
              for (const auto& [pattern, chain] : options.prompts)
                config.prompts.push_back({pattern, chain, {}, {}});
            }};
  }
};

// What a session sent, from any thread.
class Outbox {
 public:
  Session::Send sender() {
    return [this](std::string message, Outbound) {
      if (message.empty()) return;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      {
        std::lock_guard lock(mutex_);
        raw_.push_back(message);
        messages_.push_back(boost::json::parse(message).as_object());
      }
      arrived_.notify_all();
    };
  }

  // The answer to `id`, waiting up to 5 s for it.
  object wait_for(const value& id) {
    std::unique_lock lock(mutex_);
    std::optional<object> found;
    arrived_.wait_for(lock, 5s, [&] {
      for (const auto& m : messages_)
        if (m.contains("id") && !m.contains("method") && m.at("id") == id) found = m;
      return found.has_value();
    });
    if (!found) throw std::runtime_error("no answer to " + boost::json::serialize(id));
    return *found;
  }

  // Every notification with `method` so far.
  std::vector<object> notifications(std::string_view method) const {
    std::lock_guard lock(mutex_);
    std::vector<object> out;
    for (const auto& m : messages_)
      if (!m.contains("id") && m.contains("method") && m.at("method").as_string() == method) out.push_back(m);
    return out;
  }

  // Everything sent, as it went on the wire.
  std::string all_text() const {
    std::lock_guard lock(mutex_);
    std::string out;
    for (const auto& m : raw_) out += m + "\n";
    return out;
  }

 private:
  mutable std::mutex mutex_;  // guards messages_ and raw_
  std::condition_variable arrived_;
  std::vector<object> messages_;
  std::vector<std::string> raw_;
};

std::string request(const value& id, std::string_view method, value params = nullptr) {
  object m{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) m["params"] = std::move(params);
  return boost::json::serialize(m);
}

// One initialized session and what it sent.
struct Client {
  explicit Client(const Server& server) : session(server.state(), outbox.sender()) {
    initialize_result = ask("init", "initialize",
                            object{{"protocolVersion", "2025-11-25"},
                                   {"capabilities", object{}},
                                   {"clientInfo", object{{"name", "t"}, {"version", "1"}}}});
  }

  object ask(const value& id, std::string_view method, value params = nullptr) {
    session.handle(request(id, method, std::move(params)));
    return outbox.wait_for(id);
  }
  object read(const value& id, std::string_view uri) { return ask(id, "resources/read", object{{"uri", uri}}); }
  object get(const value& id, std::string_view name, object arguments = {}) {
    return ask(id, "prompts/get", object{{"name", name}, {"arguments", std::move(arguments)}});
  }
  std::string call(const value& id, std::string_view tool, object arguments) {
    const object m = ask(id, "tools/call", object{{"name", tool}, {"arguments", std::move(arguments)}});
    return std::string(m.at("result").at("content").at(0).at("text").as_string());
  }

  Outbox outbox;
  Session session;
  object initialize_result;
};

std::int64_t error_code(const object& m) { return m.at("error").at("code").to_number<std::int64_t>(); }
std::string error_message(const object& m) { return std::string(m.at("error").at("message").as_string()); }
std::string first_text(const object& m) {
  return std::string(m.at("result").at("contents").at(0).at("text").as_string());
}

// --- capabilities

TEST(SessionContent, InitializeDeclaresResourcesPromptsAndCompletionsWhenAPluginServesThem) {
  Server server;
  Client client(server);
  EXPECT_EQ(client.initialize_result.at("result").at("capabilities"),
            boost::json::parse(R"({"tools":{"listChanged":true},"logging":{},
                                   "resources":{"subscribe":true,"listChanged":true},
                                   "prompts":{"listChanged":true},"completions":{}})"));
}

TEST(SessionContent, ContentMethodsAreNotFoundWhenNoPluginServesContent) {
  Server server({.fixtures = {"canary"}});
  Client client(server);
  EXPECT_FALSE(client.initialize_result.at("result").at("capabilities").as_object().contains("resources"));
  for (const char* method : {"resources/list", "resources/templates/list", "resources/read", "resources/subscribe",
                             "prompts/list", "prompts/get", "completion/complete"}) {
    const object m = client.ask(method, method, object{});
    EXPECT_EQ(error_code(m), jsonrpc::kMethodNotFound) << method;
  }
}

// --- lists

TEST(SessionContent, ResourcesListPagesInUriOrderWithCursors) {
  Server server({.page_size = 2});
  Client client(server);
  std::vector<std::string> uris;
  value cursor = nullptr;
  for (int page = 0; page < 10; ++page) {
    object params;
    if (!cursor.is_null()) params["cursor"] = cursor;
    const object m = client.ask(page, "resources/list", params);
    for (const auto& r : m.at("result").at("resources").as_array()) uris.emplace_back(r.at("uri").as_string());
    const auto* next = m.at("result").as_object().if_contains("nextCursor");
    if (!next) break;
    cursor = *next;
  }
  EXPECT_THAT(uris, testing::ElementsAre("canary://big", "canary://binary", "canary://empty", "canary://secret",
                                         "canary://throws"));
}

TEST(SessionContent, ResourceEntriesCarryTheirDefinitionAndTemplatesAreListedApart) {
  Server server;
  Client client(server);
  const object list = client.ask(1, "resources/list", object{});
  EXPECT_EQ(list.at("result").at("resources").at(3),
            boost::json::parse(R"({"uri":"canary://secret","name":"secret","title":"Secret","mimeType":"text/plain"})"));
  const object templates = client.ask(2, "resources/templates/list");
  EXPECT_EQ(templates.at("result"),
            boost::json::parse(R"({"resourceTemplates":[{"uriTemplate":"canary://items/{id}","name":"item",
                                                          "mimeType":"text/plain"}]})"));
}

TEST(SessionContent, PromptsListShowsArguments) {
  Server server;
  Client client(server);
  const object m = client.ask(1, "prompts/list");
  const auto& prompts = m.at("result").at("prompts").as_array();
  ASSERT_EQ(prompts.size(), 3u);
  EXPECT_EQ(prompts[1], boost::json::parse(R"({"name":"canary_prompt","title":"Canary","description":"plants the canary",
      "arguments":[{"name":"topic","description":"what about","required":true},{"name":"style","required":false}]})"));
}

TEST(SessionContent, AForeignCursorIsInvalidParams) {
  Server server;
  Client client(server);
  EXPECT_EQ(error_code(client.ask(1, "resources/list", object{{"cursor", "o1"}})), jsonrpc::kInvalidParams);
  EXPECT_EQ(error_code(client.ask(2, "prompts/list", object{{"cursor", 3}})), jsonrpc::kInvalidParams);
}

// --- resources/read

TEST(SessionContent, ReadsAStaticTextResourceWithItsMimeType) {
  Server server;
  Client client(server);
  const object m = client.read(1, "canary://secret");
  EXPECT_EQ(m.at("result"), boost::json::parse(R"({"contents":[{"uri":"canary://secret","mimeType":"text/plain",
                                                   "text":"the secret is )" AIRLOCK_CANARY R"("}]})"));
}

TEST(SessionContent, ReadsABlobAsBase64) {
  Server server;
  Client client(server);
  const object m = client.read(1, "canary://binary");
  EXPECT_EQ(m.at("result").at("contents").at(0),
            boost::json::parse(R"({"uri":"canary://binary","mimeType":"application/octet-stream",
                                   "blob":"AAECA2NhbmFyeQ=="})"));
}

TEST(SessionContent, ReadsThroughATemplateWithItsVariables) {
  Server server;
  Client client(server);
  const object m = client.read(1, "canary://items/123");
  EXPECT_EQ(m.at("result").at("contents").at(0).at("uri"), "canary://items/123");
  EXPECT_EQ(first_text(m), "item 123 " + std::string(kCanary));
}

TEST(SessionContent, UnknownUriAndNotFoundFromThePluginAreResourceNotFoundWithTheUri) {
  Server server;
  Client client(server);
  for (const char* uri : {"canary://nothing", "canary://items/missing", "canary://items/a/b"}) {
    const object m = client.read(uri, uri);
    EXPECT_EQ(error_code(m), kResourceNotFound) << uri;
    EXPECT_EQ(error_message(m), "Resource not found");
    EXPECT_EQ(m.at("error").at("data"), (object{{"uri", uri}}));
  }
}

TEST(SessionContent, AFailedReadIsFixedHostTextWithoutPluginData) {
  Server server;
  Client client(server);
  for (const char* uri : {"canary://throws", "canary://empty"}) {
    const object m = client.read(uri, uri);
    EXPECT_EQ(error_code(m), jsonrpc::kInternalError) << uri;
    EXPECT_EQ(error_message(m), "resources/read: the resource could not be read");
  }
  EXPECT_THAT(client.outbox.all_text(), Not(HasSubstr(kCanary)));
}

TEST(SessionContent, ReadWithoutUriIsInvalidParams) {
  Server server;
  Client client(server);
  EXPECT_EQ(error_code(client.ask(1, "resources/read", object{{"uri", 5}})), jsonrpc::kInvalidParams);
}

// --- chains over resources and prompts (issue 6, item 7)

TEST(SessionContent, AResourceReadPassesTheChainBoundToItsUri) {
  Server server({.chains = {{"redact", {"canary.redact"}}}, .resources = {{"canary://*", "redact"}}});
  Client client(server);
  EXPECT_EQ(first_text(client.read(1, "canary://secret")), "the secret is [redacted]");
  EXPECT_EQ(first_text(client.read(2, "canary://items/7")), "item 7 [redacted]");
  EXPECT_THAT(client.outbox.all_text(), Not(HasSubstr(kCanary)));
}

TEST(SessionContent, TheDefaultChainAppliesToUnboundContentAndNoneOptsOut) {
  Server server({.chains = {{"default", {"canary.redact"}}}, .resources = {{"canary://items/*", "none"}}});
  Client client(server);
  EXPECT_EQ(first_text(client.read(1, "canary://secret")), "the secret is [redacted]");
  EXPECT_EQ(first_text(client.read(2, "canary://items/7")), "item 7 " + std::string(kCanary));
}

TEST(SessionContent, TheFirstMatchingBindingWins) {
  Server server({.chains = {{"redact", {"canary.redact"}}},
                 .resources = {{"canary://secret", "none"}, {"canary://*", "redact"}}});
  Client client(server);
  EXPECT_EQ(first_text(client.read(1, "canary://secret")), "the secret is " + std::string(kCanary));
  EXPECT_EQ(first_text(client.read(2, "canary://items/1")), "item 1 [redacted]");
}

TEST(SessionContent, AFailingStepWithholdsTheWholeReadWithoutAByteOfIt) {
  Server server({.chains = {{"fail", {"canary.redact", "canary.fail"}}}, .resources = {{"*", "fail"}}});
  Client client(server);
  const object m = client.read(1, "canary://secret");
  EXPECT_EQ(error_code(m), jsonrpc::kInternalError);
  EXPECT_EQ(error_message(m), kResourceWithheldText);
  EXPECT_FALSE(m.contains("result"));
  const object thrown = client.ask(2, "resources/read", object{{"uri", "canary://items/1"}});
  EXPECT_EQ(error_message(thrown), kResourceWithheldText);
  EXPECT_THAT(client.outbox.all_text(), Not(HasSubstr(kCanary)));
  EXPECT_THAT(client.outbox.all_text(), Not(HasSubstr("secret is")));
}

TEST(SessionContent, AThrowingStepWithholdsToo) {
  Server server({.chains = {{"default", {"canary.throwing"}}}});
  Client client(server);
  EXPECT_EQ(error_message(client.read(1, "canary://secret")), kResourceWithheldText);
  EXPECT_THAT(client.outbox.all_text(), Not(HasSubstr(kCanary)));
}

TEST(SessionContent, BlobsAreNotTextForTheChain) {
  Server server({.chains = {{"default", {"canary.fail"}}}});
  Client client(server);
  EXPECT_EQ(client.read(1, "canary://binary").at("result").at("contents").at(0).at("blob"), "AAECA2NhbmFyeQ==");
}

TEST(SessionContent, APromptPassesTheChainBoundToItsNameInEveryText) {
  Server server({.chains = {{"redact", {"canary.redact"}}}, .prompts = {{"canary_*", "redact"}}});
  Client client(server);
  const object m = client.get(1, "canary_prompt", object{{"topic", "birds"}});
  EXPECT_EQ(m.at("result"), boost::json::parse(R"({"description":"about birds [redacted]","messages":[
      {"role":"user","content":{"type":"text","text":"tell me about birds [redacted]"}},
      {"role":"user","content":{"type":"resource","resource":{"uri":"canary://secret","mimeType":"text/plain",
                                                              "text":"embedded [redacted]"}}}]})"));
  const object image = client.get(2, "canary_image");
  EXPECT_EQ(image.at("result").at("messages").at(1).at("content").at("name"), "link [redacted]");
  EXPECT_THAT(client.outbox.all_text(), Not(HasSubstr(kCanary)));
}

TEST(SessionContent, AFailingStepWithholdsTheWholePrompt) {
  Server server({.chains = {{"fail", {"canary.fail"}}}, .prompts = {{"canary_prompt", "fail"}}});
  Client client(server);
  const object m = client.get(1, "canary_prompt", object{{"topic", "birds"}});
  EXPECT_EQ(error_code(m), jsonrpc::kInternalError);
  EXPECT_EQ(error_message(m), kPromptWithheldText);
  EXPECT_THAT(client.outbox.all_text(), Not(HasSubstr(kCanary)));
  EXPECT_THAT(client.outbox.all_text(), Not(HasSubstr("birds")));
}

TEST(SessionContent, BindingContentToAChainWithAResultSanitizerIsAConfigError) {
  EXPECT_THAT(
      [] { Server server({.chains = {{"structural", {"canary.bad-output"}}}, .prompts = {{"*", "structural"}}}); },
      testing::ThrowsMessage<std::runtime_error>(HasSubstr(
          "[prompts.\"*\"] binds chain 'structural', whose result sanitizer 'canary.bad-output' takes tool results")));
}

TEST(SessionContent, AReadOverTheByteBudgetIsWithheldWhole) {
  Server server({.max_result_bytes = 64 * 1024});
  Client client(server);
  const object m = client.read(1, "canary://big");
  EXPECT_EQ(error_message(m), kResourceOverBudgetText);
  EXPECT_EQ(first_text(client.read(2, "canary://secret")), "the secret is " + std::string(kCanary));
}

// --- prompts/get

TEST(SessionContent, AMissingRequiredArgumentIsInvalidParams) {
  Server server;
  Client client(server);
  const object m = client.get(1, "canary_prompt", object{{"style", "dry"}});
  EXPECT_EQ(error_code(m), jsonrpc::kInvalidParams);
  EXPECT_THAT(error_message(m), HasSubstr("missing required argument 'topic'"));
}

TEST(SessionContent, NonStringArgumentsAndUnknownPromptsAreInvalidParams) {
  Server server;
  Client client(server);
  EXPECT_EQ(error_code(client.get(1, "canary_prompt", object{{"topic", 1}})), jsonrpc::kInvalidParams);
  EXPECT_EQ(error_code(client.get(2, "no_such_prompt")), jsonrpc::kInvalidParams);
  EXPECT_EQ(error_code(client.ask(3, "prompts/get", object{{"name", "canary_prompt"}, {"arguments", "x"}})),
            jsonrpc::kInvalidParams);
}

TEST(SessionContent, ImagesInPromptsAreBase64) {
  Server server;
  Client client(server);
  const object m = client.get(1, "canary_image");
  EXPECT_EQ(m.at("result").at("messages").at(0),
            boost::json::parse(R"({"role":"user","content":{"type":"image","data":"iVBORw==","mimeType":"image/png"}})"));
}

TEST(SessionContent, AFailedGetIsFixedHostTextWithoutPluginData) {
  Server server;
  Client client(server);
  const object m = client.get(1, "canary_throws");
  EXPECT_EQ(error_code(m), jsonrpc::kInternalError);
  EXPECT_EQ(error_message(m), "prompts/get: the prompt could not be built");
  EXPECT_THAT(client.outbox.all_text(), Not(HasSubstr(kCanary)));
}

// --- completion/complete

object complete(Client& client, const value& id, object ref, std::string_view name, std::string_view typed,
                object chosen = {}) {
  object params{{"ref", std::move(ref)}, {"argument", object{{"name", name}, {"value", typed}}}};
  if (!chosen.empty()) params["context"] = object{{"arguments", std::move(chosen)}};
  return client.ask(id, "completion/complete", std::move(params));
}

TEST(SessionContent, CompletesAPromptArgumentSeeingTheOthers) {
  Server server;
  Client client(server);
  const object m = complete(client, 1, object{{"type", "ref/prompt"}, {"name", "canary_prompt"}}, "topic", "bi",
                            object{{"style", "dry"}});
  EXPECT_EQ(m.at("result"),
            boost::json::parse(R"({"completion":{"values":["bi-a","bi-b","dry"],"total":3,"hasMore":false}})"));
}

TEST(SessionContent, CompletionsStopAtOneHundredAndSayThereIsMore) {
  Server server;
  Client client(server);
  const object all = complete(client, 1, object{{"type", "ref/resource"}, {"uri", "canary://items/{id}"}}, "id", "");
  EXPECT_EQ(all.at("result").at("completion").at("values").as_array().size(), 100u);
  EXPECT_EQ(all.at("result").at("completion").at("total"), 150);
  EXPECT_EQ(all.at("result").at("completion").at("hasMore"), true);
  const object ones = complete(client, 2, object{{"type", "ref/resource"}, {"uri", "canary://items/{id}"}}, "id", "1");
  EXPECT_EQ(ones.at("result").at("completion").at("total"), 62);  // 1, 10-19, 100-150
  EXPECT_EQ(ones.at("result").at("completion").at("hasMore"), false);
}

TEST(SessionContent, AnArgumentWithoutACompleterCompletesToNothing) {
  Server server;
  Client client(server);
  const object m = complete(client, 1, object{{"type", "ref/prompt"}, {"name", "canary_prompt"}}, "style", "d");
  EXPECT_EQ(m.at("result"), boost::json::parse(R"({"completion":{"values":[],"total":0,"hasMore":false}})"));
}

TEST(SessionContent, CompletingWhatDoesNotExistIsInvalidParams) {
  Server server;
  Client client(server);
  EXPECT_EQ(error_code(complete(client, 1, object{{"type", "ref/prompt"}, {"name", "nope"}}, "x", "")),
            jsonrpc::kInvalidParams);
  EXPECT_EQ(error_code(complete(client, 2, object{{"type", "ref/prompt"}, {"name", "canary_prompt"}}, "nope", "")),
            jsonrpc::kInvalidParams);
  EXPECT_EQ(error_code(complete(client, 3, object{{"type", "ref/resource"}, {"uri", "canary://items/{x}"}}, "x", "")),
            jsonrpc::kInvalidParams);
  EXPECT_EQ(error_code(complete(client, 4, object{{"type", "ref/tool"}, {"name", "x"}}, "x", "")),
            jsonrpc::kInvalidParams);
}

// --- subscriptions and changes while the server runs

TEST(SessionContent, AnUpdateReachesOnlyTheSessionsSubscribedToThatUri) {
  Server server;
  Client subscriber(server);
  Client other(server);
  EXPECT_EQ(subscriber.ask(1, "resources/subscribe", object{{"uri", "canary://secret"}}).at("result"), object{});
  EXPECT_EQ(other.ask(1, "resources/subscribe", object{{"uri", "canary://items/9"}}).at("result"), object{});

  EXPECT_EQ(other.call(2, "content.touch", object{{"uri", "canary://secret"}}), "touched");
  const auto updates = subscriber.outbox.notifications("notifications/resources/updated");
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].at("params"), (object{{"uri", "canary://secret"}}));
  EXPECT_TRUE(other.outbox.notifications("notifications/resources/updated").empty());

  EXPECT_EQ(subscriber.ask(3, "resources/unsubscribe", object{{"uri", "canary://secret"}}).at("result"), object{});
  other.call(4, "content.touch", object{{"uri", "canary://secret"}});
  EXPECT_EQ(subscriber.outbox.notifications("notifications/resources/updated").size(), 1u);
}

TEST(SessionContent, AClosedSessionHearsNoMoreUpdates) {
  Server server;
  Client subscriber(server);
  Client other(server);
  subscriber.ask(1, "resources/subscribe", object{{"uri", "canary://secret"}});
  subscriber.session.close();
  other.call(2, "content.touch", object{{"uri", "canary://secret"}});
  EXPECT_TRUE(subscriber.outbox.notifications("notifications/resources/updated").empty());
}

TEST(SessionContent, SubscribingToAUriNothingServesIsResourceNotFound) {
  Server server;
  Client client(server);
  const object m = client.ask(1, "resources/subscribe", object{{"uri", "canary://nothing"}});
  EXPECT_EQ(error_code(m), kResourceNotFound);
  EXPECT_EQ(m.at("error").at("data"), (object{{"uri", "canary://nothing"}}));
}

TEST(SessionContent, AResourceRegisteredAtRunTimeIsAnnouncedListedReadAndRemoved) {
  Server server({.chains = {{"default", {"canary.redact"}}}});
  Client client(server);
  Client watcher(server);
  EXPECT_EQ(client.call(1, "content.add", object{{"uri", "canary://added"}}), std::to_string(AIRLOCK_STATUS_OK));
  EXPECT_EQ(watcher.outbox.notifications("notifications/resources/list_changed").size(), 1u);

  const object list = watcher.ask(2, "resources/list");
  bool listed = false;
  for (const auto& r : list.at("result").at("resources").as_array()) listed = listed || r.at("uri") == "canary://added";
  EXPECT_TRUE(listed);
  EXPECT_EQ(first_text(watcher.read(3, "canary://added")), "added canary://added [redacted]");

  // A URI some plugin serves already is refused, and nothing changes.
  EXPECT_EQ(client.call(4, "content.add", object{{"uri", "canary://secret"}}),
            std::to_string(AIRLOCK_STATUS_INVALID_ARGUMENT));
  EXPECT_EQ(watcher.outbox.notifications("notifications/resources/list_changed").size(), 1u);

  EXPECT_EQ(client.call(5, "content.remove", object{{"uri", "canary://added"}}), "removed");
  EXPECT_EQ(watcher.outbox.notifications("notifications/resources/list_changed").size(), 2u);
  EXPECT_EQ(error_code(watcher.read(6, "canary://added")), kResourceNotFound);
  EXPECT_EQ(client.call(7, "content.remove", object{{"uri", "canary://added"}}), "none");
}

// --- schemas verbatim (issue 6, item 8)

TEST(SessionContent, AToolInputSchemaReachesToolsListVerbatim) {
  Server server;
  Client client(server);
  const object m = client.ask(1, "tools/list");
  std::optional<value> schema;
  for (const auto& t : m.at("result").at("tools").as_array())
    if (t.at("name") == "content.schema") schema = t.at("inputSchema");
  ASSERT_TRUE(schema);
  // Byte for byte, as the plugin registered it: key order and all.
  EXPECT_EQ(boost::json::serialize(*schema),
            R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",)"
            R"("$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},)"
            R"("properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false})");
}

}  // namespace
}  // namespace airlock::host
