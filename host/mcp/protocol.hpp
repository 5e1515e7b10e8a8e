// The MCP protocol versions this host speaks, newest first, and the protocol's
// small fixed vocabularies: log levels and the requests a server may send.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
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

// logging/setLevel and notifications/message levels (RFC 5424), in rising
// severity; the index is airlock.h's airlock_client_log_level.
inline constexpr std::array<std::string_view, 8> kLogLevels = {"debug", "info",     "notice", "warning",
                                                               "error", "critical", "alert",  "emergency"};

inline std::optional<int> log_level_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kLogLevels.size(); ++i)
    if (kLogLevels[i] == name) return static_cast<int>(i);
  return std::nullopt;
}

// The requests a server may send its client, each with the client
// capability (from initialize) it needs.
struct ClientRequestKind {
  std::string_view method;
  std::string_view capability;
};
inline constexpr std::array<ClientRequestKind, 3> kClientRequests = {{
    {"sampling/createMessage", "sampling"},
    {"elicitation/create", "elicitation"},
    {"roots/list", "roots"},
}};

// The capability `method` needs, or nullopt when a server may not send it.
inline std::optional<std::string_view> capability_for_client_request(std::string_view method) {
  for (const auto& kind : kClientRequests)
    if (kind.method == method) return kind.capability;
  return std::nullopt;
}

// The error code MCP gives an unknown resource (resources/read and
// resources/subscribe), with data {"uri": ...}.
inline constexpr int kResourceNotFound = -32002;
inline constexpr std::string_view kResourceNotFoundMessage = "Resource not found";

// completion/complete answers at most this many values (the spec's limit).
inline constexpr std::size_t kMaxCompletionValues = 100;

}  // namespace airlock::host
