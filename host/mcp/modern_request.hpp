// Which era a message belongs to, and whether a 2026-07-28 request may be
// served: the checks the revision orders before any method runs, each with
// its error code and HTTP status. Shared by the HTTP transport (which has
// headers and answers with the status) and stdio (which has neither).
#pragma once

#include "mcp/jsonrpc.hpp"
#include "mcp/request_scope.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <variant>

namespace airlock::host {

struct ServerState;
class HeaderView;

// Whether params._meta holds the 2026-07-28 protocol version or client
// capabilities: what marks a request as standing alone.
bool carries_modern_meta(const jsonrpc::Message& m);

// Why a 2026-07-28 request is refused before any method runs.
struct Rejection {
  unsigned http_status = 400;
  int code = 0;
  std::string message;
  boost::json::value data;  // null: none
};

// The checks, in the revision's order: params._meta (-32602), the
// MCP-Protocol-Version header against it (-32020), the version (-32022), the
// Mcp-Method header (-32020), the method (-32601, HTTP 404), Mcp-Name
// (-32020), a tool's Mcp-Param-* headers (-32020), and the client
// capabilities a tool needs (-32021). `headers` is null over stdio, which
// has none to check. `in_scope` (may be empty: every tool) limits the tools
// the caller may see, as in a session.
std::variant<RequestScope, Rejection> admit_modern(const ServerState& server, const jsonrpc::Message& m,
                                                   const HeaderView* headers,
                                                   const std::function<bool(std::string_view)>& in_scope,
                                                   std::string caller);

// What this server can do, as initialize (`modern` false) and
// server/discover say it: a capability is declared only when its methods
// work (resources, prompts and completions only when a plugin serves them;
// tasks only with a task store: 2025's tasks capability, or 2026-07-28's
// tasks extension).
boost::json::object server_capabilities(const ServerState& server, bool modern);

// The tasks extension of 2026-07-28, as client capabilities declare it.
inline constexpr std::string_view kTasksExtension = "io.modelcontextprotocol/tasks";
bool declares_tasks_extension(const boost::json::object& client_capabilities);

}  // namespace airlock::host
