// One tool's egress set: which URLs (scheme, host, port) it may fetch and
// which special addresses it may connect to.
#pragma once

#include "egress/address_ranges.hpp"
#include "egress/egress_url.hpp"
#include "util/error.hpp"

#include <boost/asio/ip/address.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host {

// One grant as the operator wrote it: [scheme "://"] host [":" port]
//   scheme: http | https; absent: either.  host: exact name, "*.suffix" (any name below suffix, not the
//   suffix itself), "*" (any name or public address), IPv4 literal, [IPv6] literal.  port: 1..65535 or "*";
//   absent: the default port of the URL's scheme.  No userinfo, path, query or fragment (an error says so).
struct EgressRule {
  std::string text;                   // as written
  std::optional<Scheme> scheme;       // absent: http and https
  std::string host;                   // lowercased; "*", "*.suffix", a name, IPv4, or IPv6 without brackets
  std::optional<std::uint16_t> port;  // absent (and not any_port): the URL scheme's default
  bool any_port = false;
};

Result<EgressRule> parse_egress_rule(std::string_view text);

class EgressPolicy {
 public:
  EgressPolicy() = default;  // grants nothing
  EgressPolicy(std::vector<EgressRule> rules, std::vector<AddressRange> granted_addresses);

  bool empty() const;
  const std::vector<EgressRule>& rules() const;
  const std::vector<AddressRange>& granted_addresses() const;

  // The first rule that admits the URL's scheme, host and port; null when none does.
  const EgressRule* match(const Url& url) const;

  // Why `address` (resolved for a URL that `rule` admitted) is refused, e.g. "127.0.0.1 is loopback and
  // egress_addresses does not grant it"; nullopt when allowed. A special-range address is allowed only if
  // a granted range contains it or the rule's host is that very address written as a literal.
  std::optional<std::string> refuse_address(const boost::asio::ip::address& address, const EgressRule& rule) const;

  // "a, b" (the rules' texts), or "none", for denial messages.
  std::string describe_grants() const;

 private:
  std::vector<EgressRule> rules_;
  std::vector<AddressRange> granted_addresses_;
};

}  // namespace airlock::host
