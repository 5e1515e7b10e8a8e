// Tests for what an HTTP request passes before it is served: the bearer
// token (Authenticator, www_authenticate), the rate limit (RateLimiter) and
// the room for a large body (BodyBudget).
#include "transport/http/auth.hpp"
#include "transport/http/body_budget.hpp"
#include "transport/http/rate_limiter.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <latch>
#include <string>
#include <thread>
#include <vector>

namespace airlock::host::http {
namespace {

using namespace std::chrono_literals;
using Verdict = Authenticator::Verdict;

TokenConfig token(std::string identity, std::string_view secret, std::vector<std::string> tools = {}) {
  TokenConfig config;
  config.identity = std::move(identity);
  config.sha256 = sha256(secret);
  config.tools = std::move(tools);
  return config;
}

const std::vector<TokenConfig> kTokens{token("ci", "ci-token-1"), token("ops", "ops-token/2+x==", {"acme.*", "echo"})};

// --- Authenticator

TEST(Authenticator, IsDisabledWithNoTokensAndLetsEveryoneInAsNobody) {
  const Authenticator auth({});
  EXPECT_FALSE(auth.enabled());
  for (const char* header : {"", "Bearer whatever", "Basic abc"}) {
    const auto outcome = auth.authenticate(header);
    EXPECT_EQ(outcome.verdict, Verdict::ok) << header;
    EXPECT_EQ(outcome.identity, nullptr) << header;
  }
}

TEST(Authenticator, KnowsEveryConfiguredIdentityAndItsGlobs) {
  const Authenticator auth(kTokens);
  EXPECT_TRUE(auth.enabled());
  ASSERT_EQ(auth.identities().size(), 2u);
  EXPECT_EQ(auth.identities()[0]->name, "ci");
  EXPECT_TRUE(auth.identities()[0]->tools.everything);
  EXPECT_EQ(auth.identities()[1]->name, "ops");
  EXPECT_EQ(auth.identities()[1]->tools.globs, (std::vector<std::string>{"acme.*", "echo"}));
}

TEST(Authenticator, AcceptsAConfiguredTokenAsItsIdentity) {
  const Authenticator auth(kTokens);
  const auto ci = auth.authenticate("Bearer ci-token-1");
  EXPECT_EQ(ci.verdict, Verdict::ok);
  ASSERT_NE(ci.identity, nullptr);
  EXPECT_EQ(ci.identity->name, "ci");
  EXPECT_EQ(ci.identity, auth.identities()[0]);

  const auto ops = auth.authenticate("Bearer ops-token/2+x==");
  EXPECT_EQ(ops.verdict, Verdict::ok);
  ASSERT_NE(ops.identity, nullptr);
  EXPECT_EQ(ops.identity->name, "ops");
}

TEST(Authenticator, TakesTheSchemeInAnyCaseAndToleratesExtraSpaces) {
  const Authenticator auth(kTokens);
  for (const char* header : {"bearer ci-token-1", "BEARER ci-token-1", "BeArEr ci-token-1",
                             "Bearer   ci-token-1", "Bearer\tci-token-1", " Bearer ci-token-1 "}) {
    const auto outcome = auth.authenticate(header);
    EXPECT_EQ(outcome.verdict, Verdict::ok) << header;
    ASSERT_NE(outcome.identity, nullptr) << header;
    EXPECT_EQ(outcome.identity->name, "ci") << header;
  }
}

TEST(Authenticator, CallsAnAbsentHeaderOrAnotherSchemeMissing) {
  const Authenticator auth(kTokens);
  for (const char* header : {"", "   ", "Basic Y2k6Y2ktdG9rZW4tMQ==", "Bearerci-token-1", "Token ci-token-1",
                             "Bearer-ci-token-1"}) {
    const auto outcome = auth.authenticate(header);
    EXPECT_EQ(outcome.verdict, Verdict::missing) << header;
    EXPECT_EQ(outcome.identity, nullptr) << header;
  }
}

TEST(Authenticator, CallsABearerWithoutAWellFormedTokenMalformed) {
  const Authenticator auth(kTokens);
  for (const std::string& header : {std::string("Bearer"), std::string("Bearer "), std::string("Bearer ci-token-1 x"),
                                   std::string("Bearer ci-token-1,"), std::string("Bearer \"ci-token-1\""),
                                   std::string("Bearer =ci"), std::string("Bearer ci=token"),
                                   "Bearer " + std::string(16 * 1024 + 1, 'a')}) {
    const auto outcome = auth.authenticate(header);
    EXPECT_EQ(outcome.verdict, Verdict::malformed) << header.substr(0, 40);
    EXPECT_EQ(outcome.identity, nullptr);
  }
}

TEST(Authenticator, CallsAWellFormedUnknownTokenInvalid) {
  const Authenticator auth(kTokens);
  for (const char* header : {"Bearer ci-token-2", "Bearer CI-TOKEN-1", "Bearer ci-token-", "Bearer ci-token-11",
                             "Bearer ops-token/2+x="}) {
    const auto outcome = auth.authenticate(header);
    EXPECT_EQ(outcome.verdict, Verdict::invalid) << header;
    EXPECT_EQ(outcome.identity, nullptr) << header;
  }
}

TEST(Authenticator, MatchesTheLastConfiguredTokenAsWellAsTheFirst) {
  std::vector<TokenConfig> many;
  for (int i = 0; i < 50; ++i) many.push_back(token("id" + std::to_string(i), "token-" + std::to_string(i)));
  const Authenticator auth(many);
  for (const int i : {0, 25, 49}) {
    const auto outcome = auth.authenticate("Bearer token-" + std::to_string(i));
    ASSERT_EQ(outcome.verdict, Verdict::ok) << i;
    EXPECT_EQ(outcome.identity->name, "id" + std::to_string(i));
  }
}

TEST(WwwAuthenticate, AddsInvalidTokenOnlyWhenATokenWasPresented) {
  EXPECT_EQ(www_authenticate(Verdict::missing), R"(Bearer realm="airlock")");
  EXPECT_EQ(www_authenticate(Verdict::malformed), R"(Bearer realm="airlock", error="invalid_token")");
  EXPECT_EQ(www_authenticate(Verdict::invalid), R"(Bearer realm="airlock", error="invalid_token")");
}

TEST(Identity, AllowsEveryToolWithoutGlobs) {
  Identity anyone;
  anyone.name = "ci";
  EXPECT_TRUE(anyone.allows_tool("acme.search"));
  EXPECT_TRUE(anyone.allows_tool(""));
}

TEST(Identity, AllowsOnlyToolsMatchingOneOfItsGlobs) {
  const Authenticator auth(kTokens);
  const Identity& ops = *auth.identities()[1];
  EXPECT_TRUE(ops.allows_tool("acme.search"));
  EXPECT_TRUE(ops.allows_tool("acme.web.fetch"));
  EXPECT_TRUE(ops.allows_tool("echo"));
  EXPECT_FALSE(ops.allows_tool("echo2"));
  EXPECT_FALSE(ops.allows_tool("acme"));
  EXPECT_FALSE(ops.allows_tool("other.acme.search"));
}

// --- RateLimiter

const RateLimiter::Clock::time_point kStart = RateLimiter::Clock::time_point() + 1000h;

TEST(RateLimiter, AllowsABurstThenRefusesWithRetryAfter) {
  RateLimiter limiter(1.0, 3);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.admit("ci", kStart).allowed) << i;
  const auto refused = limiter.admit("ci", kStart);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after, 1s);
}

