// Turns a URL's host into the addresses the fetcher may connect to: the
// operator's overrides first, then the system resolver; literals as they are.
#pragma once

#include "egress/egress_url.hpp"
#include "util/error.hpp"

#include <boost/asio/ip/address.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace airlock::host {

class Resolver {
 public:
  using Addresses = std::vector<boost::asio::ip::address>;
  // A blocking lookup of one name; the default is getaddrinfo (AF_UNSPEC,
  // SOCK_STREAM). Tests pass a slow one.
  using Lookup = std::function<Result<Addresses>(const std::string& host)>;

  // At most this many system lookups run at once: each one that outlives
  // its caller's deadline keeps a thread until getaddrinfo returns.
  static constexpr std::size_t kMaxLookupsInFlight = 32;

  // `overrides`: lowercase name -> addresses, answered instead of the system resolver ([egress.hosts] in
  // the config; tests use names under .test).
  explicit Resolver(std::map<std::string, Addresses> overrides = {}, Lookup lookup = {});

  // IP literals resolve to themselves without any lookup. A system lookup
  // is bounded: past `deadline`, or once `cancelled` (may be null) turns
  // true, the caller gets an error while the lookup finishes on its own
  // thread. getaddrinfo has no timeout of its own and cannot be interrupted,
  // so this is the only way a fetch's timeout also covers DNS. Errors name
  // the host ("cannot resolve x: ..."). Thread-safe.
  Result<Addresses> resolve(const Url& url, std::chrono::steady_clock::time_point deadline,
                            const std::atomic<bool>* cancelled = nullptr) const;

 private:
  Result<Addresses> bounded_lookup(const std::string& host, std::chrono::steady_clock::time_point deadline,
                                   const std::atomic<bool>* cancelled) const;

  std::map<std::string, Addresses> overrides_;
  Lookup lookup_;
  // Shared with the lookup threads, which may outlive the resolver.
  std::shared_ptr<std::atomic<std::size_t>> in_flight_ = std::make_shared<std::atomic<std::size_t>>(0);
};

// [egress.hosts] as the config keeps it (lowercase name -> addresses as
// written, each checked when the file was read), as a Resolver's overrides.
std::map<std::string, Resolver::Addresses> host_overrides(const std::map<std::string, std::vector<std::string>>& hosts);

}  // namespace airlock::host
