// One tool's egress set: grants by scheme, host and port, and the special
// address ranges the operator opened to it.
#include "egress/egress_policy.hpp"

#include "egress/address_ranges.hpp"

#include <boost/asio/ip/address.hpp>

namespace airlock::host {
namespace {

namespace ip = boost::asio::ip;

// The address an IP-literal rule host names, or nullopt for names and wildcards.
std::optional<ip::address> literal_address(std::string_view host) {
  boost::system::error_code ec;
  const ip::address address = ip::make_address(std::string(host), ec);
  if (ec) return std::nullopt;
  return address;
}

ip::address unmapped(const ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    return ip::make_address_v4(ip::v4_mapped, address.to_v6());
  return address;
}

bool host_matches(const EgressRule& rule, const Url& url) {
  if (rule.host == "*") return true;
  if (rule.host.starts_with("*.")) {
    const std::string_view suffix = std::string_view(rule.host).substr(1);  // ".suffix"
    return url.host_kind == HostKind::name && url.host.size() > suffix.size() && url.host.ends_with(suffix);
  }
  if (url.host_kind == HostKind::name) return rule.host == url.host;
  const auto granted = literal_address(rule.host);
  const auto wanted = literal_address(url.host);
  return granted && wanted && *granted == *wanted;
}

bool port_matches(const EgressRule& rule, const Url& url) {
  if (rule.any_port) return true;
  return url.port == rule.port.value_or(default_port(url.scheme));
}

}  // namespace

EgressPolicy::EgressPolicy(std::vector<EgressRule> rules, std::vector<AddressRange> granted_addresses)
    : rules_(std::move(rules)), granted_addresses_(std::move(granted_addresses)) {}

bool EgressPolicy::empty() const { return rules_.empty(); }

const std::vector<EgressRule>& EgressPolicy::rules() const { return rules_; }

const std::vector<AddressRange>& EgressPolicy::granted_addresses() const { return granted_addresses_; }

const EgressRule* EgressPolicy::match(const Url& url) const {
  for (const auto& rule : rules_) {
    if (rule.scheme && *rule.scheme != url.scheme) continue;
    if (!port_matches(rule, url)) continue;
    if (host_matches(rule, url)) return &rule;
  }
  return nullptr;
}

std::optional<std::string> EgressPolicy::refuse_address(const ip::address& address, const EgressRule& rule) const {
  const auto range = special_range(address);
  if (!range) return std::nullopt;
  for (const auto& granted : granted_addresses_) {
    if (granted.contains(address)) return std::nullopt;
  }
  // Writing the address itself into a grant is as explicit as granting its range.
  if (const auto literal = literal_address(rule.host); literal && unmapped(*literal) == unmapped(address))
    return std::nullopt;
  return address.to_string() + " is " + std::string(*range) + " and egress_addresses does not grant it";
}

std::string EgressPolicy::describe_grants() const {
  if (rules_.empty()) return "none";
  std::string out;
  for (const auto& rule : rules_) {
    if (!out.empty()) out += ", ";
    out += rule.text;
  }
  return out;
}

}  // namespace airlock::host
