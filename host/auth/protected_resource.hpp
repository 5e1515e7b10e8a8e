// What a client learns about this resource server before it has a token:
// the Protected Resource Metadata document (RFC 9728) and the
// WWW-Authenticate challenges of RFC 6750 that point to it, in the form the
// MCP authorization specification (2025-06-18 on) asks for.
#pragma once

#include "config/host_config.hpp"

#include <string>
#include <string_view>

namespace airlock::host {

// The path of the metadata for `resource` (RFC 9728 3.1: the well-known
// segment between the host and the resource's path), e.g.
// "/.well-known/oauth-protected-resource/mcp".
std::string metadata_path(std::string_view resource);

// The metadata's URL for `resource`.
std::string metadata_url(std::string_view resource);

// The resource identifier a request is served as: the configured one, else
// "http://<host><mcp_path>" from the request's (already checked) Host.
std::string resource_identifier(const OAuthConfig& config, std::string_view host, std::string_view mcp_path);

// True for the paths the metadata is served at: metadata_path(resource), and
// the bare "/.well-known/oauth-protected-resource" clients try next.
bool is_metadata_path(std::string_view path, std::string_view resource);

// The RFC 9728 document for `resource`: resource, authorization_servers,
// scopes_supported (the [auth.oauth.scopes] keys), bearer_methods_supported,
// and resource_name (the server's name, for a consent screen).
std::string metadata_document(const OAuthConfig& config, std::string_view resource, std::string_view name);

// `Bearer resource_metadata="<url>"`, with error="<error>" (and
// error_description, and scope) first when given. Quotes and backslashes,
// which no value here should hold, are dropped rather than escaped.
std::string bearer_challenge(std::string_view resource, std::string_view error = {},
                             std::string_view description = {}, std::string_view scope = {});

}  // namespace airlock::host
