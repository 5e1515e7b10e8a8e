// Special address ranges (IANA's IPv4 and IPv6 special-purpose registries,
// plus the cloud metadata endpoints) and operator-granted ranges.
//
// IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4)
// are judged by that IPv4 address: a connection to ::ffff:127.0.0.1 or
// 64:ff9b::a9fe:a9fe ends at 127.0.0.1 or 169.254.169.254 all the same.
#include "egress/address_ranges.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace airlock::host {
namespace {

namespace ip = boost::asio::ip;
using Bytes16 = ip::address_v6::bytes_type;
// AddressRange keeps its base in these bytes, without Asio.
static_assert(std::is_same_v<Bytes16, decltype(AddressRange::base)>);

struct V4Range {
  std::uint32_t base;
  unsigned prefix;
  std::string_view name;
};

constexpr std::uint32_t v4(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  return a << 24 | b << 16 | c << 8 | d;
}

// First match wins, so single addresses precede the blocks that hold them.
constexpr std::array kV4Ranges{
    V4Range{v4(169, 254, 169, 254), 32, "cloud metadata"},
    V4Range{v4(100, 100, 100, 200), 32, "cloud metadata"},
    V4Range{v4(255, 255, 255, 255), 32, "broadcast"},
    V4Range{v4(0, 0, 0, 0), 8, "unspecified"},
    V4Range{v4(10, 0, 0, 0), 8, "private"},
    V4Range{v4(100, 64, 0, 0), 10, "shared"},
    V4Range{v4(127, 0, 0, 0), 8, "loopback"},
    V4Range{v4(169, 254, 0, 0), 16, "link-local"},
    V4Range{v4(172, 16, 0, 0), 12, "private"},
    V4Range{v4(192, 0, 0, 0), 24, "reserved"},
    V4Range{v4(192, 0, 2, 0), 24, "documentation"},
    V4Range{v4(192, 88, 99, 0), 24, "reserved"},
    V4Range{v4(192, 168, 0, 0), 16, "private"},
    V4Range{v4(198, 18, 0, 0), 15, "reserved"},
    V4Range{v4(198, 51, 100, 0), 24, "documentation"},
    V4Range{v4(203, 0, 113, 0), 24, "documentation"},
    V4Range{v4(224, 0, 0, 0), 4, "multicast"},
    V4Range{v4(240, 0, 0, 0), 4, "reserved"},
};

struct V6Range {
  Bytes16 base;
  unsigned prefix;
  std::string_view name;
};

bool prefix_equal(const Bytes16& a, const Bytes16& b, unsigned prefix) {
  for (unsigned bit = 0; bit < prefix; bit += 8) {
    const unsigned bits = std::min(8u, prefix - bit);
    const auto mask = static_cast<unsigned char>(0xffu << (8 - bits));
    if ((a[bit / 8] & mask) != (b[bit / 8] & mask)) return false;
  }
  return true;
}

const std::vector<V6Range>& v6_ranges() {
  static const std::vector<V6Range> ranges = [] {
    const std::pair<const char*, std::pair<unsigned, std::string_view>> table[] = {
        {"fd00:ec2::254", {128, "cloud metadata"}},
        {"64:ff9b:1::", {48, "private"}},  // RFC 8215 local-use translation
        {"100::", {64, "reserved"}},       // discard-only
        {"2001:db8::", {32, "documentation"}},
        {"2001::", {23, "reserved"}},      // IETF protocol assignments, Teredo included
        {"3fff::", {20, "documentation"}},
        {"fc00::", {7, "private"}},        // unique-local
        {"fe80::", {10, "link-local"}},
        {"fec0::", {10, "private"}},       // site-local, deprecated
        {"ff00::", {8, "multicast"}},
    };
    std::vector<V6Range> out;
    for (const auto& [text, rest] : table) out.push_back({ip::make_address_v6(text).to_bytes(), rest.first, rest.second});
    return out;
  }();
  return ranges;
}

std::optional<std::string_view> special_v4(const ip::address_v4& address) {
  const std::uint32_t value = address.to_uint();
  for (const auto& range : kV4Ranges) {
    const std::uint32_t mask = range.prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - range.prefix);
    if ((value & mask) == range.base) return range.name;
  }
  return std::nullopt;
}

