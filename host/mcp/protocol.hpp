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

// MCP 2026-07-28: every request stands alone, carrying its version and the
// client's capabilities in params._meta under these keys; sessions and
// initialize are gone. The versions before it are served in sessions.
inline constexpr std::array<std::string_view, 1> kModernProtocolVersions = {"2026-07-28"};
inline constexpr std::array<std::string_view, 4> kSessionProtocolVersions = {"2024-11-05", "2025-03-26", "2025-06-18",
                                                                             "2025-11-25"};
inline constexpr std::string_view kMetaProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view kMetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view kMetaClientInfo = "io.modelcontextprotocol/clientInfo";
inline constexpr std::string_view kMetaLogLevel = "io.modelcontextprotocol/logLevel";
inline constexpr std::string_view kMetaServerInfo = "io.modelcontextprotocol/serverInfo";
inline constexpr std::string_view kMetaSubscriptionId = "io.modelcontextprotocol/subscriptionId";

inline bool is_modern_protocol_version(std::string_view v) {
  for (auto known : kModernProtocolVersions)
    if (known == v) return true;
  return false;
}
inline bool is_session_protocol_version(std::string_view v) {
  for (auto known : kSessionProtocolVersions)
    if (known == v) return true;
  return false;
}

// 2026-07-28's error codes: a request header that disagrees with the body
// (HTTP 400), a tool that needs a client capability the request did not
// declare, and a protocol version this server does not speak.
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kMissingClientCapability = -32021;
inline constexpr int kUnsupportedProtocolVersion = -32022;

// The error code MCP gives an unknown resource (resources/read and
// resources/subscribe), with data {"uri": ...}; 2026-07-28 uses -32602.
inline constexpr int kResourceNotFound = -32002;
inline constexpr std::string_view kResourceNotFoundMessage = "Resource not found";

// completion/complete answers at most this many values (the spec's limit).
inline constexpr std::size_t kMaxCompletionValues = 100;

}  // namespace airlock::host
