// CallCost: when a tool's calls count as cheap enough to run on the thread
// that read them (executor/call_cost.hpp).
#include "executor/call_cost.hpp"

#include <gtest/gtest.h>

namespace airlock::host {
namespace {

using namespace std::chrono_literals;

TEST(CallCost, AToolIsNotCheapBeforeItsWarmUp) {
  CallCost cost;
  for (std::uint32_t i = 1; i < CallCost::kWarmUp; ++i) {
    cost.observe(1us);
    EXPECT_FALSE(cost.quick()) << "after " << i << " calls";
  }
  cost.observe(1us);
  EXPECT_TRUE(cost.quick());
}

TEST(CallCost, OneSlowCallMakesTheToolExpensiveAtOnce) {
  CallCost cost;
  for (std::uint32_t i = 0; i < CallCost::kWarmUp; ++i) cost.observe(5us);
  ASSERT_TRUE(cost.quick());
  cost.observe(CallCost::kQuick + 1us);
  EXPECT_FALSE(cost.quick());
}

TEST(CallCost, ASlowToolBecomesCheapAgainOnlyAfterManyCheapCalls) {
  CallCost cost;
  for (std::uint32_t i = 0; i < CallCost::kWarmUp; ++i) cost.observe(1us);
  cost.observe(2ms);
  int cheap_calls = 0;
  while (!cost.quick() && cheap_calls < 1000) {
    cost.observe(0us);
    ++cheap_calls;
  }
  EXPECT_TRUE(cost.quick());
  // 2 ms decays by 1/8 per call to under 200 us: about 18 calls, not one.
  EXPECT_GT(cheap_calls, 10);
  EXPECT_LT(cheap_calls, 40);
}

TEST(CallCost, CallsJustUnderTheLimitStayCheap) {
  CallCost cost;
  for (int i = 0; i < 100; ++i) cost.observe(CallCost::kQuick);
  EXPECT_TRUE(cost.quick());
}

TEST(CallCost, ACopyKeepsWhatTheOriginalLearned) {
  CallCost cost;
  for (std::uint32_t i = 0; i < CallCost::kWarmUp; ++i) cost.observe(1us);
  const CallCost copy(cost);
  EXPECT_TRUE(copy.quick());
}

}  // namespace
}  // namespace airlock::host
