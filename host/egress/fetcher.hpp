// The host's HTTP(S) fetch on behalf of one tool (ABI 1.4 call_fetch): every
// destination, first URL and each redirect hop, is checked against the
// tool's egress policy by name and by resolved address before curl may
// connect, and recorded as provenance.
#pragma once

#include "egress/egress_policy.hpp"
#include "egress/egress_record.hpp"
#include "egress/resolver.hpp"

#include <airlock/airlock.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace airlock::host {

struct FetchRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool follow_redirects = false;
  std::chrono::milliseconds timeout{0};   // 0: settings default
  std::uint64_t max_response_bytes = 0;   // 0: settings default
  std::string actor;                      // the acting tool, named in denials; empty: "this tool"
};

struct FetchOutcome {
  airlock_status status = AIRLOCK_STATUS_INTERNAL;  // OK, DENIED, NETWORK_ERROR, TIMEOUT, CANCELLED, INVALID_ARGUMENT
  int http_status = 0;
  std::string final_url, content_type, body;
  bool truncated = false;
  std::string error;   // set on every status but OK; for DENIED names destination and rule
};

// Each a default and a ceiling: a request may ask for less, never more.
struct FetchSettings {
  std::chrono::milliseconds default_timeout{30'000};
  std::uint64_t default_max_response_bytes = 8u << 20;
  std::uint32_t max_redirects = 5;
  std::string user_agent = "airlock";
};

class Fetcher {
 public:
  Fetcher(FetchSettings settings, Resolver resolver);

  // Thread-safe; blocks. Appends one EgressRecord per hop (allowed or denied) to `provenance`.
  // `cancelled` (may be null) is polled while waiting; when it turns true, returns CANCELLED.
  FetchOutcome fetch(const EgressPolicy& policy, const FetchRequest& request, const std::atomic<bool>* cancelled,
                     std::vector<EgressRecord>& provenance) const;

  const FetchSettings& settings() const;

 private:
  FetchSettings settings_;
  Resolver resolver_;
};

}  // namespace airlock::host