TEST(RateLimiter, RefillsOverInjectedTimeAndNeverBeyondTheBurst) {
  RateLimiter limiter(2.0, 2);  // a token every 500 ms
  EXPECT_TRUE(limiter.admit("ci", kStart).allowed);
  EXPECT_TRUE(limiter.admit("ci", kStart).allowed);
  EXPECT_FALSE(limiter.admit("ci", kStart + 100ms).allowed);
  EXPECT_TRUE(limiter.admit("ci", kStart + 500ms).allowed);
  EXPECT_FALSE(limiter.admit("ci", kStart + 600ms).allowed);

  // An hour idle refills two tokens, not 7200.
  EXPECT_TRUE(limiter.admit("ci", kStart + 1h).allowed);
  EXPECT_TRUE(limiter.admit("ci", kStart + 1h).allowed);
  EXPECT_FALSE(limiter.admit("ci", kStart + 1h).allowed);
}

TEST(RateLimiter, SaysHowManyWholeSecondsUntilTheNextToken) {
  RateLimiter limiter(0.1, 1);  // a token every 10 s
  EXPECT_TRUE(limiter.admit("ci", kStart).allowed);
  EXPECT_EQ(limiter.admit("ci", kStart).retry_after, 10s);
  EXPECT_EQ(limiter.admit("ci", kStart + 2500ms).retry_after, 8s);  // 7.5 s, rounded up
  EXPECT_EQ(limiter.admit("ci", kStart + 9999ms).retry_after, 1s);
  EXPECT_TRUE(limiter.admit("ci", kStart + 10s).allowed);
}

