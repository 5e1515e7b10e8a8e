// sdk_content_test.cpp — airlock.hpp's ABI 1.3 layer against a fake host:
// resources, templates and prompts register with the definitions given, their
// hooks write through the right host functions, completions reach the
// completer of the argument asked about, and nothing thrown crosses the C ABI.
#include <airlock/airlock.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_host.hpp"

#include <boost/json/parse.hpp>

#include <stdexcept>
#include <string>
#include <vector>

using airlock::test::kFakeHost;
using airlock::test::kFakeHostAbi12;
using airlock::test::text_of;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace sdk = airlock::sdk;

namespace {
// Set by the plugin body, for tests of the handle a plugin keeps.
std::optional<sdk::Host> g_handle;
}  // namespace

AIRLOCK_PLUGIN(plugin) {
  plugin.info("sdk-content-test", "1.0.0");
  g_handle = plugin.host_handle();
  plugin.resource({.uri = "test://text",
                   .name = "text",
                   .title = "Text",
                   .description = "a text resource",
                   .mime_type = "text/plain",
                   .annotations = R"({"priority":1})"},
                  [](const sdk::ReadRequest& r, sdk::Contents& out) {
                    out.add_text("read " + std::string(r.uri) + " for " + std::string(r.context.session_id));
                  });
  plugin.resource({.uri = "test://returns-text", .name = "returns"},
                  [](const sdk::ReadRequest&, sdk::Contents&) { return sdk::Text{"returned"}; });
  plugin.resource({.uri = "test://blob", .name = "blob"}, [](const sdk::ReadRequest&, sdk::Contents& out) {
    out.add_blob(std::string("\x01\x02", 2), "application/octet-stream", "test://other");
  });
  plugin.resource({.uri = "test://missing", .name = "missing"},
                  [](const sdk::ReadRequest&, sdk::Contents&) { throw sdk::NotFound(); });
  plugin.resource({.uri = "test://throws", .name = "throws"},
                  [](const sdk::ReadRequest&, sdk::Contents&) { throw std::runtime_error("read boom"); });
  plugin.resource_template(
      {.uri_template = "test://items/{id}", .name = "item", .mime_type = "application/json"},
      [](const sdk::ReadRequest& r, sdk::Contents& out) {
        out.add_text("item " + std::string(r.variables.at("id").as_string()));
      },
      {{"id", [](std::string_view typed, const boost::json::object& chosen) {
          return std::vector<std::string>{std::string(typed) + "1", std::string(typed) + "2",
                                          std::to_string(chosen.size())};
        }}});
  plugin.prompt({.name = "greet",
                 .title = "Greet",
                 .description = "says hello",
                 .arguments = {{.name = "who", .description = "whom", .required = true}, {.name = "tone"}}},
                [](const sdk::PromptRequest& r, sdk::Messages& out) {
                  out.description("a greeting");
                  out.text("user", "hello " + std::string(sdk::string_arg(r.arguments, "who")));
                  out.image("assistant", "image/png", "PNG");
                  out.resource("user", "test://text", "text/plain", "embedded");
                  out.message(boost::json::object{{"role", "user"}, {"content", {{"type", "text"}, {"text", "raw"}}}});
                });
  plugin.prompt({.name = "refuses"}, [](const sdk::PromptRequest&, sdk::Messages&) {
    throw sdk::StatusError(AIRLOCK_STATUS_INVALID_ARGUMENT, "bad tone");
  });
}

namespace {

airlock_str str(std::string_view s) { return airlock_str{s.data(), s.size()}; }

class SdkContent : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(airlock_plugin_init(&kFakeHost, &ctx_), AIRLOCK_STATUS_OK) << ctx_.init_error; }
  void TearDown() override {
    if (ctx_.info.on_destroy) ctx_.info.on_destroy(ctx_.info.plugin_data);
  }

  airlock_status read(const std::string& uri, airlock_resource_writer& out, std::string_view variables = "{}") {
    const std::string session = "s-1";
    const airlock_request_context context{sizeof(airlock_request_context), str("2025-11-25"), str(session), str(""),
                                          str("7"), str("{}")};
    if (auto it = ctx_.resources.find(uri); it != ctx_.resources.end())
      return it->second.on_read(it->second.resource_data, &context, str(uri), str(variables), &out);
    const auto& t = ctx_.templates.at("test://items/{id}");
    return t.on_read(t.template_data, &context, str(uri), str(variables), &out);
  }

  airlock_plugin_ctx ctx_;
};

TEST_F(SdkContent, ResourceIsRegisteredWithEveryFieldOfItsDefinition) {
  const airlock_resource_def& def = ctx_.resources.at("test://text");
  EXPECT_EQ(def.struct_size, sizeof(airlock_resource_def));
  EXPECT_EQ(text_of(def.name), "text");
  EXPECT_EQ(text_of(def.title), "Text");
  EXPECT_EQ(text_of(def.description), "a text resource");
  EXPECT_EQ(text_of(def.mime_type), "text/plain");
  EXPECT_EQ(text_of(def.annotations), R"({"priority":1})");
}

TEST_F(SdkContent, ReadWritesItsTextAndSeesTheRequestContext) {
  airlock_resource_writer out;
  ASSERT_EQ(read("test://text", out), AIRLOCK_STATUS_OK);
  EXPECT_THAT(out.contents, ElementsAre("||text:read test://text for s-1"));
}

