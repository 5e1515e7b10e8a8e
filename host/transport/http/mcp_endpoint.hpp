// The MCP endpoint of Streamable HTTP: what a POST, GET or DELETE on the MCP
// path means once the front let it through. A POST carries one JSON-RPC
// message: a 2026-07-28 request is served on an exchange of its own, a
// session's request on a stream of its session, answered as JSON or SSE as
// the client accepts; GET opens (or resumes) a session's stream; DELETE ends
// a session.
#pragma once

#include "auth/identity.hpp"
#include "transport/http/exchange.hpp"
#include "transport/http/server_context.hpp"

#include <memory>
#include <string>

namespace airlock::host::http {

// Who the front authenticated: null without authentication; and the
// resource identifier OAuth challenges name (empty without OAuth).
struct McpCaller {
  std::shared_ptr<const Identity> identity;
  std::string resource;
};

void serve_mcp(ServerContext& context, Request& request, Exchange& exchange, const McpCaller& caller);

}  // namespace airlock::host::http
