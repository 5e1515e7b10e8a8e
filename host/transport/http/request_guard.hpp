// The checks a request passes before anything reads its body: that each
// field airlock reads appears once, who may send it (Host and Origin,
// against DNS rebinding), what it says it carries (Content-Type), what it
// can take back (Accept), and which protocol revision it speaks
// (MCP-Protocol-Version).
#pragma once

#include "mcp/request_headers.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host::http {

// The fields airlock reads that a request may carry at most once. A second
// line would be read by airlock one way and by a proxy in front another
// (RFC 9112 section 3.2 makes a second Host a 400 outright), so none of them
// is ever chosen between: the request is refused.
inline constexpr std::string_view kSingletonHeaders[] = {
    "Host", "Origin", "Authorization", "Content-Type", "Content-Length",
    "Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID"};

// The first of kSingletonHeaders that `headers` holds more than once, or a
// Content-Length or Host that holds a comma-separated list (the same field
// repeated on one line), as spelled in kSingletonHeaders; or nullopt.
std::optional<std::string_view> repeated_singleton_header(const HeaderView& headers);

// Host names (optionally "host:port") and full origins a request may name.
struct HostPolicy {
  std::vector<std::string> hosts;    // "localhost" matches any port; "localhost:8808" only that one
  std::vector<std::string> origins;  // "http://localhost:8808"; empty: an origin whose host passes `hosts`
};

// The policy for a server bound to `bind_host`: the configured lists, or,
// when none is configured, the loopback names (plus `bind_host` itself
// when it is not loopback: the operator then chose to be reachable there).
HostPolicy make_host_policy(std::string_view bind_host, const std::vector<std::string>& hosts,
                            const std::vector<std::string>& origins);

bool is_loopback_host(std::string_view host);
bool host_allowed(std::string_view host_header, const HostPolicy& policy);
// An absent Origin (non-browser clients) passes; "null" and unparsable ones do not.
bool origin_allowed(std::string_view origin_header, const HostPolicy& policy);

struct Accepts {
  bool json = false;
  bool sse = false;
};
// Media ranges with q=0 are refusals; an absent header accepts anything.
Accepts parse_accept(std::string_view accept_header);

// application/json, with any parameters (charset), case-insensitively.
bool is_json_content_type(std::string_view content_type);

// The MCP-Protocol-Version values a request may carry in any session: every
// revision this host speaks, and 2025-03-26, which clients still send inside
// newer sessions and whose HTTP transport is the same.
bool protocol_header_accepted(std::string_view version);

}  // namespace airlock::host::http
