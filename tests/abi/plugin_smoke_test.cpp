// plugin_smoke_test.cpp — dlopens the built plugins, examples and fixtures
// against a fake host and drives each hook once: the plugin side of the ABI,
// checked without the real airlock host.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include <dlfcn.h>

#include <string>
#include <string_view>
#include <vector>

#include "canary.h"
#include "fake_host.hpp"

using airlock::test::kFakeHost;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

airlock_str str(std::string_view s) { return airlock_str{s.data(), s.size()}; }

// One plugin file, loaded RTLD_LOCAL like the host does, initialised against
// the fake host, and destroyed then unloaded at scope exit.
class Plugin {
 public:
  explicit Plugin(const char* path, bool init = true) {
    handle_ = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      error_ = dlerror();
      return;
    }
    if (init) {
      auto* entry = reinterpret_cast<decltype(&airlock_plugin_init)>(dlsym(handle_, "airlock_plugin_init"));
      status_ = entry ? entry(&kFakeHost, &ctx_) : AIRLOCK_STATUS_UNSUPPORTED;
    }
  }
  ~Plugin() {
    if (ctx_.named && ctx_.info.on_destroy) ctx_.info.on_destroy(ctx_.info.plugin_data);
    if (handle_) dlclose(handle_);
  }
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }
  airlock_status status() const { return status_; }
  airlock_plugin_ctx& ctx() { return ctx_; }
  std::string name() const { return airlock::test::text_of(ctx_.info.name); }

  std::uint32_t abi_version() {
    auto* entry = reinterpret_cast<decltype(&airlock_plugin_abi_version)>(dlsym(handle_, "airlock_plugin_abi_version"));
    return entry ? entry() : 0;
  }
  airlock_status call(const std::string& tool, airlock_call& call, std::string_view args = "{}") {
    const airlock_tool_def& def = ctx_.tools.at(tool);
    return def.on_call(def.tool_data, &call, str(args));
  }
  airlock_status text(const std::string& name, std::string_view input, std::string& output) {
    const airlock_sanitizer_def& def = ctx_.sanitizers.at(name);
    airlock_text_writer out;
    const airlock_status status = def.on_text(def.sanitizer_data, str(input), &out);
    output = out.out;
    return status;
  }
  airlock_status result(const std::string& name, std::string_view result, std::string& output) {
    const airlock_sanitizer_def& def = ctx_.sanitizers.at(name);
    airlock_request_context context{};
    context.struct_size = sizeof context;
    airlock_result_writer out;
    const airlock_status status = def.on_result(def.sanitizer_data, &context, str("t"), str("{}"), str(result), &out);
    output = out.out;
    return status;
  }

 private:
  void* handle_ = nullptr;
  std::string error_;
  airlock_status status_ = AIRLOCK_STATUS_INTERNAL;
  airlock_plugin_ctx ctx_;
};

TEST(IdentityPlugin, ReturnsEveryTextUnchanged) {
  Plugin plugin(AIRLOCK_IDENTITY_SO);
  ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK) << plugin.error();
  EXPECT_EQ(plugin.name(), "airlock-identity");
  std::string out;
  EXPECT_EQ(plugin.text("airlock.identity", "\x1B[31mx", out), AIRLOCK_STATUS_UNCHANGED);
}

TEST(StripControlPlugin, WritesStrippedTextAndReportsCleanTextUnchanged) {
  Plugin plugin(AIRLOCK_STRIP_CONTROL_SO);
  ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK) << plugin.error();
  EXPECT_EQ(plugin.name(), "airlock-strip-control");
  std::string out;
  EXPECT_EQ(plugin.text("airlock.strip-control", "\x1B[31mred\x1B[0m\r\n", out), AIRLOCK_STATUS_OK);
  EXPECT_EQ(out, "red\n");
  EXPECT_EQ(plugin.text("airlock.strip-control", "plain\ttext\n", out), AIRLOCK_STATUS_UNCHANGED);
}

#ifdef EXAMPLE_ECHO_SO
TEST(EchoExample, ReturnsItsTextAsTextContent) {
  Plugin plugin(EXAMPLE_ECHO_SO);
  ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK) << plugin.error();
  EXPECT_EQ(plugin.name(), "example-echo");
  EXPECT_EQ(plugin.ctx().tools.at("example.echo").flags, AIRLOCK_TOOL_REENTRANT);
  airlock_call call;
  EXPECT_EQ(plugin.call("example.echo", call, R"({"text":"hi there"})"), AIRLOCK_STATUS_OK);
  EXPECT_EQ(call.texts, std::vector<std::string>{"hi there"});
  EXPECT_TRUE(call.structured.empty());
}
#endif

