// A failing sanitizer fails the call closed: no byte of the result leaves the
// server, not to the client and not to the log. Working chains apply every
// step in the order written.
#include "integration.hpp"

namespace airlock::test {
namespace {

using testing::HasSubstr;
using testing::Not;
namespace json = boost::json;

// Binds every canary tool to a chain of `steps` (TOML array body).
std::string canary_chain_config(std::string_view steps) {
  return standard_config("[chains.under-test]\nsteps = [" + std::string(steps) +
                         "]\n\n[tools.\"canary.*\"]\nchain = \"under-test\"\n");
}

struct FailingCase {
  const char* sanitizer;
  const char* tool;
};

std::string case_name(const testing::TestParamInfo<FailingCase>& info) {
  std::string name = std::string(info.param.sanitizer) + "_" + info.param.tool;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class FailClosed : public testing::TestWithParam<FailingCase> {};

TEST_P(FailClosed, WithholdsEveryByteOfTheResult) {
  const FailingCase& c = GetParam();
  TempConfig config(canary_chain_config(toml_string(c.sanitizer)));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  const Message m = client->call_tool(c.tool, json::object{{"text", "hello"}});
  EXPECT_FALSE(is_error(m)) << "a failed chain is a tool error, not a JSON-RPC error: " << m.line;
  EXPECT_TRUE(is_tool_error(m)) << m.line;
  EXPECT_THAT(m.line, Not(HasSubstr(kCanaryCore)));

  // Only the whole log, read after exit, proves nothing leaked to it.
  EXPECT_EQ(0, client->finish(3s));
  const std::string log = client->stderr_text();
  EXPECT_THAT(log, Not(HasSubstr(kCanaryCore)));
  EXPECT_THAT(log, HasSubstr(c.sanitizer)) << "the log must name the failing sanitizer";
  for (const std::string& line : client->lines()) EXPECT_THAT(line, Not(HasSubstr(kCanaryCore)));
}

INSTANTIATE_TEST_SUITE_P(
    CanarySanitizers, FailClosed,
    testing::Values(FailingCase{"canary.fail", "canary.echo"},
                    FailingCase{"canary.fail", "canary.structured"},
                    FailingCase{"canary.fail", "canary.throws"},
                    FailingCase{"canary.throwing", "canary.echo"},
                    FailingCase{"canary.throwing", "canary.structured"},
                    FailingCase{"canary.throwing", "canary.throws"},
                    FailingCase{"canary.bad-output", "canary.echo"},
                    FailingCase{"canary.bad-output", "canary.structured"},
                    FailingCase{"canary.bad-output", "canary.throws"}),
    case_name);

TEST(FailClosedChain, FailsClosedWhenALaterStepFails) {
  // The first step succeeds and changes the text; the failure after it must
  // still withhold everything.
  TempConfig config(canary_chain_config(R"("airlock.strip-control", "canary.fail")"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call_tool("canary.echo", json::object{{"text", "a\x07" "b"}});
  EXPECT_TRUE(is_tool_error(m)) << m.line;
  EXPECT_THAT(m.line, Not(HasSubstr(kCanaryCore)));
  EXPECT_THAT(m.line, Not(HasSubstr("ab")));
  EXPECT_EQ(0, client->finish(3s));
  EXPECT_THAT(client->stderr_text(), Not(HasSubstr(kCanaryCore)));
}

TEST(FailClosedChain, ServesOtherToolsAfterAFailedChain) {
  TempConfig config(canary_chain_config(R"("canary.fail")"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  EXPECT_TRUE(is_tool_error(client->call_tool("canary.echo", json::object{{"text", "x"}})));
  const Message echo = client->call_tool("example.echo", json::object{{"text", "still here"}});
  EXPECT_EQ("still here", first_text(echo)) << echo.line;
}

TEST(Redaction, ReplacesTheCanaryInText) {
  TempConfig config(canary_chain_config(R"("canary.redact")"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call_tool("canary.echo", json::object{{"text", "hello"}});
  EXPECT_FALSE(is_tool_error(m)) << m.line;
  EXPECT_THAT(first_text(m), HasSubstr("hello"));
  EXPECT_THAT(first_text(m), HasSubstr("[redacted]"));
  EXPECT_THAT(m.line, Not(HasSubstr(kCanaryCore)));
}

TEST(Redaction, ReplacesTheCanaryInsideStructuredContent) {
  TempConfig config(canary_chain_config(R"("canary.redact")"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call_tool("canary.structured", json::object{});
  EXPECT_FALSE(is_tool_error(m)) << m.line;
  EXPECT_EQ("[redacted]", string_at(m, "/result/structuredContent/secret")) << m.line;
  EXPECT_EQ(1, int_at(m, "/result/structuredContent/n")) << m.line;
  EXPECT_THAT(m.line, Not(HasSubstr(kCanaryCore)));
}

TEST(ChainOrder, AppliesBothStepsOfATwoStepChain) {
  TempConfig config(canary_chain_config(R"("canary.redact", "airlock.strip-control")"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call_tool("canary.echo", json::object{{"text", "\x1b[1mbold\x1b[0m"}});
  EXPECT_EQ("bold [redacted]", first_text(m)) << m.line;
}

TEST(ChainOrder, AppliesStepsInTheOrderWritten) {
  // A BEL inside the canary hides it from canary.redact until
  // strip-control has removed the BEL, so only one order redacts it.
  const std::string hidden = "CANARY-7f\x07" "3a9c";
  {
    TempConfig config(canary_chain_config(R"("airlock.strip-control", "canary.redact")"));
    std::unique_ptr<McpStdioClient> client = start_initialized(config);
    const Message m = client->call_tool("canary.echo", json::object{{"text", hidden}});
    EXPECT_THAT(m.line, Not(HasSubstr(kCanaryCore))) << "strip first, then redact";
    EXPECT_THAT(first_text(m), HasSubstr("[redacted]"));
  }
  {
    TempConfig config(canary_chain_config(R"("canary.redact", "airlock.strip-control")"));
    std::unique_ptr<McpStdioClient> client = start_initialized(config);
    const Message m = client->call_tool("canary.echo", json::object{{"text", hidden}});
    EXPECT_THAT(first_text(m), HasSubstr(std::string(kCanary) + " [redacted]"))
        << "redact first sees no canary in the argument; strip then reveals it";
  }
}

TEST(ChainOrder, AppliesEveryStepOfAFourStepChain) {
  TempConfig config(canary_chain_config(
      R"("airlock.identity", "canary.redact", "airlock.identity", "airlock.strip-control")"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message m = client->call_tool("canary.echo", json::object{{"text", "x\x01y"}});
  EXPECT_EQ("xy [redacted]", first_text(m)) << m.line;
}

TEST(ChainBinding, OptsOutOfTheDefaultChainWithNone) {
  TempConfig config(standard_config(
      "[chains.default]\nsteps = [\"canary.fail\"]\n\n"
      "[tools.\"example.echo\"]\nchain = \"none\"\n"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message echo = client->call_tool("example.echo", json::object{{"text", "a\x07" "b"}});
  EXPECT_EQ("a\x07" "b", first_text(echo)) << echo.line;
  EXPECT_TRUE(is_tool_error(client->call_tool("canary.echo", json::object{{"text", "x"}})))
      << "canary.echo has no binding, so the default chain applies";
}

TEST(ChainBinding, UsesTheFirstMatchingBindingInFileOrder) {
  TempConfig config(standard_config(
      "[chains.redact]\nsteps = [\"canary.redact\"]\n"
      "[chains.failing]\nsteps = [\"canary.fail\"]\n\n"
      "[tools.\"canary.echo\"]\nchain = \"redact\"\n"
      "[tools.\"canary.*\"]\nchain = \"failing\"\n"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  const Message echo = client->call_tool("canary.echo", json::object{{"text", "x"}});
  EXPECT_EQ("x [redacted]", first_text(echo)) << echo.line;
  EXPECT_TRUE(is_tool_error(client->call_tool("canary.structured", json::object{})));
}

}  // namespace
}  // namespace airlock::test