ip::address_v4 v4_at(const Bytes16& bytes, std::size_t offset) {
  return ip::address_v4(ip::address_v4::bytes_type{bytes[offset], bytes[offset + 1], bytes[offset + 2],
                                                   bytes[offset + 3]});
}

std::optional<std::string_view> special_v6(const ip::address_v6& address) {
  const Bytes16 bytes = address.to_bytes();
  if (address.is_unspecified()) return "unspecified";
  if (address.is_loopback()) return "loopback";
  if (address.is_v4_mapped()) return special_v4(ip::make_address_v4(ip::v4_mapped, address));
  const Bytes16 zero{};
  if (prefix_equal(bytes, zero, 96)) return special_v4(v4_at(bytes, 12));  // IPv4-compatible (::a.b.c.d)
  static const Bytes16 nat64 = ip::make_address_v6("64:ff9b::").to_bytes();
  if (prefix_equal(bytes, nat64, 96)) return special_v4(v4_at(bytes, 12));
  if (bytes[0] == 0x20 && bytes[1] == 0x02) return special_v4(v4_at(bytes, 2));  // 6to4
  for (const auto& range : v6_ranges()) {
    if (prefix_equal(bytes, range.base, range.prefix)) return range.name;
  }
  if ((bytes[0] & 0xe0) != 0x20) return "reserved";  // outside global unicast 2000::/3
  return std::nullopt;
}

// The IPv4 address a mapped IPv6 address stands for; others unchanged.
ip::address unmapped(const ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    return ip::make_address_v4(ip::v4_mapped, address.to_v6());
  return address;
}

Bytes16 bytes_of(const ip::address& address) {
  if (address.is_v6()) return address.to_v6().to_bytes();
  Bytes16 out{};
  const auto b = address.to_v4().to_bytes();
  std::copy(b.begin(), b.end(), out.begin());
  return out;
}

}  // namespace

std::optional<std::string_view> special_range(const ip::address& address) {
  return address.is_v4() ? special_v4(address.to_v4()) : special_v6(address.to_v6());
}

bool AddressRange::contains(const ip::address& address) const {
  const ip::address candidate = v4 ? unmapped(address) : address;
  if (candidate.is_v4() != v4) return false;
  return prefix_equal(bytes_of(candidate), base, prefix);
}

Result<AddressRange> parse_address_range(std::string_view text) {
  const std::string quoted = "address range '" + std::string(text) + "'";
  const std::size_t slash = text.find('/');
  const std::string address_text(text.substr(0, slash));
  if (address_text.find('%') != std::string::npos) return Error{quoted + " has a zone id, which ranges cannot use"};
  boost::system::error_code ec;
  const ip::address base = ip::make_address(address_text, ec);
  if (ec) return Error{quoted + ": '" + address_text + "' is not an IPv4 or IPv6 address"};
  const unsigned width = base.is_v4() ? 32 : 128;

  unsigned prefix = width;
  if (slash != std::string_view::npos) {
    const std::string_view prefix_text = text.substr(slash + 1);
    const bool digits = !prefix_text.empty() && prefix_text.size() <= 3 &&
                        std::all_of(prefix_text.begin(), prefix_text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || (prefix_text.size() > 1 && prefix_text[0] == '0'))
      return Error{quoted + ": prefix '" + std::string(prefix_text) + "' is not a number of bits"};
    std::from_chars(prefix_text.data(), prefix_text.data() + prefix_text.size(), prefix);
    if (prefix > width)
      return Error{quoted + ": prefix /" + std::to_string(prefix) + " is longer than " + std::to_string(width) + " bits"};
  }

  // Bits past the prefix mean the operator wrote a host where a network was
  // meant ("10.0.0.1/8"); guessing which one they meant could grant too much.
  const Bytes16 bytes = bytes_of(base);
  for (unsigned bit = prefix; bit < width; ++bit) {
    if (bytes[bit / 8] & (0x80u >> (bit % 8)))
      return Error{quoted + " has bits set past its /" + std::to_string(prefix) + " prefix"};
  }
  return AddressRange{bytes, base.is_v4(), prefix, std::string(text)};
}

}  // namespace airlock::host
