// An address range an operator grants (egress_addresses, fetch_addresses),
// as plain bytes. Apart from the special ranges (address_ranges.hpp), which
// speak Asio's address types, so the config that holds granted ranges
// (config/host_config.hpp) needs no Asio. The parser and contains() live in
// address_ranges.cpp, beside the special ranges whose byte helpers they share.
#pragma once

#include "util/error.hpp"

#include <array>
#include <string>
#include <string_view>

// contains() takes one; only address_ranges.cpp needs Asio's definition.
namespace boost::asio::ip {
class address;
}

namespace airlock::host {

// An address block, "10.0.0.0/8" or a single address.
struct AddressRange {
  std::array<unsigned char, 16> base{};  // the first address, every bit past the prefix zero; IPv4 in bytes 0..3
  bool v4 = true;                        // base is IPv4 (prefix 0..32), else IPv6 (0..128)
  unsigned prefix = 0;                   // 0..32 or 0..128
  std::string text;                      // as the operator wrote it

  // An IPv4-mapped IPv6 address is contained in the IPv4 ranges that contain
  // its IPv4 address, since a connection to it reaches that IPv4 address.
  bool contains(const boost::asio::ip::address& address) const;
};

// "10.0.0.0/8", "::1", "127.0.0.1/32", "fd00::/8". Refuses bits set past the
// prefix ("10.0.0.1/8"), since the operator surely meant something else.
Result<AddressRange> parse_address_range(std::string_view cidr_or_address);

}  // namespace airlock::host
