// Who an HTTP request stands for once authenticated, by a static bearer
// token ([[transport.http.tokens]]) or an OAuth access token ([auth.oauth]),
// and which tools that caller may list and call.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace airlock::host {

// Globs over one kind of name (tools, resource URIs, prompts).
struct Grant {
  std::vector<std::string> globs;
  bool everything = true;  // false: only what globs match (nothing, if it is empty)

  bool allows(std::string_view name) const;
};

struct Identity {
  // What logs, metrics, rate limits, the audit trail and session and task
  // ownership use: a token's configured name, or "oauth:<sub>" (with
  // "@<issuer>" when several issuers are configured), printable ASCII.
  std::string name;
  std::string client;  // OAuth client_id; empty for a static token
  Grant tools;      // what may be listed and called; nothing outside is either
  Grant resources;  // by URI (a template by its uriTemplate text)
  Grant prompts;
  bool oauth = false;  // an OAuth access token's bearer: a request beyond its scopes is a 403

  bool allows_tool(std::string_view tool) const { return tools.allows(tool); }
};

}  // namespace airlock::host
