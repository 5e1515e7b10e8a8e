// Egress grants as operators write them: scheme, host and port, read
// strictly, each refusal naming what is wrong.
#include "egress/egress_rule.hpp"

#include "util/ascii.hpp"

#include <algorithm>

namespace airlock::host {
namespace {

std::size_t first_unprintable(std::string_view text) {
  const auto bad = std::find_if(text.begin(), text.end(), [](char c) { return c <= 0x20 || c >= 0x7f; });
  return bad == text.end() ? std::string_view::npos : static_cast<std::size_t>(bad - text.begin());
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
    const std::string scheme = ascii_lowercase(rest.substr(0, separator));
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

}  // namespace airlock::host
