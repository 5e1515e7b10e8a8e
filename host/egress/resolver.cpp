// Name resolution for the fetcher: the operator's overrides, else getaddrinfo.
// The fetcher checks what this returns and pins it in curl, so this is the
// only lookup a fetch ever makes.
#include "egress/resolver.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

namespace airlock::host {
namespace {

namespace ip = boost::asio::ip;

ip::address from_sockaddr(const sockaddr* address) {
  if (address->sa_family == AF_INET) {
    sockaddr_in v4{};
    std::memcpy(&v4, address, sizeof v4);
    return ip::address_v4(ntohl(v4.sin_addr.s_addr));
  }
  sockaddr_in6 v6{};
  std::memcpy(&v6, address, sizeof v6);
  ip::address_v6::bytes_type bytes;
  std::memcpy(bytes.data(), &v6.sin6_addr, bytes.size());
  return ip::address_v6(bytes, v6.sin6_scope_id);
}

Result<Resolver::Addresses> system_lookup(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0) return Error{"cannot resolve " + host + ": " + ::gai_strerror(rc)};
  const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owner(found, &::freeaddrinfo);

  std::vector<ip::address> addresses;
  for (const addrinfo* entry = found; entry; entry = entry->ai_next) {
    if (entry->ai_family != AF_INET && entry->ai_family != AF_INET6) continue;
    const ip::address address = from_sockaddr(entry->ai_addr);
    if (std::find(addresses.begin(), addresses.end(), address) == addresses.end()) addresses.push_back(address);
  }
  if (addresses.empty()) return Error{"cannot resolve " + host + ": no IPv4 or IPv6 address"};
  return addresses;
}

// One lookup's answer, handed from its thread to whoever still waits.
struct PendingLookup {
  std::mutex mutex;
  std::condition_variable done;
  std::optional<Result<Resolver::Addresses>> answer;
};

// How often a waiting caller looks at its cancellation flag: the same
// granularity as the fetch itself.
constexpr std::chrono::milliseconds kCancelPoll{20};

}  // namespace

Resolver::Resolver(std::map<std::string, Addresses> overrides, Lookup lookup)
    : overrides_(std::move(overrides)), lookup_(lookup ? std::move(lookup) : Lookup(system_lookup)) {}

Result<Resolver::Addresses> Resolver::bounded_lookup(const std::string& host,
                                                     std::chrono::steady_clock::time_point deadline,
                                                     const std::atomic<bool>* cancelled) const {
  if (in_flight_->fetch_add(1) >= kMaxLookupsInFlight) {
    in_flight_->fetch_sub(1);
    return Error{"cannot resolve " + host + ": " + std::to_string(kMaxLookupsInFlight) +
                 " lookups are already waiting for the system resolver"};
  }
  auto pending = std::make_shared<PendingLookup>();
  try {
    std::thread([pending, in_flight = in_flight_, lookup = lookup_, host] {
      auto answer = lookup(host);
      {
        const std::lock_guard lock(pending->mutex);
        pending->answer = std::move(answer);
      }
      pending->done.notify_one();
      in_flight->fetch_sub(1);
    }).detach();
  } catch (const std::system_error& e) {
    in_flight_->fetch_sub(1);
    return Error{"cannot resolve " + host + ": no thread for the lookup: " + e.what()};
  }

  std::unique_lock lock(pending->mutex);
  while (!pending->answer) {
    if (cancelled && cancelled->load()) return Error{"cannot resolve " + host + ": cancelled"};
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return Error{"cannot resolve " + host + ": the system resolver did not answer in time"};
    pending->done.wait_until(lock, std::min(deadline, now + kCancelPoll));
  }
  return std::move(*pending->answer);
}

Result<Resolver::Addresses> Resolver::resolve(const Url& url, std::chrono::steady_clock::time_point deadline,
                                              const std::atomic<bool>* cancelled) const {
  if (url.host_kind != HostKind::name) {
    boost::system::error_code ec;
    const ip::address address = ip::make_address(url.host, ec);
    if (ec) return Error{"cannot resolve " + url.host + ": not an IP address"};
    return std::vector<ip::address>{address};
  }
  if (const auto it = overrides_.find(url.host); it != overrides_.end()) {
    if (it->second.empty()) return Error{"cannot resolve " + url.host + ": [egress.hosts] lists no address for it"};
    return it->second;
  }
  return bounded_lookup(url.host, deadline, cancelled);
}

std::map<std::string, Resolver::Addresses> host_overrides(
    const std::map<std::string, std::vector<std::string>>& hosts) {
  std::map<std::string, Resolver::Addresses> overrides;
  for (const auto& [name, addresses] : hosts) {
    auto& answers = overrides[name];
    for (const auto& text : addresses) answers.push_back(ip::make_address(text));
  }
  return overrides;
}

}  // namespace airlock::host