#ifdef EXAMPLE_HELLO_C_SO
TEST(HelloCExample, ReturnsTextAndTheArgumentsLength) {
  Plugin plugin(EXAMPLE_HELLO_C_SO);
  ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK) << plugin.error();
  EXPECT_EQ(plugin.name(), "example-hello-c");
  airlock_call call;
  EXPECT_EQ(plugin.call("example.hello-c", call, R"({"name":"x"})"), AIRLOCK_STATUS_OK);
  EXPECT_EQ(call.texts, std::vector<std::string>{"hello from a C11 plugin"});
  EXPECT_EQ(call.structured, R"({"argumentsBytes":12})");
}
#endif

#ifdef EXAMPLE_CONFORMANCE_PACK_SO
TEST(ConformancePackExample, RegistersEveryFixtureOfTheSuite) {
  Plugin plugin(EXAMPLE_CONFORMANCE_PACK_SO);
  ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK) << plugin.error();
  EXPECT_EQ(plugin.name(), "conformance-pack");
  EXPECT_EQ(plugin.ctx().tools.size(), 35u);
  // The fixtures of the 2026-07-28 scenarios (conformance 0.2).
  EXPECT_TRUE(plugin.ctx().tools.contains("test_input_required_result_multi_round"));
  EXPECT_TRUE(plugin.ctx().tools.contains("test_x_mcp_header"));
  for (const char* tool : {"test_simple_text", "test_tool_with_progress", "test_reconnection", "test_sampling",
                           "test_elicitation_sep1330_enums", "json_schema_2020_12_tool"})
    EXPECT_TRUE(plugin.ctx().tools.contains(tool)) << tool;
  EXPECT_EQ(plugin.ctx().resources.size(), 3u);
  EXPECT_EQ(plugin.ctx().templates.size(), 1u);
  EXPECT_EQ(plugin.ctx().prompts.size(), 5u);
  EXPECT_NE(plugin.ctx().prompts.at("test_prompt_with_arguments").on_complete, nullptr);

  // The binary resource hands the host the PNG's bytes, to base64-encode.
  const airlock_resource_def& binary = plugin.ctx().resources.at("test://static-binary");
  airlock_resource_writer out;
  ASSERT_EQ(binary.on_read(binary.resource_data, nullptr, str("test://static-binary"), str("{}"), &out),
            AIRLOCK_STATUS_OK);
  ASSERT_EQ(out.contents.size(), 1u);
  EXPECT_THAT(out.contents[0], ::testing::StartsWith("||blob:\x89PNG"));
  EXPECT_EQ(out.contents[0].size(), std::string("||blob:").size() + 70);

  const airlock_resource_template_def& t = plugin.ctx().templates.at("test://template/{id}/data");
  airlock_resource_writer item;
  ASSERT_EQ(t.on_read(t.template_data, nullptr, str("test://template/123/data"), str(R"({"id":"123"})"), &item),
            AIRLOCK_STATUS_OK);
  EXPECT_EQ(item.contents, std::vector<std::string>{
                               R"(||text:{"id":"123","templateTest":true,"data":"Data for ID: 123"})"});
}

