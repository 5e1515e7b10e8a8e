// sdk_barrier_test.cpp — airlock.hpp against a fake host: results reach the
// right host function, and nothing thrown in plugin code crosses the C ABI.
#include <airlock/airlock.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_host.hpp"

#include <cctype>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using airlock::test::kFakeHost;
using airlock::test::kFakeHostAbi10;
using airlock::test::kFakeHostAbi11;
using ::testing::HasSubstr;
using ::testing::Not;

AIRLOCK_PLUGIN(plugin) {
  plugin.info("sdk-test", "1.0.0");
  if (plugin.config().contains("fail"))
    throw airlock::sdk::StatusError(AIRLOCK_STATUS_INVALID_ARGUMENT, "config says fail");
  using airlock::sdk::Call;
  using boost::json::object;
  plugin.tool({.name = "t.text"}, [](const object& args, Call&) {
    return airlock::sdk::Text{std::string(airlock::sdk::string_arg(args, "text"))};
  });
  plugin.tool({.name = "t.structured"}, [](const object&, Call&) { return object{{"n", 1}}; });
  plugin.tool({.name = "t.value"}, [](const object&, Call&) { return boost::json::value("as text"); });
  plugin.tool({.name = "t.void"}, [](const object&, Call& call) {
    call.add_text("one");
    call.add_text("two");
  });
  plugin.tool({.name = "t.throws-std"}, [](const object&, Call&) -> object { throw std::runtime_error("std boom"); });
  plugin.tool({.name = "t.throws-int"}, [](const object&, Call&) -> object { throw 42; });
  plugin.tool({.name = "t.cancel"}, [](const object&, Call& call) {
    call.throw_if_cancelled();
    return airlock::sdk::Text{"ran"};
  });
  plugin.tool({.name = "t.status"}, [](const object&, Call&) -> object {
    throw airlock::sdk::StatusError(AIRLOCK_STATUS_ALREADY_SET, "status boom");
  });
  plugin.tool({.name = "t.twice"}, [](const object&, Call& call) {
    call.set_structured(object{});
    call.set_structured(object{});
  });
  plugin.tool({.name = "t.untrusted"}, [](const object& args, Call&) {
    return airlock::sdk::UntrustedText{std::string(airlock::sdk::string_arg(args, "source")), "remote words"};
  });
  plugin.tool({.name = "t.mark"}, [](const object&, Call& call) {
    call.set_structured(object{{"peer", {{"name", "remote"}}}});
    call.mark_untrusted("/peer/name", "peeringdb");
  });
  // ABI 1.2: talking to the client.
  plugin.tool({.name = "t.progress"}, [](const object& args, Call& call) {
    call.progress(0, 100, "start");
    call.progress(50, 100);
    call.progress(args.contains("again") ? 50 : 100, 100, "end");
    return airlock::sdk::Text{"done"};
  });
  plugin.tool({.name = "t.client-log"}, [](const object&, Call& call) {
    call.log(airlock::sdk::LogLevel::warning, "careful", "t");
    call.log(airlock::sdk::LogLevel::debug, "plain");
    return airlock::sdk::Text{"logged"};
  });
  plugin.tool({.name = "t.sample"}, [](const object&, Call& call) {
    const object answer = call.sample(object{{"maxTokens", 1}});
    return airlock::sdk::Text{std::string(answer.at("content").at("text").as_string())};
  });
  plugin.tool({.name = "t.ask"}, [](const object&, Call& call) {
    const airlock::sdk::ClientReply reply = call.ask_client("roots/list");
    return airlock::sdk::Text{std::to_string(reply.status) + " " + reply.text};
  });
  plugin.tool({.name = "t.context"}, [](const object&, Call& call) {
    call.end_stream();
    return object{{"capabilities", call.client_capabilities()}, {"meta", call.request_meta()}};
  });
  plugin.text_sanitizer({.name = "s.upper"}, [](std::string_view text) -> std::optional<std::string> {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
  });
  plugin.text_sanitizer({.name = "s.throws"}, [](std::string_view text) -> std::optional<std::string> {
    throw std::runtime_error("leaked " + std::string(text));
  });
  plugin.text_sanitizer({.name = "s.throws-int"}, [](std::string_view) -> std::optional<std::string> { throw 7; });
  plugin.result_sanitizer({.name = "r.tag"},
                          [](const airlock::sdk::RequestContext& context, std::string_view tool, const object& args,
                             object result) -> std::optional<object> {
                            if (args.contains("keep")) return std::nullopt;
                            result["_meta"] = {{"tool", tool}, {"caller", context.caller}};
                            return result;
                          });
}

