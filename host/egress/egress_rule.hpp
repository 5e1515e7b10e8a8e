// One egress grant as the operator wrote it, and its parser. Plain data,
// apart from the policy that matches URLs against grants (egress_policy.hpp),
// so the config that holds a binding's grants (config/host_config.hpp) needs
// neither the policy nor Asio's address types.
#pragma once

#include "egress/egress_url.hpp"
#include "util/error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

}  // namespace airlock::host
