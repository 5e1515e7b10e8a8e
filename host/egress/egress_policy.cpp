// One tool's egress set: grants by scheme, host and port, and the special
// address ranges the operator opened to it.
#include "egress/egress_policy.hpp"

#include <algorithm>

namespace airlock::host {
namespace {

namespace ip = boost::asio::ip;

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), lower);
  return out;
}

std::size_t first_unprintable(std::string_view text) {
  const auto bad = std::find_if(text.begin(), text.end(), [](char c) { return c <= 0x20 || c >= 0x7f; });
  return bad == text.end() ? std::string_view::npos : static_cast<std::size_t>(bad - text.begin());
}

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

Result<EgressRule> parse_egress_rule(std::string_view text) {
  const std::string quoted = "egress rule '" + std::string(text) + "'";
  if (text.empty()) return Error{"egress rule is empty"};
  if (const std::size_t bad = first_unprintable(text); bad != std::string_view::npos)
    return Error{"egress rule holds a space, control character or non-ASCII byte at offset " + std::to_string(bad)};
  EgressRule rule;
  rule.text = std::string(text);

  std::string_view rest = text;
  if (const std::size_t separator = rest.find("://"); separator != std::string_view::npos) {
    const std::string scheme = lowercase(rest.substr(0, separator));
    if (scheme == "http") {
      rule.scheme = Scheme::http;
    } else if (scheme == "https") {
      rule.scheme = Scheme::https;
    } else {
      return Error{quoted + ": scheme '" + std::string(rest.substr(0, separator)) + "' is not http or https"};
    }
    rest.remove_prefix(separator + 3);
  }
  if (rest.find('@') != std::string_view::npos)
    return Error{quoted + " has userinfo ('@'); a grant names scheme, host and port only"};
  if (rest.find('/') != std::string_view::npos)
    return Error{quoted + " has a path; a grant names scheme, host and port only"};
  if (rest.find('?') != std::string_view::npos)
    return Error{quoted + " has a query; a grant names scheme, host and port only"};
  if (rest.find('#') != std::string_view::npos)
    return Error{quoted + " has a fragment; a grant names scheme, host and port only"};

  std::string_view host_text = rest;
  std::optional<std::string_view> port_text;
  if (!rest.empty() && rest.front() == '[') {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos) return Error{quoted + ": host has no closing ']'"};
    host_text = rest.substr(0, close + 1);
    const std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return Error{quoted + ": unexpected text after ']'"};
      port_text = after.substr(1);
    }
  } else if (const std::size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    host_text = rest.substr(0, colon);
    port_text = rest.substr(colon + 1);
  }

  if (host_text.empty()) return Error{quoted + " has no host"};
  if (host_text == "*") {
    rule.host = "*";
  } else {
    const bool below_suffix = host_text.starts_with("*.");
    const std::string_view name = below_suffix ? host_text.substr(2) : host_text;
    if (name.find('*') != std::string_view::npos)
      return Error{quoted + ": '*' may only be the whole host or its first label ('*.example.com')"};
    auto host = parse_host(name);
    if (!host) return Error{quoted + ": " + host.error().message};
    if (below_suffix && host->kind != HostKind::name)
      return Error{quoted + ": '*.' must be followed by a name, not an address"};
    rule.host = below_suffix ? "*." + host->text : host->text;
  }

  if (port_text) {
    if (*port_text == "*") {
      rule.any_port = true;
    } else {
      auto port = parse_port(*port_text);
      if (!port) return Error{quoted + ": " + port.error().message};
      rule.port = *port;
    }
  }
  return rule;
}

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
