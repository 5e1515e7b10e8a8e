// Token buckets, one per caller. A bucket holds up to `burst` tokens, gains
// `rate` a second, and a request spends one. A bucket that has refilled
// completely says nothing a fresh bucket would not, so full buckets are the
// ones dropped when the table reaches its cap; that sweep costs one pass
// over the table and runs at most once a second.
#include "transport/http/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace airlock::host::http {
namespace {

constexpr auto kSweepInterval = std::chrono::seconds(1);

}  // namespace

RateLimiter::RateLimiter(double rate, std::uint32_t burst, std::size_t max_keys)
    : rate_(std::max(rate, 0.0)),
      burst_(burst > 0 ? static_cast<double>(burst) : std::max(1.0, std::ceil(rate))),
      max_keys_(std::max<std::size_t>(max_keys, 1)) {}

double RateLimiter::tokens_now(const Bucket& bucket, Clock::time_point now) const {
  // A clock that seems to run backwards (times from different threads)
  // refills nothing rather than taking tokens away.
  const double elapsed = std::max(0.0, std::chrono::duration<double>(now - bucket.updated).count());
  return std::min(burst_, bucket.tokens + elapsed * rate_);
}

void RateLimiter::drop_full_buckets(Clock::time_point now) {
  last_sweep_ = now;
  std::erase_if(buckets_, [&](const auto& entry) { return tokens_now(entry.second, now) >= burst_; });
}

RateLimiter::Decision RateLimiter::admit(std::string_view key, Clock::time_point now) {
  if (!enabled()) return {true, std::chrono::seconds(0)};

  const std::lock_guard lock(mutex_);
  auto it = buckets_.find(key);
  if (it == buckets_.end()) {
    if (buckets_.size() >= max_keys_ && (!last_sweep_ || now - *last_sweep_ >= kSweepInterval))
      drop_full_buckets(now);
    if (buckets_.size() >= max_keys_) return {true, std::chrono::seconds(0)};
    buckets_.emplace(std::string(key), Bucket{burst_ - 1, now});
    return {true, std::chrono::seconds(0)};
  }

  Bucket& bucket = it->second;
  bucket.tokens = tokens_now(bucket, now);
  bucket.updated = std::max(bucket.updated, now);
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return {true, std::chrono::seconds(0)};
  }
  // Whole seconds, rounded up: Retry-After has no finer unit, and a client
  // that comes back on time must find a token waiting.
  const double wait = (1 - bucket.tokens) / rate_;
  const auto seconds = static_cast<std::int64_t>(std::ceil(std::min(wait, 86'400.0)));
  return {false, std::chrono::seconds(std::max<std::int64_t>(1, seconds))};
}

std::size_t RateLimiter::size() const {
  const std::lock_guard lock(mutex_);
  return buckets_.size();
}

}  // namespace airlock::host::http
