// Name resolution for the fetcher: the operator's overrides, else getaddrinfo.
// The fetcher checks what this returns and pins it in curl, so this is the
// only lookup a fetch ever makes.
#include "egress/resolver.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <memory>

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

Result<std::vector<ip::address>> system_lookup(const std::string& host) {
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

}  // namespace

Resolver::Resolver(std::map<std::string, std::vector<ip::address>> overrides) : overrides_(std::move(overrides)) {}

Result<std::vector<ip::address>> Resolver::resolve(const Url& url) const {
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
  return system_lookup(url.host);
}

}  // namespace airlock::host