TEST(RateLimiter, KeepsASeparateBucketPerKey) {
  RateLimiter limiter(1.0, 1);
  EXPECT_TRUE(limiter.admit("ci", kStart).allowed);
  EXPECT_FALSE(limiter.admit("ci", kStart).allowed);
  EXPECT_TRUE(limiter.admit("ops", kStart).allowed);
  EXPECT_TRUE(limiter.admit("127.0.0.1", kStart).allowed);
  EXPECT_EQ(limiter.size(), 3u);
}

TEST(RateLimiter, DefaultsTheBurstToTheRateRoundedUpAndAtLeastOne) {
  RateLimiter fast(2.5, 0);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(fast.admit("k", kStart).allowed) << i;
  EXPECT_FALSE(fast.admit("k", kStart).allowed);

  RateLimiter slow(0.5, 0);
  EXPECT_TRUE(slow.admit("k", kStart).allowed);
  EXPECT_FALSE(slow.admit("k", kStart).allowed);
  EXPECT_EQ(slow.admit("k", kStart).retry_after, 2s);
}

TEST(RateLimiter, AllowsEverythingAndKeepsNothingWhenTheRateIsZero) {
  RateLimiter limiter(0.0, 5);
  EXPECT_FALSE(limiter.enabled());
  for (int i = 0; i < 10'000; ++i) ASSERT_TRUE(limiter.admit("ci", kStart).allowed);
  EXPECT_EQ(limiter.size(), 0u);
}

TEST(RateLimiter, DoesNotRefillWhenTimeSeemsToRunBackwards) {
  RateLimiter limiter(1.0, 1);
  EXPECT_TRUE(limiter.admit("ci", kStart).allowed);
  EXPECT_FALSE(limiter.admit("ci", kStart - 1h).allowed);
  EXPECT_FALSE(limiter.admit("ci", kStart + 500ms).allowed);
  EXPECT_TRUE(limiter.admit("ci", kStart + 1s).allowed);
}

TEST(RateLimiter, NeverKeepsMoreBucketsThanItsCap) {
  RateLimiter limiter(1.0, 1, 100);
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(limiter.admit("peer-" + std::to_string(i), kStart).allowed) << i;
  EXPECT_EQ(limiter.size(), 100u);
  // The first 100 keys hold buckets and are limited; the rest were let in untracked.
  EXPECT_FALSE(limiter.admit("peer-0", kStart).allowed);
  EXPECT_TRUE(limiter.admit("peer-500", kStart).allowed);
}

TEST(RateLimiter, DropsFullBucketsToMakeRoomForNewKeys) {
  RateLimiter limiter(1.0, 1, 100);
  for (int i = 0; i < 100; ++i) limiter.admit("old-" + std::to_string(i), kStart);
  EXPECT_EQ(limiter.size(), 100u);

  // Two seconds on, every old bucket is full again: the table makes room.
  const auto later = kStart + 2s;
  EXPECT_TRUE(limiter.admit("new", later).allowed);
  EXPECT_EQ(limiter.size(), 1u);
  EXPECT_FALSE(limiter.admit("new", later).allowed);
}

TEST(RateLimiter, KeepsBucketsThatAreStillLimitingWhenSweeping) {
  RateLimiter limiter(0.1, 1, 2);
  limiter.admit("slow-a", kStart);  // empty for 10 s
  limiter.admit("slow-b", kStart);
  EXPECT_TRUE(limiter.admit("new", kStart + 2s).allowed);  // swept, nothing full: untracked
  EXPECT_EQ(limiter.size(), 2u);
  EXPECT_FALSE(limiter.admit("slow-a", kStart + 2s).allowed);
  EXPECT_FALSE(limiter.admit("slow-b", kStart + 2s).allowed);
}

TEST(RateLimiter, CountsExactlyUnderConcurrentCallers) {
  // 8 threads, 1000 admits each, at one instant: exactly the burst gets in.
  RateLimiter limiter(1.0, 500);
  std::atomic<int> allowed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i)
        if (limiter.admit("shared", kStart).allowed) allowed.fetch_add(1);
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(allowed.load(), 500);
}

