// One HTTP exchange with addresses the fetcher already checked: what the
// fetcher (fetcher.cpp: grants, names, addresses, redirects) hands the HTTP
// client, and what comes back.
//
// The client is libcurl, and it lives in a module of its own
// (airlock-egress-curl.so, curl_hop.cpp) that the host loads the first time
// a tool fetches: libcurl and the TLS, Kerberos and LDAP libraries it pulls
// in are most of a server's mapped code, and a server that never fetches
// should not carry them. Host and module come from one build; kHopAbi
// changes whenever these structs do, and the host refuses a module built
// with another.
#pragma once

#include "egress/egress_url.hpp"

#include <airlock/airlock.h>
#include <boost/asio/ip/address.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace airlock::host {

inline constexpr int kHopAbi = 1;

// What one hop asks for; a redirect may change it for the next hop.
struct HopRequest {
  std::string method;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// One hop, checked: the client connects to `addresses` and nowhere else.
struct HopTarget {
  const Url& url;
  const HopRequest& request;
  const std::vector<boost::asio::ip::address>& addresses;  // every one checked against the grant
  const std::string& user_agent;
  std::uint64_t limit = 0;                      // body bytes kept; more ends the transfer, truncated
  std::chrono::steady_clock::time_point deadline;
  const std::atomic<bool>* cancelled = nullptr;  // may be null; polled while the transfer runs
};

struct HopResult {
  airlock_status status = AIRLOCK_STATUS_INTERNAL;  // OK, DENIED, NETWORK_ERROR, TIMEOUT, CANCELLED
  std::string error;                                // when status is not OK
  long http_status = 0;
  std::string content_type;
  std::string address;                  // the address connected to, when any
  std::optional<std::string> location;  // of a redirect response
  std::string location_error;           // when the response's Location headers disagree
  std::string body;
  bool truncated = false;
};

// Runs one hop through the HTTP client module, loading it on the first
// call. Thread-safe; blocks until the hop ends, its deadline passes or
// `cancelled` turns true. A module that cannot be loaded is NETWORK_ERROR,
// naming the file and why.
HopResult run_hop(const HopTarget& target);

}  // namespace airlock::host