namespace {

// Loads the plugin above (or `body`) into a fake context, unloading it after.
class Loaded {
 public:
  explicit Loaded(std::string config = "{}", void (*body)(airlock::sdk::Plugin&) = nullptr,
                  const airlock_host_api& host = kFakeHost) {
    ctx_.config = std::move(config);
    status_ = body ? airlock::sdk::detail::run_init(&host, &ctx_, body) : airlock_plugin_init(&host, &ctx_);
  }
  ~Loaded() {
    if (ctx_.named && ctx_.info.on_destroy) ctx_.info.on_destroy(ctx_.info.plugin_data);
  }
  Loaded(const Loaded&) = delete;
  Loaded& operator=(const Loaded&) = delete;

  airlock_status status() const { return status_; }
  airlock_plugin_ctx& ctx() { return ctx_; }

  airlock_status call(const std::string& tool, airlock_call& call, std::string_view args = "{}") {
    const airlock_tool_def& def = ctx_.tools.at(tool);
    return def.on_call(def.tool_data, &call, airlock::sdk::to_str(args));
  }
  airlock_status text(const std::string& name, std::string_view input, std::string& output) {
    const airlock_sanitizer_def& def = ctx_.sanitizers.at(name);
    airlock_text_writer out;
    const airlock_status status = def.on_text(def.sanitizer_data, airlock::sdk::to_str(input), &out);
    output = out.out;
    return status;
  }

 private:
  airlock_plugin_ctx ctx_;
  airlock_status status_;
};

TEST(SdkPlugin, ReportsAbiVersionOfTheHeader) { EXPECT_EQ(airlock_plugin_abi_version(), AIRLOCK_ABI_VERSION); }

TEST(SdkPlugin, RegistersEveryToolAndSanitizer) {
  Loaded plugin;
  ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK);
  EXPECT_EQ(plugin.ctx().tools.size(), 16u);
  EXPECT_EQ(plugin.ctx().sanitizers.size(), 4u);
  EXPECT_NE(plugin.ctx().info.on_destroy, nullptr);
}

TEST(SdkPlugin, InitErrorFromThrownStatusErrorReachesTheHost) {
  Loaded plugin(R"({"fail":true})");
  EXPECT_EQ(plugin.status(), AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(plugin.ctx().init_error, "config says fail");
}

TEST(SdkPlugin, InitReturnsTheFirstFailedRegistration) {
  Loaded plugin("{}", [](airlock::sdk::Plugin& p) {
    p.info("bad-tools");
    p.tool({.name = "reject.one"}, [](const boost::json::object&, airlock::sdk::Call&) {});
    p.tool({.name = "good.one"}, [](const boost::json::object&, airlock::sdk::Call&) {});
  });
  EXPECT_EQ(plugin.status(), AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(plugin.ctx().tools.count("good.one"), 1u);
}

TEST(SdkPlugin, InitFailsWhenThePluginNeverNamesItself) {
  Loaded plugin("{}", [](airlock::sdk::Plugin&) {});
  EXPECT_EQ(plugin.status(), AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(plugin.ctx().init_error, HasSubstr("never named"));
}

TEST(SdkPlugin, InitMapsNonStandardExceptionToInternal) {
  Loaded plugin("{}", [](airlock::sdk::Plugin& p) {
    p.info("throws-int");
    throw 5;
  });
  EXPECT_EQ(plugin.status(), AIRLOCK_STATUS_INTERNAL);
  EXPECT_EQ(plugin.ctx().init_error, "unknown error");
}

TEST(SdkTool, TextReturnBecomesTextContent) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.text", call, R"({"text":"hi"})"), AIRLOCK_STATUS_OK);
  EXPECT_EQ(call.texts, std::vector<std::string>{"hi"});
  EXPECT_TRUE(call.structured.empty());
}

TEST(SdkTool, ObjectReturnBecomesStructuredContent) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.structured", call), AIRLOCK_STATUS_OK);
  EXPECT_EQ(call.structured, R"({"n":1})");
}

TEST(SdkTool, StringValueReturnBecomesText) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.value", call), AIRLOCK_STATUS_OK);
  EXPECT_EQ(call.texts, std::vector<std::string>{"as text"});
}

TEST(SdkTool, VoidToolReportsThroughTheCall) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.void", call), AIRLOCK_STATUS_OK);
  EXPECT_EQ(call.texts, (std::vector<std::string>{"one", "two"}));
}

TEST(SdkTool, StdExceptionBecomesToolErrorWithItsMessage) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.throws-std", call), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_EQ(call.error, "std boom");
}

