// The MCP protocol versions this host speaks, newest first.
#pragma once

#include <array>
#include <string_view>

namespace airlock::host {

inline constexpr std::array<std::string_view, 2> kProtocolVersions = {"2025-11-25", "2025-06-18"};
inline constexpr std::string_view kLatestProtocolVersion = kProtocolVersions.front();

// The version to answer an initialize with: the client's when we speak it,
// otherwise our latest (the client then decides whether to go on).
inline std::string_view negotiate_protocol_version(std::string_view requested) {
  for (auto v : kProtocolVersions)
    if (v == requested) return v;
  return kLatestProtocolVersion;
}

}  // namespace airlock::host
