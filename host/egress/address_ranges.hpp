// Which addresses are special (loopback, private, metadata...), and the
// address ranges an operator grants with egress_addresses (address_range.hpp).
#pragma once

#include "egress/address_range.hpp"

#include <boost/asio/ip/address.hpp>

#include <optional>
#include <string_view>

namespace airlock::host {

// Which special range an address falls in, or nullopt for an ordinary public
// address: "loopback", "private", "link-local", "shared" (100.64/10), "cloud
// metadata" (169.254.169.254, fd00:ec2::254, 100.100.100.200), "unspecified",
// "multicast", "broadcast", "documentation", "reserved". IPv4-mapped,
// IPv4-compatible, NAT64 (64:ff9b::/96) and 6to4 IPv6 addresses are judged by
// the IPv4 address inside; unique-local fc00::/7 is private; IPv6 outside
// global unicast 2000::/3 is reserved.
std::optional<std::string_view> special_range(const boost::asio::ip::address& address);

}  // namespace airlock::host
