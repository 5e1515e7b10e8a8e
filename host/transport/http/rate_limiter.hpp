// Request rate per caller for the HTTP transport: one token bucket per key
// (the identity's name, or the peer address when authentication is off).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace airlock::host::http {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // `rate` requests per second refill a bucket of `burst` (0: max(1,
  // ceil(rate))); rate 0 turns limiting off. At most `max_keys` buckets are
  // kept (see admit).
  RateLimiter(double rate, std::uint32_t burst, std::size_t max_keys = 10'000);

  bool enabled() const { return rate_ > 0; }

  struct Decision {
    bool allowed;
    std::chrono::seconds retry_after;  // when refused: the Retry-After to send, at least 1 s
  };

  // Called by any I/O thread, once per request, with that thread's view of
  // the time. Takes one token from `key`'s bucket. With every bucket slot
  // taken by callers that are still being limited, a new key is let in
  // without a bucket: refusing it would let a crowd of addresses lock out
  // everyone else.
  Decision admit(std::string_view key, Clock::time_point now);

  // Buckets kept now; for tests and the curious.
  std::size_t size() const;

 private:
  struct Bucket {
    double tokens;
    Clock::time_point updated;
  };
  // Heterogeneous lookup, so admitting a known key allocates nothing.
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
  };

  double tokens_now(const Bucket& bucket, Clock::time_point now) const;
  void drop_full_buckets(Clock::time_point now);

  const double rate_;
  const double burst_;
  const std::size_t max_keys_;
  mutable std::mutex mutex_;  // guards buckets_ and last_sweep_
  std::unordered_map<std::string, Bucket, KeyHash, std::equal_to<>> buckets_;
  std::optional<Clock::time_point> last_sweep_;  // none yet
};

}  // namespace airlock::host::http