// The tasks-* fixtures (conformance 0.2) declare their task support, and
// answer synchronously where no task can be had (the fake host offers no
// call_start_task, as a host without a task store).
TEST(ConformancePackExample, TaskFixturesDeclareTaskSupportAndRunWithoutATask) {
  Plugin plugin(EXAMPLE_CONFORMANCE_PACK_SO);
  ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK) << plugin.error();
  const auto task_bits = [&](const char* tool) {
    return plugin.ctx().tools.at(tool).flags & (AIRLOCK_TOOL_TASK_OPTIONAL | AIRLOCK_TOOL_TASK_REQUIRED);
  };
  EXPECT_EQ(task_bits("greet"), 0u);
  for (const char* tool : {"slow_compute", "protocol_error_job", "confirm_delete", "multi_input"})
    EXPECT_EQ(task_bits(tool), AIRLOCK_TOOL_TASK_OPTIONAL) << tool;
  for (const char* tool : {"failing_job", "test_tool_with_task"})
    EXPECT_EQ(task_bits(tool), AIRLOCK_TOOL_TASK_REQUIRED) << tool;
  EXPECT_NE(plugin.ctx().tools.at("slow_compute").flags & AIRLOCK_TOOL_CANCELLABLE, 0u);

  airlock_call greet;
  EXPECT_EQ(plugin.call("greet", greet, R"({"name":"World"})"), AIRLOCK_STATUS_OK);
  EXPECT_EQ(greet.texts, std::vector<std::string>{"Hello, World!"});

  airlock_call quick;
  EXPECT_EQ(plugin.call("slow_compute", quick, R"({"seconds":0.05,"label":"quick"})"), AIRLOCK_STATUS_OK);
  EXPECT_EQ(quick.texts, std::vector<std::string>{"quick: computed in 0.05 s"});
  airlock_call negative;
  EXPECT_EQ(plugin.call("slow_compute", negative, R"({"seconds":-1})"), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_EQ(negative.error, "argument 'seconds' must be a number from 0 to 600");
  airlock_call cancelled;
  cancelled.cancelled = true;
  EXPECT_EQ(plugin.call("slow_compute", cancelled, R"({"seconds":60,"label":"c"})"), AIRLOCK_STATUS_CANCELLED);

  airlock_call failing;
  EXPECT_EQ(plugin.call("failing_job", failing), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_THAT(failing.error, HasSubstr("failing_job: the job failed"));
  airlock_call protocol;
  EXPECT_EQ(plugin.call("protocol_error_job", protocol), AIRLOCK_STATUS_INTERNAL);
  EXPECT_TRUE(protocol.texts.empty());

  airlock_call confirmed;
  confirmed.client_reply = R"({"action":"accept","content":{"confirm":true}})";
  EXPECT_EQ(plugin.call("confirm_delete", confirmed, R"({"filename":"a.txt"})"), AIRLOCK_STATUS_OK);
  EXPECT_EQ(confirmed.texts, std::vector<std::string>{"Deleted a.txt"});
  ASSERT_EQ(confirmed.client_requests.size(), 1u);
  EXPECT_EQ(boost::json::parse(confirmed.client_requests[0].second),
            boost::json::parse(R"({"message":"Delete a.txt?","requestedSchema":{"type":"object",)"
                               R"("properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}})"));
  airlock_call declined;
  declined.client_reply = R"({"action":"decline"})";
  EXPECT_EQ(plugin.call("confirm_delete", declined, R"({"filename":"a.txt"})"), AIRLOCK_STATUS_OK);
  EXPECT_EQ(declined.texts, std::vector<std::string>{"Kept a.txt"});

  airlock_call both;
  both.client_reply = R"({"action":"accept","content":{"name":"Ada"}})";
  EXPECT_EQ(plugin.call("multi_input", both), AIRLOCK_STATUS_OK);
  EXPECT_EQ(both.texts, std::vector<std::string>{"multi_input: first=Ada, second=Ada"});
  EXPECT_EQ(both.client_requests.size(), 2u);

  airlock_call named;
  named.client_reply = R"({"action":"accept","content":{"name":"Alice"}})";
  EXPECT_EQ(plugin.call("test_tool_with_task", named), AIRLOCK_STATUS_OK);
  EXPECT_EQ(named.texts, std::vector<std::string>{"Hello, Alice!"});
}
#endif

TEST(CanaryFixture, ToolsPlantTheCanary) {
  Plugin plugin(FIXTURE_CANARY_SO);
  ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK) << plugin.error();
  EXPECT_EQ(plugin.name(), "canary");
  airlock_call echo;
  EXPECT_EQ(plugin.call("canary.echo", echo, R"({"text":"hi"})"), AIRLOCK_STATUS_OK);
  EXPECT_EQ(echo.texts, std::vector<std::string>{"hi " AIRLOCK_CANARY});
  airlock_call throws;
  EXPECT_EQ(plugin.call("canary.throws", throws), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_EQ(throws.error, "boom " AIRLOCK_CANARY);
  airlock_call structured;
  EXPECT_EQ(plugin.call("canary.structured", structured), AIRLOCK_STATUS_OK);
  EXPECT_EQ(boost::json::parse(structured.structured), boost::json::parse(R"({"secret":")" AIRLOCK_CANARY R"(","n":1})"));
}

TEST(CanaryFixture, SlowToolSleepsOrStopsOnCancellation) {
  Plugin plugin(FIXTURE_CANARY_SO);
  ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK) << plugin.error();
  EXPECT_EQ(plugin.ctx().tools.at("canary.slow").flags, AIRLOCK_TOOL_CANCELLABLE | AIRLOCK_TOOL_REENTRANT);
  airlock_call slept;
  EXPECT_EQ(plugin.call("canary.slow", slept, R"({"ms":20})"), AIRLOCK_STATUS_OK);
  EXPECT_EQ(slept.texts, std::vector<std::string>{"slept 20"});
  airlock_call cancelled;
  cancelled.cancelled = true;
  EXPECT_EQ(plugin.call("canary.slow", cancelled, R"({"ms":100000})"), AIRLOCK_STATUS_CANCELLED);
}