TEST(SdkTool, NonStandardExceptionBecomesUnknownError) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.throws-int", call), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_EQ(call.error, "unknown error");
}

TEST(SdkTool, MissingArgumentBecomesToolError) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.text", call, "{}"), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_EQ(call.error, "argument 'text' must be a string");
}

TEST(SdkTool, ArgumentsThatAreNotAnObjectBecomeToolError) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.text", call, "[1]"), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_EQ(call.error, "arguments is not a JSON object");
}

TEST(SdkTool, CancelledCallReturnsCancelled) {
  Loaded plugin;
  airlock_call call;
  call.cancelled = true;
  EXPECT_EQ(plugin.call("t.cancel", call), AIRLOCK_STATUS_CANCELLED);
  EXPECT_TRUE(call.texts.empty());
}

TEST(SdkTool, StatusErrorReturnsItsStatusAndLogs) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.status", call), AIRLOCK_STATUS_ALREADY_SET);
  EXPECT_TRUE(call.error.empty());
  ASSERT_FALSE(plugin.ctx().logs.empty());
  EXPECT_EQ(plugin.ctx().logs.back(), "t.status: status boom");
}

TEST(SdkTool, HostRefusalOfASetterIsAnInternalFailure) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.twice", call), AIRLOCK_STATUS_ALREADY_SET);
}

TEST(SdkTool, UntrustedTextReturnReachesTheHostWithItsSource) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.untrusted", call, R"({"source":"peeringdb"})"), AIRLOCK_STATUS_OK);
  using Pair = std::pair<std::string, std::string>;
  EXPECT_EQ(call.untrusted_texts, std::vector<Pair>{Pair("peeringdb", "remote words")});
  EXPECT_TRUE(call.texts.empty()) << "untrusted text is never also sent as plain text";
}

TEST(SdkTool, MarkUntrustedReachesTheHostWithPointerAndSource) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.mark", call), AIRLOCK_STATUS_OK);
  EXPECT_EQ(call.structured, R"({"peer":{"name":"remote"}})");
  using Pair = std::pair<std::string, std::string>;
  EXPECT_EQ(call.untrusted_marks, std::vector<Pair>{Pair("/peer/name", "peeringdb")});
}

TEST(SdkTool, HostRefusalOfAnUntrustedSourceReturnsItsStatus) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.untrusted", call, R"({"source":""})"), AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(call.untrusted_texts.empty());
}

TEST(SdkTool, UntrustedCallsOnAnAbi10HostAreToolErrorsNamingTheCall) {
  // The 1.0 table ends before the 1.1 members; the SDK must not read past it.
  Loaded plugin("{}", nullptr, kFakeHostAbi10);
  ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK);
  airlock_call text;
  EXPECT_EQ(plugin.call("t.untrusted", text, R"({"source":"peeringdb"})"), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_THAT(text.error, HasSubstr("result_add_untrusted_text"));
  EXPECT_THAT(text.error, HasSubstr("ABI 1.1"));
  EXPECT_TRUE(text.untrusted_texts.empty());
  airlock_call mark;
  EXPECT_EQ(plugin.call("t.mark", mark), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_THAT(mark.error, HasSubstr("result_mark_untrusted"));
  EXPECT_TRUE(mark.untrusted_marks.empty());
}

// --- ABI 1.2

TEST(SdkClient, ProgressReachesTheHostInOrder) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.progress", call), AIRLOCK_STATUS_OK);
  EXPECT_EQ(call.progress, (std::vector<double>{0, 50, 100}));
  EXPECT_EQ(call.progress_messages, (std::vector<std::string>{"start", "", "end"}));
}

TEST(SdkClient, ProgressTheHostRefusesStopsTheToolWithItsStatus) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.progress", call, R"({"again":true})"), AIRLOCK_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(call.texts.empty());
  EXPECT_THAT(plugin.ctx().logs.back(), HasSubstr("call_progress"));
}

TEST(SdkClient, ProgressOnACancelledCallStopsTheToolAsCancelled) {
  Loaded plugin;
  airlock_call call;
  call.cancelled = true;
  EXPECT_EQ(plugin.call("t.progress", call), AIRLOCK_STATUS_CANCELLED);
}

TEST(SdkClient, ClientLogsCarryLevelLoggerAndMessage) {
  Loaded plugin;
  airlock_call call;
  EXPECT_EQ(plugin.call("t.client-log", call), AIRLOCK_STATUS_OK);
  EXPECT_EQ(call.client_logs, (std::vector<std::string>{"3 t: careful", "0 : plain"}));
  EXPECT_TRUE(plugin.ctx().logs.empty()) << "a client log is not an operator log";
}

