// One authorization server's signing keys, found through its metadata
// (RFC 8414, else OpenID Connect Discovery) and fetched from its jwks_uri
// by the host's egress fetcher: a metadata document cannot point airlock at
// a loopback or private address the operator did not grant.
#pragma once

#include "auth/jwks.hpp"
#include "egress/egress_policy.hpp"
#include "egress/fetcher.hpp"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host {

class IssuerKeys {
 public:
  struct Settings {
    std::chrono::seconds refresh_min{60};     // an unknown kid refetches at most this often
    std::chrono::milliseconds timeout{5000};  // one fetch
    std::vector<AddressRange> addresses;      // special ranges the fetches may reach
  };

  // `issuer` was checked at load (is_issuer_url); `fetcher` outlives this.
  IssuerKeys(std::string issuer, const Fetcher& fetcher, Settings settings);

  // The current keys. Fetched on first use, and again when `kid` (non-empty)
  // is not among them, at most once per refresh_min (every 2 s while there
  // are none), so a stream of tokens with made-up kids cannot make airlock
  // hammer the authorization server. Thread-safe; the thread that fetches
  // blocks for up to the timeout, others with a known kid do not wait.
  // Null while no key set could be fetched (each failure is logged).
  std::shared_ptr<const KeySet> keys_for(std::string_view kid);

  const std::string& issuer() const { return issuer_; }

 private:
  Result<std::shared_ptr<const KeySet>> fetch_keys();
  Result<std::string> discover_jwks_uri();
  Result<std::string> get(const std::string& url) const;

  const std::string issuer_;
  const Fetcher& fetcher_;
  const Settings settings_;
  const EgressPolicy policy_;

  std::mutex mutex_;
  std::condition_variable fetched_;
  std::shared_ptr<const KeySet> keys_;
  std::string jwks_uri_;
  std::chrono::steady_clock::time_point last_attempt_{};
  bool attempted_ = false;
  bool fetching_ = false;
};

}  // namespace airlock::host
