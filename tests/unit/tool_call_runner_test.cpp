// Tests for the one call runner: a tool it runs keeps the network its egress
// set grants (the runner, not each caller, holds the fetcher), a tool that is
// not reentrant runs one call at a time whoever calls it, and the answer it
// frames is the whole JSON-RPC response, counted once.
#include "calls/tool_call_runner.hpp"

#include "egress/fetcher.hpp"
#include "metrics/metrics.hpp"
#include "origin_server.hpp"
#include "unit_support.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace airlock::host {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
namespace ip = boost::asio::ip;

const std::atomic<bool> kNotCancelled{false};

std::string text_of(const ToolOutput& output) {
  if (output.error_message) return *output.error_message;
  if (output.content.empty()) return {};
  return std::string(output.content.front().as_object().at("text").as_string());
}

class RunnerFetch : public testing::Test {
 protected:
  RunnerFetch()
      : config_(unit::config_with_dirs({unit::fixture_dir("task_fetch")})),
        registry_(unit::load_registry(config_)),
        origin_([](const test::OriginServer::Request&) {
          return test::OriginServer::Response{200, {{"Content-Type", "text/plain"}}, "from the origin", {}};
        }),
        fetcher_(settings(), Resolver({{"origin.test", {ip::make_address("127.0.0.1")}}})) {
    route_.tool = registry_->find_tool("task-fetch.get");
    auto rule = parse_egress_rule("http://origin.test:" + std::to_string(origin_.port()));
    auto loopback = parse_address_range("127.0.0.0/8");
    route_.egress = std::make_shared<const EgressPolicy>(std::vector<EgressRule>{*rule},
                                                         std::vector<AddressRange>{*loopback});
  }

  static FetchSettings settings() {
    FetchSettings settings;
    settings.default_timeout = 5s;  // a broken test fails instead of hanging
    return settings;
  }

  std::string arguments() const {
    return R"({"url":"http://origin.test:)" + std::to_string(origin_.port()) + R"(/data"})";
  }

  Config config_;
  std::unique_ptr<PluginRegistry> registry_;
  test::OriginServer origin_;
  Fetcher fetcher_;
  ToolRoute route_;
};

TEST_F(RunnerFetch, AToolReachesWhatItsEgressSetGrantsThroughTheRunnersFetcher) {
  ASSERT_NE(route_.tool, nullptr);
  const ToolCallRunner runner(fetcher_);
  const ToolCallOutcome outcome = runner.run(route_, arguments(), kNotCancelled, nullptr);
  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_OK) << text_of(outcome.output);
  EXPECT_EQ(text_of(outcome.output), "from the origin");
  ASSERT_EQ(origin_.requests().size(), 1u);
  EXPECT_EQ(origin_.requests().front().target, "/data");
}

TEST_F(RunnerFetch, ARunnerWithoutAFetcherGivesItsToolsNoNetworkAtAll) {
  ASSERT_NE(route_.tool, nullptr);
  const ToolCallOutcome outcome = ToolCallRunner().run(route_, arguments(), kNotCancelled, nullptr);
  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_TOOL_ERROR);
  EXPECT_THAT(text_of(outcome.output), HasSubstr("fetch refused"));
  EXPECT_TRUE(origin_.requests().empty());
}

// A tool of the host's own making (what a plugin registers, minus the .so):
// counts how many of its calls overlap.
struct Overlap {
  std::atomic<int> inside{0};
  std::atomic<int> most{0};
};

airlock_status overlapping_call(void* data, airlock_call*, airlock_str) {
  auto& overlap = *static_cast<Overlap*>(data);
  const int now = ++overlap.inside;
  int most = overlap.most.load();
  while (now > most && !overlap.most.compare_exchange_weak(most, now)) {
  }
  std::this_thread::sleep_for(5ms);
  --overlap.inside;
  return AIRLOCK_STATUS_OK;
}

int most_at_once(std::uint32_t flags) {
  Overlap overlap;
  Tool tool;
  tool.name = "overlap";
  tool.flags = flags;
  tool.tool_data = &overlap;
  tool.on_call = overlapping_call;
  const ToolCallRunner runner;
  std::vector<std::thread> callers;
  for (int i = 0; i < 4; ++i)
    callers.emplace_back([&] {
      for (int n = 0; n < 5; ++n) runner.run(tool, nullptr, "{}", kNotCancelled, nullptr);
    });
  for (auto& caller : callers) caller.join();
  return overlap.most.load();
}

TEST(ToolCallRunner, RunsAToolThatIsNotReentrantOneCallAtATime) { EXPECT_EQ(most_at_once(0), 1); }

TEST(ToolCallRunner, LetsAReentrantToolRunCallsAtOnce) { EXPECT_GT(most_at_once(AIRLOCK_TOOL_REENTRANT), 1); }

TEST(ToolCallRunner, RespondsWithTheWholeJsonRpcResponseAndCountsTheCallOnce) {
  Tool tool;
  tool.name = "echo";
  const ToolRoute route{&tool, nullptr, Mirror::text, std::nullopt};
  Metrics metrics({"echo"}, {});
  RequestContext context;
  context.metrics = &metrics;

  ToolCallOutcome outcome{AIRLOCK_STATUS_OK, {}};
  outcome.output.content.push_back(boost::json::object{{"type", "text"}, {"text", "hi"}});
  const auto answer = boost::json::parse(ToolCallRunner::respond(route, std::move(outcome), context, "{}", 7));
  EXPECT_EQ(answer.at("jsonrpc"), "2.0");
  EXPECT_EQ(answer.at("id"), 7);
  EXPECT_EQ(answer.at("result").at("content").at(0).at("text"), "hi");
  EXPECT_THAT(metrics.render(), HasSubstr("airlock_tool_calls_total{tool=\"echo\"} 1\n"));
  EXPECT_THAT(metrics.render(), HasSubstr("airlock_tool_errors_total{tool=\"echo\"} 0\n"));

  const auto refused = boost::json::parse(ToolCallRunner::respond_invalid_arguments(
      route, "at /count: expected an integer", context, R"({"count":"x"})", "abc"));
  EXPECT_EQ(refused.at("id"), "abc");
  EXPECT_EQ(refused.at("result").at("isError"), true);
  EXPECT_THAT(std::string(refused.at("result").at("content").at(0).at("text").as_string()),
              HasSubstr("at /count: expected an integer"));
  EXPECT_THAT(metrics.render(), HasSubstr("airlock_tool_calls_total{tool=\"echo\"} 2\n"));
  EXPECT_THAT(metrics.render(), HasSubstr("airlock_tool_errors_total{tool=\"echo\"} 1\n"));
}

}  // namespace
}  // namespace airlock::host
