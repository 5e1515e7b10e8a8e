// Which addresses are special (loopback, private, metadata...) and the
// address ranges an operator grants with egress_addresses.
#pragma once

#include "util/error.hpp"

#include <boost/asio/ip/address.hpp>

#include <optional>
#include <string>
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

// An address block, "10.0.0.0/8" or a single address.
struct AddressRange {
  boost::asio::ip::address base;  // with every bit past the prefix zero
  unsigned prefix = 0;            // 0..32 or 0..128
  std::string text;               // as the operator wrote it

  // An IPv4-mapped IPv6 address is contained in the IPv4 ranges that contain
  // its IPv4 address, since a connection to it reaches that IPv4 address.
  bool contains(const boost::asio::ip::address& address) const;
};

// "10.0.0.0/8", "::1", "127.0.0.1/32", "fd00::/8". Refuses bits set past the
// prefix ("10.0.0.1/8"), since the operator surely meant something else.
Result<AddressRange> parse_address_range(std::string_view cidr_or_address);

}  // namespace airlock::host
