#include "transport/http/request_guard.hpp"

#include "mcp/protocol.hpp"
#include "util/ascii.hpp"

#include <algorithm>

namespace airlock::host::http {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "host", "host:port", "[v6]", "[v6]:port" -> host (brackets kept) and port.
struct HostPort {
  std::string_view host;
  std::string_view port;  // empty when absent
};
HostPort split_host_port(std::string_view text) {
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos) return {text, {}};
    const auto rest = text.substr(close + 1);
    return {text.substr(0, close + 1), rest.starts_with(':') ? rest.substr(1) : std::string_view()};
  }
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return {text, {}};
  return {text.substr(0, colon), text.substr(colon + 1)};
}

}  // namespace

std::optional<std::string_view> repeated_singleton_header(const HeaderView& headers) {
  for (const std::string_view name : kSingletonHeaders) {
    if (headers.count(name) > 1) return name;
  }
  // One line holding a list is the same field repeated (RFC 9110 section
  // 5.3). RFC 9112 section 6.3 lets a reader take "5, 5" as 5; a proxy in
  // front may not, and neither name ever holds a comma of its own.
  for (const std::string_view name : {std::string_view("Content-Length"), std::string_view("Host")}) {
    if (const auto value = headers.get(name); value && value->find(',') != std::string_view::npos) return name;
  }
  return std::nullopt;
}

bool is_loopback_host(std::string_view host) {
  return iequals(host, "localhost") || host == "::1" || host == "[::1]" || host.starts_with("127.");
}

HostPolicy make_host_policy(std::string_view bind_host, const std::vector<std::string>& hosts,
                            const std::vector<std::string>& origins) {
  HostPolicy policy{hosts, origins};
  if (policy.hosts.empty()) {
    policy.hosts = {"localhost", "127.0.0.1", "[::1]"};
    if (!is_loopback_host(bind_host)) {
      const bool v6 = bind_host.find(':') != std::string_view::npos && !bind_host.starts_with('[');
      // Appended, not concatenated: GCC 12 at -O3 reports a false -Wrestrict
      // on "lit" + std::string (PR 105329).
      std::string host = v6 ? std::string("[") : std::string();
      host.append(bind_host);
      if (v6) host.push_back(']');
      policy.hosts.push_back(std::move(host));
    }
  }
  return policy;
}

bool host_allowed(std::string_view host_header, const HostPolicy& policy) {
  const HostPort seen = split_host_port(trim(host_header));
  if (seen.host.empty()) return false;
  return std::any_of(policy.hosts.begin(), policy.hosts.end(), [&](const std::string& entry) {
    const HostPort allowed = split_host_port(entry);
    return iequals(allowed.host, seen.host) && (allowed.port.empty() || allowed.port == seen.port);
  });
}

bool origin_allowed(std::string_view origin_header, const HostPolicy& policy) {
  const std::string_view origin = trim(origin_header);
  if (origin.empty()) return true;
  if (!policy.origins.empty())
    return std::any_of(policy.origins.begin(), policy.origins.end(),
                       [&](const std::string& entry) { return iequals(entry, origin); });
  const auto scheme_end = origin.find("://");
  if (scheme_end == std::string_view::npos) return false;  // includes "null"
  const std::string_view scheme = origin.substr(0, scheme_end);
  if (!iequals(scheme, "http") && !iequals(scheme, "https")) return false;
  const std::string_view authority = origin.substr(scheme_end + 3);
  if (authority.find('/') != std::string_view::npos || authority.find('@') != std::string_view::npos) return false;
  return host_allowed(authority, policy);
}

Accepts parse_accept(std::string_view header) {
  Accepts accepts;
  if (trim(header).empty()) return {true, true};
  while (!header.empty()) {
    const auto comma = header.find(',');
    std::string_view range = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
    std::string_view type = trim(range.substr(0, range.find(';')));
    bool refused = false;
    for (auto semi = range.find(';'); semi != std::string_view::npos; semi = range.find(';', semi + 1)) {
      std::string_view param = trim(range.substr(semi + 1, range.find(';', semi + 1) - semi - 1));
      if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
        const std::string_view q = trim(param.substr(2));
        refused = !q.empty() && q.find_first_not_of("0.") == std::string_view::npos;
      }
    }
    if (refused) continue;
    if (iequals(type, "*/*")) accepts = {true, true};
    if (iequals(type, "application/*") || iequals(type, "application/json")) accepts.json = true;
    if (iequals(type, "text/*") || iequals(type, "text/event-stream")) accepts.sse = true;
  }
  return accepts;
}

bool is_json_content_type(std::string_view content_type) {
  return iequals(trim(content_type.substr(0, content_type.find(';'))), "application/json");
}

bool protocol_header_accepted(std::string_view version) {
  if (version == "2025-03-26") return true;
  return std::find(kProtocolVersions.begin(), kProtocolVersions.end(), version) != kProtocolVersions.end();
}

}  // namespace airlock::host::http
