// sdk_input_test.cpp — airlock.hpp's ABI 1.5 layer against a fake host:
// keyed questions from a tool, a prompt and a read reach the host with their
// keys; an unanswered one becomes AIRLOCK_STATUS_INPUT_REQUIRED and nothing
// else; an older host gets the key-less call; a tool's required client
// capabilities, the request context's client capabilities and list-changed
// notifications cross the ABI as written; Call::start_task's outcomes (a task
// now, no task, a task just made, a failure) and an older host's table.
#include <airlock/airlock.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_host.hpp"

#include <boost/json/parse.hpp>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using airlock::test::kFakeHost;
using airlock::test::text_of;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

namespace sdk = airlock::sdk;
using boost::json::object;

namespace {

// What the client "answers", by key: a status and its reply. A key that is
// not here is still unanswered (INPUT_REQUIRED), as in a 2026-07-28 request.
struct Answer {
  airlock_status status;
  std::string reply;
};
std::map<std::string, Answer> g_answers;
// Every keyed question asked, in order: "<where> <key> <method> <params>".
std::vector<std::string> g_asked;
// What the host copied at registration (the def's strings are the plugin's).
std::map<std::string, std::string> g_required_capabilities;
std::vector<std::uint32_t> g_list_changes;
// What call_start_task answers, and how often a tool called it.
airlock_status g_start_status = AIRLOCK_STATUS_UNSUPPORTED;
int g_start_calls = 0;

airlock_status answer(std::string where, airlock_str key, airlock_str method, airlock_str params,
                      airlock_str* reply) {
  *reply = airlock_str{nullptr, 0};
  g_asked.push_back(where + " " + text_of(key) + " " + text_of(method) + " " + text_of(params));
  const auto it = g_answers.find(text_of(key));
  if (it == g_answers.end()) return AIRLOCK_STATUS_INPUT_REQUIRED;
  *reply = airlock_str{it->second.reply.data(), it->second.reply.size()};
  return it->second.status;
}

// kFakeHost with the ABI 1.5 members.
const airlock_host_api kHost15 = [] {
  airlock_host_api h = kFakeHost;
  h.register_tool = [](airlock_plugin_ctx* ctx, const airlock_tool_def* def) -> airlock_status {
    g_required_capabilities[text_of(def->name)] = text_of(def->required_client_capabilities);
    return kFakeHost.register_tool(ctx, def);
  };
  h.call_input_request = [](airlock_call*, airlock_str key, airlock_str method, airlock_str params, uint32_t,
                            airlock_str* reply) { return answer("call", key, method, params, reply); };
  h.prompt_input_request = [](airlock_prompt_writer*, airlock_str key, airlock_str method, airlock_str params,
                              uint32_t, airlock_str* reply) { return answer("prompt", key, method, params, reply); };
  h.resource_input_request = [](airlock_resource_writer*, airlock_str key, airlock_str method, airlock_str params,
                                uint32_t, airlock_str* reply) { return answer("read", key, method, params, reply); };
  h.notify_list_changed = [](airlock_plugin_ctx*, std::uint32_t list) -> airlock_status {
    if (list < AIRLOCK_LIST_TOOLS || list > AIRLOCK_LIST_RESOURCES) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    g_list_changes.push_back(list);
    return AIRLOCK_STATUS_OK;
  };
  h.call_start_task = [](airlock_call*) -> airlock_status {
    ++g_start_calls;
    return g_start_status;
  };
  return h;
}();

// A 1.5 host built before call_start_task joined the table: it ends at
// notify_list_changed.
const airlock_host_api kHost15WithoutTasks = [] {
  airlock_host_api h = kHost15;
  h.struct_size = offsetof(airlock_host_api, notify_list_changed) + sizeof h.notify_list_changed;
  return h;
}();

// The same host as an ABI 1.4 host compiled it: its table ends at call_fetch.
const airlock_host_api kHost14 = [] {
  airlock_host_api h = kHost15;
  h.struct_size = offsetof(airlock_host_api, call_fetch) + sizeof h.call_fetch;
  h.abi_version = 0x00010004u;
  return h;
}();

// A full 1.5 table that leaves call_start_task empty.
const airlock_host_api kHost15NullStartTask = [] {
  airlock_host_api h = kHost15;
  h.call_start_task = nullptr;
  return h;
}();

std::optional<sdk::Host> g_handle;

object name_form() {
  return object{{"message", "Name?"},
                {"requestedSchema", {{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}}}};
}

}  // namespace