TEST_F(SdkContent, ReadReturningTextWritesOneTextContent) {
  airlock_resource_writer out;
  ASSERT_EQ(read("test://returns-text", out), AIRLOCK_STATUS_OK);
  EXPECT_THAT(out.contents, ElementsAre("||text:returned"));
}

TEST_F(SdkContent, BlobGoesToTheHostAsBytes) {
  airlock_resource_writer out;
  ASSERT_EQ(read("test://blob", out), AIRLOCK_STATUS_OK);
  EXPECT_THAT(out.contents, ElementsAre("test://other|application/octet-stream|blob:" + std::string("\x01\x02", 2)));
}

TEST_F(SdkContent, NotFoundThrownIsNotFoundStatus) {
  airlock_resource_writer out;
  EXPECT_EQ(read("test://missing", out), AIRLOCK_STATUS_NOT_FOUND);
  EXPECT_TRUE(out.contents.empty());
}

TEST_F(SdkContent, ExceptionInAReadIsInternalAndLogged) {
  airlock_resource_writer out;
  EXPECT_EQ(read("test://throws", out), AIRLOCK_STATUS_INTERNAL);
  ASSERT_FALSE(ctx_.logs.empty());
  EXPECT_THAT(ctx_.logs.back(), HasSubstr("read boom"));
}

TEST_F(SdkContent, TemplateReadGetsItsVariables) {
  airlock_resource_writer out;
  ASSERT_EQ(read("test://items/42", out, R"({"id":"42"})"), AIRLOCK_STATUS_OK);
  EXPECT_THAT(out.contents, ElementsAre("||text:item 42"));
}

TEST_F(SdkContent, CompletionReachesTheCompleterOfThatVariable) {
  const auto& t = ctx_.templates.at("test://items/{id}");
  ASSERT_NE(t.on_complete, nullptr);
  airlock_completion_writer out;
  ASSERT_EQ(t.on_complete(t.template_data, nullptr, str("id"), str("x"), str(R"({"a":"b"})"), &out),
            AIRLOCK_STATUS_OK);
  EXPECT_THAT(out.values, ElementsAre("x1", "x2", "1"));

  airlock_completion_writer none;
  ASSERT_EQ(t.on_complete(t.template_data, nullptr, str("other"), str("x"), str("{}"), &none), AIRLOCK_STATUS_OK);
  EXPECT_TRUE(none.values.empty());
}

TEST_F(SdkContent, ADefinitionWithoutCompletersHasNoCompleteHook) {
  EXPECT_EQ(ctx_.prompts.at("greet").on_complete, nullptr);
}

TEST_F(SdkContent, PromptArgumentsAreRegisteredAsJson) {
  const airlock_prompt_def& def = ctx_.prompts.at("greet");
  EXPECT_EQ(text_of(def.title), "Greet");
  EXPECT_EQ(text_of(def.description), "says hello");
  EXPECT_EQ(boost::json::parse(ctx_.prompt_arguments.at("greet")),
            boost::json::parse(R"([{"name":"who","description":"whom","required":true},
                                   {"name":"tone","required":false}])"));
  EXPECT_EQ(ctx_.prompt_arguments.at("refuses"), "");
}

TEST_F(SdkContent, PromptWritesEveryKindOfMessageInOrder) {
  const airlock_prompt_def& def = ctx_.prompts.at("greet");
  airlock_prompt_writer out;
  ASSERT_EQ(def.on_get(def.prompt_data, nullptr, str("greet"), str(R"({"who":"Ada"})"), &out), AIRLOCK_STATUS_OK);
  EXPECT_EQ(out.description, "a greeting");
  EXPECT_THAT(out.messages,
              ElementsAre("user text:hello Ada", "assistant image:image/png:PNG",
                          "user resource:test://text:text/plain:embedded",
                          R"(message:{"role":"user","content":{"type":"text","text":"raw"}})"));
}

TEST_F(SdkContent, InvalidArgumentThrownFromAPromptPassesThrough) {
  const airlock_prompt_def& def = ctx_.prompts.at("refuses");
  airlock_prompt_writer out;
  EXPECT_EQ(def.on_get(def.prompt_data, nullptr, str("refuses"), str("{}"), &out), AIRLOCK_STATUS_INVALID_ARGUMENT);
}

TEST_F(SdkContent, HostHandleReportsUpdatesAndUnregisters) {
  ASSERT_TRUE(g_handle);
  g_handle->resource_updated("test://text");
  EXPECT_THAT(ctx_.updated, ElementsAre("test://text"));
  EXPECT_TRUE(g_handle->unregister_resource("test://text"));
  EXPECT_FALSE(g_handle->unregister_resource("test://text"));
  EXPECT_TRUE(g_handle->unregister_prompt("greet"));
  EXPECT_THAT(ctx_.unregistered, ElementsAre("test://text", "greet"));
}

TEST(SdkContentOnOlderHost, ResourcesRefuseInitOnAHostBefore13) {
  airlock_plugin_ctx ctx;
  EXPECT_EQ(airlock_plugin_init(&kFakeHostAbi12, &ctx), AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_THAT(ctx.init_error, HasSubstr("ABI 1.3"));
  EXPECT_TRUE(ctx.resources.empty());
  if (ctx.info.on_destroy) ctx.info.on_destroy(ctx.info.plugin_data);
}

}  // namespace
