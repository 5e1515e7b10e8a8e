// What every record format needs beside the event and its link, and the
// one switch between the formats [audit] format chooses.
#pragma once

#include "audit/audit_chain.hpp"
#include "audit/audit_event.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host::audit {

struct FormatContext {
  std::string_view product_version;  // airlock's version, as --version prints it
  std::string_view host_name;        // the machine the server runs on
};

// An egress destination, "scheme://host:port" (host may be a bracketed
// IPv6 literal), taken apart; nothing when it is not in that form.
struct DestinationParts {
  std::string_view scheme;
  std::string_view host;  // without the brackets
  std::uint16_t port = 0;
};

inline std::optional<DestinationParts> split_destination(std::string_view destination) {
  const auto scheme_end = destination.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return std::nullopt;
  DestinationParts parts;
  parts.scheme = destination.substr(0, scheme_end);
  std::string_view rest = destination.substr(scheme_end + 3);
  const auto colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == rest.size() || rest.size() - colon - 1 > 5)
    return std::nullopt;
  unsigned port = 0;
  for (const char c : rest.substr(colon + 1)) {
    if (c < '0' || c > '9') return std::nullopt;
    port = port * 10 + static_cast<unsigned>(c - '0');
  }
  if (port == 0 || port > 65535) return std::nullopt;
  parts.port = static_cast<std::uint16_t>(port);
  std::string_view host = rest.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) return std::nullopt;
  parts.host = host;
  return parts;
}

}  // namespace airlock::host::audit