AIRLOCK_PLUGIN(plugin) {
  plugin.info("sdk-input-test", "1.0.0");
  g_handle = plugin.host_handle();
  plugin.tool({.name = "t.greet", .required_client_capabilities = {{"elicitation", object{}}}},
              [](const object&, sdk::Call& call) {
                const object answer = call.elicit("who", name_form());
                return sdk::Text{"Hello, " + std::string(answer.at("content").at("name").as_string())};
              });
  plugin.tool({.name = "t.plain"}, [](const object&, sdk::Call&) { return sdk::Text{"plain"}; });
  // Asks three questions before stopping, as a tool that wants one round.
  plugin.tool({.name = "t.three"}, [](const object&, sdk::Call& call) {
    const std::optional<object> name = call.input("name", "elicitation/create", name_form());
    const std::optional<object> text = call.input("text", "sampling/createMessage", object{{"maxTokens", 5}});
    const std::optional<object> roots = call.input("roots", "roots/list");
    if (!name || !text || !roots) throw sdk::InputRequired();
    return sdk::Text{"all " + std::to_string(roots->at("roots").as_array().size())};
  });
  plugin.tool({.name = "t.sample-and-roots"}, [](const object&, sdk::Call& call) {
    const object text = call.sample("s", object{{"maxTokens", 5}});
    const object roots = call.list_roots("r");
    return sdk::Text{std::string(text.at("content").at("text").as_string()) + " " +
                     std::to_string(roots.at("roots").as_array().size())};
  });
  // A catch-all for std::exception must not swallow a pending question.
  plugin.tool({.name = "t.catches"}, [](const object&, sdk::Call& call) {
    try {
      return sdk::Text{std::string(call.elicit("who", name_form()).at("action").as_string())};
    } catch (const std::exception& e) {
      return sdk::Text{std::string("caught ") + e.what()};
    }
  });
  plugin.tool({.name = "t.keyless"}, [](const object&, sdk::Call& call) {
    return sdk::Text{std::string(call.elicit(name_form()).at("action").as_string())};
  });
  plugin.tool({.name = "t.raw"}, [](const object&, sdk::Call& call) {
    const sdk::ClientReply reply = call.ask_input("raw", "roots/list");
    return sdk::Text{std::to_string(reply.status) + " " + reply.text};
  });
  // Says which way it went on; writes something first, which a started task
  // must not deliver.
  plugin.tool({.name = "t.task", .flags = AIRLOCK_TOOL_TASK_OPTIONAL}, [](const object&, sdk::Call& call) {
    call.add_text("before");
    return sdk::Text{call.start_task() ? "as a task" : "synchronously"};
  });
  // A catch-all for std::exception must not swallow a started task.
  plugin.tool({.name = "t.task-catches", .flags = AIRLOCK_TOOL_TASK_REQUIRED}, [](const object&, sdk::Call& call) {
    try {
      return sdk::Text{call.start_task() ? "task" : "sync"};
    } catch (const std::exception& e) {
      return sdk::Text{std::string("caught ") + e.what()};
    }
  });
  plugin.resource({.uri = "test://task", .name = "task"},
                  [](const sdk::ReadRequest&, sdk::Contents&) -> sdk::Text { throw sdk::TaskStarted{}; });
  plugin.prompt({.name = "p.ask"}, [](const sdk::PromptRequest& r, sdk::Messages& out) {
    const object answer = out.elicit("ctx", name_form());
    out.text("user", std::string(answer.at("content").at("name").as_string()) + " with " +
                         std::string(r.context.client_capabilities));
  });
  plugin.resource({.uri = "test://ask", .name = "ask"}, [](const sdk::ReadRequest&, sdk::Contents& out) {
    const std::optional<object> roots = out.input("roots", "roots/list");
    if (!roots) throw sdk::InputRequired();
    out.add_text(std::to_string(roots->at("roots").as_array().size()) + " roots");
  });
}