// ---- BodyBudget ------------------------------------------------------------

// Waiters as the connection is: a tag, and whether it was admitted.
struct Waiters {
  std::vector<int> admitted;  // tags, in the order admitted
  std::function<void()> waiter(int tag) {
    return [this, tag] { admitted.push_back(tag); };
  }
};

constexpr std::size_t kKiB = 1024;

TEST(BodyBudget, CountsOnlyBodiesOverSixtyFourKiB) {
  EXPECT_FALSE(BodyBudget::counted(0));
  EXPECT_FALSE(BodyBudget::counted(64 * kKiB));
  EXPECT_TRUE(BodyBudget::counted(64 * kKiB + 1));
}

TEST(BodyBudget, HoldsWhatFitsAndQueuesTheRestUntilRoomIsGivenBack) {
  BodyBudget budget(1024 * kKiB);
  Waiters w;
  int a = 0, b = 0, c = 0;
  EXPECT_TRUE(budget.acquire(&a, 600 * kKiB, w.waiter(1)));
  EXPECT_FALSE(budget.acquire(&b, 500 * kKiB, w.waiter(2)));  // 1,100 KiB would not fit
  EXPECT_EQ(budget.held(), 600 * kKiB);
  EXPECT_EQ(budget.waiting(), 1u);
  // Behind a waiter, even a body that would fit waits: first come, first served.
  EXPECT_FALSE(budget.acquire(&c, 100 * kKiB, w.waiter(3)));
  EXPECT_TRUE(w.admitted.empty());
  budget.release(600 * kKiB);
  EXPECT_EQ(w.admitted, (std::vector<int>{2, 3}));
  EXPECT_EQ(budget.held(), 600 * kKiB);
  EXPECT_EQ(budget.waiting(), 0u);
}

// A budget of 256 KiB holding `first` bytes for a (1), with a 1 MiB body
// (big, 2) and then one of `last` bytes (c, 3) queued behind it.
struct BigOneQueued {
  BodyBudget budget{256 * kKiB};
  Waiters w;
  int a = 0, big = 0, c = 0;
  BigOneQueued(std::size_t first, std::size_t last) {
    EXPECT_TRUE(budget.acquire(&a, first, w.waiter(1)));
    EXPECT_FALSE(budget.acquire(&big, 1024 * kKiB, w.waiter(2)));
    EXPECT_FALSE(budget.acquire(&c, last, w.waiter(3)));
  }
};

