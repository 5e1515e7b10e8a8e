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
  EXPECT_EQ(plugin.ctx().tools.size(), 11u);
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