TEST(CanaryFixture, SanitizersFailRedactAndNeverLogTheCanary) {
  Plugin plugin(FIXTURE_CANARY_SO);
  ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK) << plugin.error();
  std::string out;
  EXPECT_EQ(plugin.text("canary.fail", "x", out), AIRLOCK_STATUS_INTERNAL);
  EXPECT_EQ(plugin.text("canary.throwing", "x", out), AIRLOCK_STATUS_INTERNAL);
  EXPECT_EQ(plugin.text("canary.redact", "a " AIRLOCK_CANARY " b " AIRLOCK_CANARY, out), AIRLOCK_STATUS_OK);
  EXPECT_EQ(out, "a [redacted] b [redacted]");
  EXPECT_EQ(plugin.text("canary.redact", "clean", out), AIRLOCK_STATUS_UNCHANGED);
  EXPECT_EQ(plugin.result("canary.bad-output", R"({"content":[]})", out), AIRLOCK_STATUS_OK);
  EXPECT_EQ(out, "not json " AIRLOCK_CANARY);
  for (const std::string& line : plugin.ctx().logs) EXPECT_THAT(line, Not(HasSubstr(AIRLOCK_CANARY)));
}

TEST(FrozenAbiFixture, LoadsAndAnswers) {
  Plugin plugin(FIXTURE_FROZEN_ABI_1_0_SO);
  ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK) << plugin.error();
  EXPECT_EQ(plugin.abi_version(), 0x00010000u);
  airlock_call call;
  EXPECT_EQ(plugin.call("frozen.echo", call), AIRLOCK_STATUS_OK);
  EXPECT_EQ(call.texts, std::vector<std::string>{"frozen abi 1.0"});
  std::string out;
  EXPECT_EQ(plugin.text("frozen.keep", "x", out), AIRLOCK_STATUS_UNCHANGED);
}

TEST(FailureFixtures, InitFailsWithItsReason) {
  Plugin plugin(AIRLOCK_FIXTURE_DIR "/init_fails/init_fails.so");
  EXPECT_EQ(plugin.status(), AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(plugin.ctx().init_error, "missing setting 'api_key' in [plugin.\"init-fails\"]");
}

TEST(FailureFixtures, TooNewAbisAreReportedWithoutRunningInit) {
  Plugin major(AIRLOCK_FIXTURE_DIR "/abi_major_too_new/abi_major_too_new.so", false);
  EXPECT_EQ(major.abi_version(), 0x00020000u);
  Plugin minor(AIRLOCK_FIXTURE_DIR "/abi_minor_too_new/abi_minor_too_new.so", false);
  EXPECT_EQ(minor.abi_version(), 0x00010063u);
}

TEST(FailureFixtures, EachMissesTheEntryPointItIsNamedFor) {
  Plugin no_version(AIRLOCK_FIXTURE_DIR "/no_abi_version/no_abi_version.so", false);
  ASSERT_TRUE(no_version.loaded()) << no_version.error();
  EXPECT_EQ(no_version.abi_version(), 0u);
  Plugin no_init(AIRLOCK_FIXTURE_DIR "/no_init/no_init.so");
  ASSERT_TRUE(no_init.loaded()) << no_init.error();
  EXPECT_EQ(no_init.status(), AIRLOCK_STATUS_UNSUPPORTED);
}

TEST(FailureFixtures, DuplicateToolsAndInvalidSchemaRegisterAsNamed) {
  Plugin a(AIRLOCK_FIXTURE_DIR "/duplicate_tool_a/duplicate_tool_a.so");
  Plugin b(AIRLOCK_FIXTURE_DIR "/duplicate_tool_b/duplicate_tool_b.so");
  EXPECT_EQ(a.name(), "dup-a");
  EXPECT_EQ(b.name(), "dup-b");
  EXPECT_EQ(a.ctx().tools.count("dup.tool"), 1u);
  EXPECT_EQ(b.ctx().tools.count("dup.tool"), 1u);
  Plugin bad(AIRLOCK_FIXTURE_DIR "/invalid_schema/invalid_schema.so");
  EXPECT_EQ(airlock::test::text_of(bad.ctx().tools.at("bad.schema").input_schema), "{not json");
}

TEST(FailureFixtures, DlopenRefusesTheFilesThatAreNoPluginForThisMachine) {
  Plugin text(AIRLOCK_FIXTURE_DIR "/not_a_shared_object/not_a_shared_object.so");
  EXPECT_FALSE(text.loaded());
  Plugin arm(AIRLOCK_FIXTURE_DIR "/wrong_architecture/wrong_architecture.so");
  EXPECT_FALSE(arm.loaded());
}

}  // namespace
