// One tool's egress set: which URLs (scheme, host, port) it may fetch and
// which special addresses it may connect to.
#pragma once

#include "egress/address_range.hpp"  // also declares the Asio address refuse_address takes
#include "egress/egress_rule.hpp"
#include "egress/egress_url.hpp"

#include <optional>
#include <string>
#include <vector>

namespace airlock::host {

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