TEST(BodyBudget, ABodyLargerThanTheWholeBudgetIsHeldAloneAndHoldsTheRestBack) {
  BigOneQueued q(100 * kKiB, 100 * kKiB);
  q.budget.release(100 * kKiB);
  EXPECT_EQ(q.w.admitted, (std::vector<int>{2})) << "the large body runs once nothing else is held, and alone";
  EXPECT_EQ(q.budget.held(), 1024 * kKiB);
  q.budget.release(1024 * kKiB);
  EXPECT_EQ(q.w.admitted, (std::vector<int>{2, 3}));
  // Alone from the start: held at once.
  q.budget.release(100 * kKiB);
  EXPECT_TRUE(q.budget.acquire(&q.big, 4096 * kKiB, q.w.waiter(4)));
}

TEST(BodyBudget, AWithdrawnWaiterIsNeverAdmittedAndLetsThoseBehindItIn) {
  BigOneQueued q(200 * kKiB, 50 * kKiB);
  // The large one gives up (its read timeout): the small one fits beside a.
  EXPECT_TRUE(q.budget.withdraw(&q.big));
  EXPECT_EQ(q.w.admitted, (std::vector<int>{3}));
  EXPECT_EQ(q.budget.held(), 250 * kKiB);
  // Admitted already: nothing to withdraw, and its bytes stay held until released.
  EXPECT_FALSE(q.budget.withdraw(&q.c));
  EXPECT_EQ(q.budget.held(), 250 * kKiB);
  EXPECT_FALSE(q.budget.withdraw(&q.big));
}

TEST(BodyBudget, TellsItsObserverEveryChangeAndRunsAdmissionsOutsideItsLock) {
  BodyBudget budget(100 * kKiB);
  std::vector<std::pair<std::size_t, std::size_t>> seen;
  budget.observe([&](std::size_t held, std::size_t waiting) { seen.emplace_back(held, waiting); });
  int a = 0, b = 0;
  EXPECT_TRUE(budget.acquire(&a, 80 * kKiB, [] {}));
  std::size_t held_when_admitted = 0;
  // An admission that looks at the budget would deadlock if run under its lock.
  EXPECT_FALSE(budget.acquire(&b, 70 * kKiB, [&] { held_when_admitted = budget.held(); }));
  budget.release(80 * kKiB);
  EXPECT_EQ(held_when_admitted, 70 * kKiB);
  using Seen = std::vector<std::pair<std::size_t, std::size_t>>;
  EXPECT_EQ(seen, (Seen{{80 * kKiB, 0}, {80 * kKiB, 1}, {70 * kKiB, 0}}));
}

TEST(BodyBudget, NeverHoldsMoreThanItsCapacityUnderConcurrentConnections) {
  // 8 threads, each acquiring and releasing 300 KiB 500 times in a budget of
  // 1 MiB: at most 3 at once, every one admitted in the end.
  BodyBudget budget(1024 * kKiB);
  std::atomic<std::size_t> most{0};
  budget.observe([&](std::size_t held, std::size_t) {
    std::size_t seen = most.load();
    while (held > seen && !most.compare_exchange_weak(seen, held)) {
    }
  });
  std::atomic<int> done{0};
  std::latch start(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      start.arrive_and_wait();
      int me = 0;
      for (int i = 0; i < 500; ++i) {
        std::atomic<bool> in{false};
        if (!budget.acquire(&me, 300 * kKiB, [&] { in = true; }))
          while (!in.load()) std::this_thread::yield();
        budget.release(300 * kKiB);
        done.fetch_add(1);
      }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(done.load(), 4000);
  EXPECT_EQ(budget.held(), 0u);
  EXPECT_LE(most.load(), 900 * kKiB);
}

}  // namespace
}  // namespace airlock::host::http