TEST(SdkClient, SampleSendsTheParamsAndReturnsTheResult) {
  Loaded plugin;
  airlock_call call;
  call.client_reply = R"({"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"})";
  EXPECT_EQ(plugin.call("t.sample", call), AIRLOCK_STATUS_OK);
  using Pair = std::pair<std::string, std::string>;
  EXPECT_EQ(call.client_requests, std::vector<Pair>{Pair("sampling/createMessage", R"({"maxTokens":1})")});
  EXPECT_EQ(call.texts, std::vector<std::string>{"hello"});
}

TEST(SdkClient, SampleWithoutTheCapabilityIsAToolErrorSayingSo) {
  Loaded plugin;
  airlock_call call;
  call.client_status = AIRLOCK_STATUS_UNSUPPORTED;
  EXPECT_EQ(plugin.call("t.sample", call), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_EQ(call.error, "sampling/createMessage: the client does not support it");
}

TEST(SdkClient, SampleTheClientRefusesIsAToolErrorWithTheClientsMessage) {
  Loaded plugin;
  airlock_call call;
  call.client_status = AIRLOCK_STATUS_TOOL_ERROR;
  call.client_reply = R"({"code":-1,"message":"User rejected sampling request"})";
  EXPECT_EQ(plugin.call("t.sample", call), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_EQ(call.error, "sampling/createMessage: the client answered with an error: User rejected sampling request");
}

TEST(SdkClient, SampleThatTimesOutIsAToolErrorAndCancelledStopsTheTool) {
  Loaded plugin;
  airlock_call late;
  late.client_status = AIRLOCK_STATUS_TIMEOUT;
  EXPECT_EQ(plugin.call("t.sample", late), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_THAT(late.error, HasSubstr("did not answer in time"));
  airlock_call cancelled;
  cancelled.client_status = AIRLOCK_STATUS_CANCELLED;
  EXPECT_EQ(plugin.call("t.sample", cancelled), AIRLOCK_STATUS_CANCELLED);
}

TEST(SdkClient, AskClientReturnsTheStatusAndReplyWithoutThrowing) {
  Loaded plugin;
  airlock_call ok;
  ok.client_reply = R"({"roots":[]})";
  EXPECT_EQ(plugin.call("t.ask", ok), AIRLOCK_STATUS_OK);
  EXPECT_EQ(ok.texts, std::vector<std::string>{R"(0 {"roots":[]})"});
  EXPECT_EQ(ok.client_requests.at(0).second, "") << "empty params reach the host as empty (the host reads {})";
  airlock_call unsupported;
  unsupported.client_status = AIRLOCK_STATUS_UNSUPPORTED;
  EXPECT_EQ(plugin.call("t.ask", unsupported), AIRLOCK_STATUS_OK);
  EXPECT_EQ(unsupported.texts, std::vector<std::string>{"7 "});
}

TEST(SdkClient, CapabilitiesMetaAndEndStreamReachTheHost) {
  Loaded plugin;
  airlock_call call;
  call.capabilities = R"({"sampling":{}})";
  call.meta = R"({"progressToken":"p"})";
  EXPECT_EQ(plugin.call("t.context", call), AIRLOCK_STATUS_OK);
  EXPECT_EQ(boost::json::parse(call.structured),
            boost::json::parse(R"({"capabilities":{"sampling":{}},"meta":{"progressToken":"p"}})"));
  EXPECT_TRUE(call.stream_ended);
}

TEST(SdkClient, OnAnAbi11HostTheClientCallsDegradeInsteadOfReadingPastTheTable) {
  // The 1.1 table ends before the 1.2 members (which the fake still fills
  // in, so reading them would show here).
  Loaded plugin("{}", nullptr, kFakeHostAbi11);
  ASSERT_EQ(plugin.status(), AIRLOCK_STATUS_OK);
  airlock_call progress;
  EXPECT_EQ(plugin.call("t.progress", progress, R"({"again":true})"), AIRLOCK_STATUS_OK);
  EXPECT_TRUE(progress.progress.empty());
  airlock_call log;
  EXPECT_EQ(plugin.call("t.client-log", log), AIRLOCK_STATUS_OK);
  EXPECT_TRUE(log.client_logs.empty());
  airlock_call sample;
  EXPECT_EQ(plugin.call("t.sample", sample), AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_EQ(sample.error, "sampling/createMessage: not offered by this host (its function table predates ABI 1.2)");
  EXPECT_TRUE(sample.client_requests.empty());
  airlock_call ask;
  EXPECT_EQ(plugin.call("t.ask", ask), AIRLOCK_STATUS_OK);
  EXPECT_EQ(ask.texts, std::vector<std::string>{"7 "});
  EXPECT_TRUE(ask.client_requests.empty());
  airlock_call context;
  context.capabilities = R"({"sampling":{}})";
  EXPECT_EQ(plugin.call("t.context", context), AIRLOCK_STATUS_OK);
  EXPECT_EQ(boost::json::parse(context.structured), boost::json::parse(R"({"capabilities":{},"meta":{}})"));
  EXPECT_FALSE(context.stream_ended);
}

TEST(SdkTextSanitizer, ChangedTextIsWritten) {
  Loaded plugin;
  std::string out;
  EXPECT_EQ(plugin.text("s.upper", "abc", out), AIRLOCK_STATUS_OK);
  EXPECT_EQ(out, "ABC");
}

TEST(SdkTextSanitizer, SameTextIsUnchanged) {
  Loaded plugin;
  std::string out;
  EXPECT_EQ(plugin.text("s.upper", "ABC", out), AIRLOCK_STATUS_UNCHANGED);
  EXPECT_TRUE(out.empty());
}

TEST(SdkTextSanitizer, ExceptionIsInternalAndItsMessageIsNotLogged) {
  Loaded plugin;
  std::string out;
  EXPECT_EQ(plugin.text("s.throws", "SECRET-1", out), AIRLOCK_STATUS_INTERNAL);
  EXPECT_TRUE(out.empty());
  ASSERT_FALSE(plugin.ctx().logs.empty());
  EXPECT_THAT(plugin.ctx().logs.back(), HasSubstr("s.throws"));
  for (const std::string& line : plugin.ctx().logs) EXPECT_THAT(line, Not(HasSubstr("SECRET-1")));
}

TEST(SdkTextSanitizer, NonStandardExceptionIsInternal) {
  Loaded plugin;
  std::string out;
  EXPECT_EQ(plugin.text("s.throws-int", "x", out), AIRLOCK_STATUS_INTERNAL);
}

TEST(SdkResultSanitizer, ReplacementResultIsWrittenWithContext) {
  Loaded plugin;
  const airlock_sanitizer_def& def = plugin.ctx().sanitizers.at("r.tag");
  airlock_request_context context{};
  context.struct_size = sizeof context;
  context.caller = airlock::sdk::to_str("alice");
  airlock_result_writer out;
  EXPECT_EQ(def.on_result(def.sanitizer_data, &context, airlock::sdk::to_str("t.text"), airlock::sdk::to_str("{}"),
                          airlock::sdk::to_str(R"({"content":[]})"), &out),
            AIRLOCK_STATUS_OK);
  EXPECT_EQ(boost::json::parse(out.out),
            boost::json::parse(R"({"content":[],"_meta":{"tool":"t.text","caller":"alice"}})"));
}

TEST(SdkResultSanitizer, ContextFieldsBeyondStructSizeReadAsEmpty) {
  Loaded plugin;
  const airlock_sanitizer_def& def = plugin.ctx().sanitizers.at("r.tag");
  airlock_request_context context{};
  context.struct_size = offsetof(airlock_request_context, caller);  // an older, shorter host struct
  context.caller = airlock::sdk::to_str("beyond the end");
  airlock_result_writer out;
  EXPECT_EQ(def.on_result(def.sanitizer_data, &context, airlock::sdk::to_str("t"), airlock::sdk::to_str("{}"),
                          airlock::sdk::to_str("{}"), &out),
            AIRLOCK_STATUS_OK);
  EXPECT_EQ(boost::json::parse(out.out).at("_meta").at("caller"), "");
}

TEST(SdkResultSanitizer, NulloptIsUnchangedAndMalformedResultIsInternal) {
  Loaded plugin;
  const airlock_sanitizer_def& def = plugin.ctx().sanitizers.at("r.tag");
  airlock_request_context context{};
  context.struct_size = sizeof context;
  airlock_result_writer out;
  EXPECT_EQ(def.on_result(def.sanitizer_data, &context, airlock::sdk::to_str("t"),
                          airlock::sdk::to_str(R"({"keep":1})"), airlock::sdk::to_str("{}"), &out),
            AIRLOCK_STATUS_UNCHANGED);
  EXPECT_EQ(def.on_result(def.sanitizer_data, &context, airlock::sdk::to_str("t"), airlock::sdk::to_str("{}"),
                          airlock::sdk::to_str("not json"), &out),
            AIRLOCK_STATUS_INTERNAL);
}

}  // namespace