namespace {

airlock_str str(std::string_view s) { return airlock_str{s.data(), s.size()}; }

class SdkInput : public ::testing::Test {
 protected:
  void load(const airlock_host_api& host) {
    ASSERT_EQ(airlock_plugin_init(&host, &ctx_), AIRLOCK_STATUS_OK) << ctx_.init_error;
    loaded_ = true;
  }
  void SetUp() override {
    g_answers.clear();
    g_asked.clear();
    g_required_capabilities.clear();
    g_list_changes.clear();
    g_start_status = AIRLOCK_STATUS_UNSUPPORTED;
    g_start_calls = 0;
  }
  void TearDown() override {
    if (loaded_ && ctx_.info.on_destroy) ctx_.info.on_destroy(ctx_.info.plugin_data);
    g_handle.reset();
  }
  airlock_status call(const std::string& tool, airlock_call& call) {
    const airlock_tool_def& def = ctx_.tools.at(tool);
    return def.on_call(def.tool_data, &call, str("{}"));
  }
  airlock_status get(const std::string& name, airlock_prompt_writer& out, const airlock_request_context* context) {
    const airlock_prompt_def& def = ctx_.prompts.at(name);
    return def.on_get(def.prompt_data, context, str(name), str("{}"), &out);
  }
  airlock_status read(const std::string& uri, airlock_resource_writer& out) {
    const airlock_resource_def& def = ctx_.resources.at(uri);
    return def.on_read(def.resource_data, nullptr, str(uri), str("{}"), &out);
  }
  airlock_status call_with_start(const std::string& tool, airlock_status start, airlock_call& c) {
    g_start_status = start;
    return call(tool, c);
  }

