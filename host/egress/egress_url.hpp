// URLs as the egress layer reads them: strictly, as written, never decoded.
// A URL either parses into exactly one scheme, host and port that everyone
// downstream (policy, resolver, curl) agrees on, or it is refused.
#pragma once

#include "util/error.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace airlock::host {

enum class Scheme { http, https };
enum class HostKind { name, ipv4, ipv6 };

struct Url {
  Scheme scheme = Scheme::https;
  HostKind host_kind = HostKind::name;
  std::string host;        // name lowercased (ASCII only); IPv4 dotted quad; IPv6 without brackets, lowercased
  std::uint16_t port = 0;  // as written, else the scheme's default (80/443)
  std::string target;      // path and query exactly as written; "/" when the URL has no path
  std::string text;        // what is fetched: scheme://host[:port]target (port only when written), no fragment
};

// A host as a URL or an egress rule writes it (IPv6 in brackets), checked.
struct ParsedHost {
  HostKind kind = HostKind::name;
  std::string text;  // as in Url::host
};
Result<ParsedHost> parse_host(std::string_view written);
// A port as written: decimal, 1..65535, no sign or leading zero.
Result<std::uint16_t> parse_port(std::string_view written);

// Why the egress layer will not read a URL or a redirect's Location. `rule`
// names the rule it breaks in a few fixed words ("userinfo not allowed",
// "scheme file not allowed", "ambiguous IPv4 address"): what provenance and
// the audit log record. `message` tells the whole story with the offending
// text shown. Both are printable ASCII whatever the URL held.
struct UrlRefusal {
  std::string rule;
  std::string message;
};
template <class T>
using UrlResult = boost::system::result<T, UrlRefusal>;
[[noreturn]] inline void throw_exception_from_error(const UrlRefusal& e, const boost::source_location&) {
  throw std::runtime_error(e.message);
}

// "http" or "https".
std::string_view scheme_name(Scheme scheme);
// 80 or 443.
std::uint16_t default_port(Scheme scheme);

// Parses an absolute http(s) URL. Refuses (never reinterprets) anything two
// readers could understand differently: userinfo, control characters,
// spaces, non-ASCII, percent-encoded or otherwise odd hosts, IPv4 written in
// any form but the dotted quad ("127.1", "0x7f.0.0.1", "0177.0.0.1",
// "2130706433"), IPv6 zone ids, an empty host, port 0 or above 65535.
UrlResult<Url> parse_url(std::string_view text);

// A redirect's Location against the URL that answered (RFC 3986 section 5 reference resolution, with
// dot-segment removal, but NEVER percent-decoding anything); the result is re-parsed by parse_url.
UrlResult<Url> resolve_redirect(const Url& base, std::string_view location);

}  // namespace airlock::host