  airlock_plugin_ctx ctx_;
  bool loaded_ = false;
};

TEST_F(SdkInput, RequiredClientCapabilitiesReachTheHostAsJson) {
  load(kHost15);
  EXPECT_EQ(g_required_capabilities.at("t.greet"), R"({"elicitation":{}})");
  EXPECT_EQ(g_required_capabilities.at("t.plain"), "");
  EXPECT_EQ(ctx_.tools.at("t.greet").struct_size, sizeof(airlock_tool_def));
}

TEST_F(SdkInput, AnsweredQuestionReturnsTheClientsAnswer) {
  load(kHost15);
  g_answers["who"] = {AIRLOCK_STATUS_OK, R"({"action":"accept","content":{"name":"Ada"}})"};
  airlock_call c;
  EXPECT_EQ(call("t.greet", c), AIRLOCK_STATUS_OK);
  EXPECT_THAT(c.texts, ElementsAre("Hello, Ada"));
  ASSERT_EQ(g_asked.size(), 1u);
  EXPECT_THAT(g_asked[0], HasSubstr("call who elicitation/create {\"message\":\"Name?\""));
  EXPECT_THAT(c.client_requests, IsEmpty());  // never the key-less call on a 1.5 host
}

TEST_F(SdkInput, UnansweredQuestionIsInputRequiredAndNothingElse) {
  load(kHost15);
  airlock_call c;
  EXPECT_EQ(call("t.greet", c), AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_THAT(c.texts, IsEmpty());
  EXPECT_EQ(c.error, "");
  EXPECT_THAT(ctx_.logs, IsEmpty());
}

TEST_F(SdkInput, InputAsksEveryQuestionBeforeTheToolStops) {
  load(kHost15);
  g_answers["text"] = {AIRLOCK_STATUS_OK, R"({"role":"assistant","content":{"type":"text","text":"hi"}})"};
  airlock_call first;
  EXPECT_EQ(call("t.three", first), AIRLOCK_STATUS_INPUT_REQUIRED);
  ASSERT_EQ(g_asked.size(), 3u);
  EXPECT_THAT(g_asked[0], HasSubstr("call name elicitation/create"));
  EXPECT_EQ(g_asked[1], R"(call text sampling/createMessage {"maxTokens":5})");
  EXPECT_EQ(g_asked[2], "call roots roots/list {}");

  g_answers["name"] = {AIRLOCK_STATUS_OK, R"({"action":"accept","content":{"name":"Ada"}})"};
  g_answers["roots"] = {AIRLOCK_STATUS_OK, R"({"roots":[{"uri":"file:///a"},{"uri":"file:///b"}]})"};
  airlock_call second;
  EXPECT_EQ(call("t.three", second), AIRLOCK_STATUS_OK);
  EXPECT_THAT(second.texts, ElementsAre("all 2"));
}

TEST_F(SdkInput, KeyedSampleAndListRootsUseTheirMethods) {
  load(kHost15);
  g_answers["s"] = {AIRLOCK_STATUS_OK, R"({"role":"assistant","content":{"type":"text","text":"Paris"}})"};
  g_answers["r"] = {AIRLOCK_STATUS_OK, R"({"roots":[]})"};
  airlock_call c;
  EXPECT_EQ(call("t.sample-and-roots", c), AIRLOCK_STATUS_OK);
  EXPECT_THAT(c.texts, ElementsAre("Paris 0"));
  EXPECT_THAT(g_asked, ElementsAre(R"(call s sampling/createMessage {"maxTokens":5})", "call r roots/list {}"));
}

TEST_F(SdkInput, CatchingStdExceptionDoesNotSwallowAPendingQuestion) {
  load(kHost15);
  airlock_call c;
  EXPECT_EQ(call("t.catches", c), AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_THAT(c.texts, IsEmpty());
}

TEST_F(SdkInput, RefusedQuestionsAreToolErrorsNamingTheKey) {
  load(kHost15);
  g_answers["who"] = {AIRLOCK_STATUS_UNSUPPORTED, ""};
  airlock_call unsupported;
  EXPECT_EQ(call("t.catches", unsupported), AIRLOCK_STATUS_OK);
  EXPECT_THAT(unsupported.texts, ElementsAre("caught elicitation/create 'who': the client does not support it"));
  airlock_call thrown;
  EXPECT_EQ(call("t.greet", thrown), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_EQ(thrown.error, "elicitation/create 'who': the client does not support it");
}

TEST_F(SdkInput, MalformedAnswerIsInvalidArgumentForTheHostToReport) {
  load(kHost15);
  g_answers["who"] = {AIRLOCK_STATUS_INVALID_ARGUMENT, ""};
  airlock_call c;
  EXPECT_EQ(call("t.greet", c), AIRLOCK_STATUS_INVALID_ARGUMENT);
  ASSERT_EQ(ctx_.logs.size(), 1u);
  EXPECT_THAT(ctx_.logs[0], HasSubstr("t.greet: elicitation/create 'who': refused as invalid"));
}

TEST_F(SdkInput, KeylessQuestionPendingInA2026RequestIsInputRequired) {
  load(kHost15);
  airlock_call c;
  c.client_status = AIRLOCK_STATUS_INPUT_REQUIRED;
  EXPECT_EQ(call("t.keyless", c), AIRLOCK_STATUS_INPUT_REQUIRED);
  ASSERT_EQ(c.client_requests.size(), 1u);
  EXPECT_EQ(c.client_requests[0].first, "elicitation/create");
}

TEST_F(SdkInput, OlderHostGetsTheKeylessCall) {
  load(kHost14);
  airlock_call c;
  c.client_reply = R"({"action":"accept","content":{"name":"Bo"}})";
  EXPECT_EQ(call("t.greet", c), AIRLOCK_STATUS_OK);
  EXPECT_THAT(c.texts, ElementsAre("Hello, Bo"));
  EXPECT_THAT(g_asked, IsEmpty());
  ASSERT_EQ(c.client_requests.size(), 1u);
  EXPECT_EQ(c.client_requests[0].first, "elicitation/create");
  airlock_call raw;
  raw.client_reply = R"({"roots":[]})";
  EXPECT_EQ(call("t.raw", raw), AIRLOCK_STATUS_OK);
  EXPECT_THAT(raw.texts, ElementsAre(R"(0 {"roots":[]})"));
}

TEST_F(SdkInput, RawAskInputReturnsThePendingStatus) {
  load(kHost15);
  airlock_call c;
  EXPECT_EQ(call("t.raw", c), AIRLOCK_STATUS_OK);
  EXPECT_THAT(c.texts, ElementsAre(std::to_string(AIRLOCK_STATUS_INPUT_REQUIRED) + " "));
}

TEST_F(SdkInput, PromptAsksWithItsKeyAndSeesTheClientCapabilities) {
  load(kHost15);
  const std::string caps = R"({"elicitation":{}})";
  const airlock_request_context context{sizeof(airlock_request_context), str("2026-07-28"), str(""), str(""),
                                        str("1"), str(caps)};
  airlock_prompt_writer pending;
  EXPECT_EQ(get("p.ask", pending, &context), AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_THAT(pending.messages, IsEmpty());
  EXPECT_THAT(g_asked, ElementsAre(HasSubstr("prompt ctx elicitation/create")));

  g_answers["ctx"] = {AIRLOCK_STATUS_OK, R"({"action":"accept","content":{"name":"notes"}})"};
  airlock_prompt_writer answered;
  EXPECT_EQ(get("p.ask", answered, &context), AIRLOCK_STATUS_OK);
  EXPECT_THAT(answered.messages, ElementsAre(R"(user text:notes with {"elicitation":{}})"));
}

TEST_F(SdkInput, ContextFromAnOlderHostHasNoClientCapabilities) {
  load(kHost15);
  g_answers["ctx"] = {AIRLOCK_STATUS_OK, R"({"action":"accept","content":{"name":"n"}})"};
  const airlock_request_context context{offsetof(airlock_request_context, client_capabilities), str("2025-11-25"),
                                        str("s"), str(""), str("1"), str("{\"sampling\":{}}")};
  airlock_prompt_writer out;
  EXPECT_EQ(get("p.ask", out, &context), AIRLOCK_STATUS_OK);
  EXPECT_THAT(out.messages, ElementsAre("user text:n with {}"));
}

TEST_F(SdkInput, PromptOnAnOlderHostFailsWithoutAsking) {
  load(kHost14);
  airlock_prompt_writer out;
  EXPECT_EQ(get("p.ask", out, nullptr), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_THAT(g_asked, IsEmpty());
  ASSERT_EQ(ctx_.logs.size(), 1u);
  EXPECT_THAT(ctx_.logs[0], HasSubstr("p.ask: elicitation/create: a prompt can ask the client only on a host of ABI "
                                      "1.5 or later"));
}

TEST_F(SdkInput, ReadAsksWithItsKey) {
  load(kHost15);
  airlock_resource_writer pending;
  EXPECT_EQ(read("test://ask", pending), AIRLOCK_STATUS_INPUT_REQUIRED);
  EXPECT_THAT(g_asked, ElementsAre("read roots roots/list {}"));
  g_answers["roots"] = {AIRLOCK_STATUS_OK, R"({"roots":[{"uri":"file:///x"}]})"};
  airlock_resource_writer answered;
  EXPECT_EQ(read("test://ask", answered), AIRLOCK_STATUS_OK);
  EXPECT_THAT(answered.contents, ElementsAre("||text:1 roots"));
}

TEST_F(SdkInput, NotifyListChangedPassesTheListOrSaysUnsupported) {
  load(kHost15);
  ASSERT_TRUE(g_handle.has_value());
  EXPECT_EQ(g_handle->notify_list_changed(sdk::List::tools), AIRLOCK_STATUS_OK);
  EXPECT_EQ(g_handle->notify_list_changed(sdk::List::resources), AIRLOCK_STATUS_OK);
  EXPECT_THAT(g_list_changes, ElementsAre(AIRLOCK_LIST_TOOLS, AIRLOCK_LIST_RESOURCES));

  const sdk::Host old(kHost14, &ctx_);
  EXPECT_EQ(old.notify_list_changed(sdk::List::prompts), AIRLOCK_STATUS_UNSUPPORTED);
  EXPECT_EQ(g_list_changes.size(), 2u);
}

TEST_F(SdkInput, TaskFlagsReachTheHostAsWritten) {
  load(kHost15);
  EXPECT_EQ(ctx_.tools.at("t.task").flags, AIRLOCK_TOOL_TASK_OPTIONAL);
  EXPECT_EQ(ctx_.tools.at("t.task-catches").flags, AIRLOCK_TOOL_TASK_REQUIRED);
}

TEST_F(SdkInput, StartTaskOkMeansTheCallRunsAsATask) {
  load(kHost15);
  airlock_call c;
  EXPECT_EQ(call_with_start("t.task", AIRLOCK_STATUS_OK, c), AIRLOCK_STATUS_OK);
  EXPECT_THAT(c.texts, ElementsAre("before", "as a task"));
  EXPECT_EQ(g_start_calls, 1);
}

TEST_F(SdkInput, StartTaskUnsupportedGoesOnSynchronously) {
  load(kHost15);
  airlock_call c;
  EXPECT_EQ(call_with_start("t.task", AIRLOCK_STATUS_UNSUPPORTED, c), AIRLOCK_STATUS_OK);
  EXPECT_THAT(c.texts, ElementsAre("before", "synchronously"));
  EXPECT_EQ(g_start_calls, 1);
  EXPECT_THAT(ctx_.logs, IsEmpty());
}

TEST_F(SdkInput, TaskStartedEndsTheCallWithTaskStartedAndNothingElse) {
  load(kHost15);
  airlock_call c;
  EXPECT_EQ(call_with_start("t.task", AIRLOCK_STATUS_TASK_STARTED, c), AIRLOCK_STATUS_TASK_STARTED);
  EXPECT_THAT(c.texts, ElementsAre("before"));  // what came before start_task; the host drops it
  EXPECT_EQ(c.error, "");
  EXPECT_THAT(ctx_.logs, IsEmpty());
}

TEST_F(SdkInput, CatchingStdExceptionDoesNotSwallowAStartedTask) {
  load(kHost15);
  airlock_call c;
  EXPECT_EQ(call_with_start("t.task-catches", AIRLOCK_STATUS_TASK_STARTED, c), AIRLOCK_STATUS_TASK_STARTED);
  EXPECT_THAT(c.texts, IsEmpty());
  EXPECT_EQ(c.error, "");
}

TEST_F(SdkInput, AnyOtherStartTaskStatusIsAStatusErrorNamingIt) {
  load(kHost15);
  airlock_call internal;
  EXPECT_EQ(call_with_start("t.task", AIRLOCK_STATUS_INTERNAL, internal), AIRLOCK_STATUS_INTERNAL);
  ASSERT_EQ(ctx_.logs.size(), 1u);
  EXPECT_EQ(ctx_.logs[0], "t.task: call_start_task failed with status 6");
  // A tool's catch of std::exception sees it, as any StatusError.
  airlock_call caught;
  EXPECT_EQ(call_with_start("t.task-catches", AIRLOCK_STATUS_INVALID_ARGUMENT, caught), AIRLOCK_STATUS_OK);
  EXPECT_THAT(caught.texts, ElementsAre("caught call_start_task failed with status 4"));
}

TEST_F(SdkInput, OlderHostsNeverStartATask) {
  for (const airlock_host_api* host : {&kHost14, &kHost15WithoutTasks}) {
    SCOPED_TRACE(host->struct_size);
    airlock_plugin_ctx ctx;
    ASSERT_EQ(airlock_plugin_init(host, &ctx), AIRLOCK_STATUS_OK) << ctx.init_error;
    // Even a host that would start one: the member lies past its table.
    g_start_status = AIRLOCK_STATUS_TASK_STARTED;
    const airlock_tool_def& def = ctx.tools.at("t.task");
    airlock_call c;
    EXPECT_EQ(def.on_call(def.tool_data, &c, str("{}")), AIRLOCK_STATUS_OK);
    EXPECT_THAT(c.texts, ElementsAre("before", "synchronously"));
    EXPECT_EQ(g_start_calls, 0);
    ctx.info.on_destroy(ctx.info.plugin_data);
  }
}

TEST_F(SdkInput, HostWithAnEmptyStartTaskNeverStartsATask) {
  load(kHost15NullStartTask);
  airlock_call c;
  EXPECT_EQ(call("t.task", c), AIRLOCK_STATUS_OK);
  EXPECT_THAT(c.texts, ElementsAre("before", "synchronously"));
}

TEST_F(SdkInput, TaskStartedOutsideAToolIsAnInternalFailure) {
  load(kHost15);
  airlock_resource_writer out;
  EXPECT_EQ(read("test://task", out), AIRLOCK_STATUS_INTERNAL);
  ASSERT_EQ(ctx_.logs.size(), 1u);
  EXPECT_THAT(ctx_.logs[0], HasSubstr("test://task: the call became a durable task"));
  EXPECT_EQ(sdk::barrier([]() -> airlock_status { throw sdk::TaskStarted{}; },
                         [](sdk::Caught c) noexcept {
                           return c.kind == sdk::Caught::Kind::task_started ? c.status : AIRLOCK_STATUS_INTERNAL;
                         }),
            AIRLOCK_STATUS_TASK_STARTED);
}

}  // namespace
