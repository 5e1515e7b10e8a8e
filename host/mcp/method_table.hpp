// The one list of MCP requests airlock answers: each method's eras, what the
// server must have to serve it, and the Session member that does. Which era
// a message belongs to is decided here too, once, for stdio and HTTP alike:
// the transports only say what they saw (a session, a header).
#pragma once

#include "mcp/jsonrpc.hpp"

#include <cstdint>
#include <memory>
#include <string_view>

namespace airlock::host {

class Session;
struct RequestScope;
struct ServerState;

// The two ways a request reaches a server. `session`: 2025-06-18 and
// 2025-11-25, inside a session that initialize opened (they share one
// method set here). `modern`: 2026-07-28, each request on its own, with its
// version and capabilities in params._meta.
enum class Era : std::uint8_t { session = 1, modern = 2 };

// What a method needs besides the server itself; without it the method is
// not found (-32601), in both eras, and no capability names it.
enum class Needs : std::uint8_t { nothing, resources, prompts, completions, tasks };

struct Method {
  // The scope is null for a session's request: the session's own state
  // answers for it.
  using Handler = void (Session::*)(jsonrpc::Message&, const std::shared_ptr<const RequestScope>&);

  std::string_view name;
  std::uint8_t eras;  // bits of Era
  Needs needs;
  // Session era only: may come before initialize (initialize itself, ping).
  bool before_initialize;
  Handler handler;

  bool in(Era era) const { return (eras & static_cast<std::uint8_t>(era)) != 0; }
};

// The method named `name`, in either era; null when airlock has none.
const Method* find_method(std::string_view name);

// Whether `server` has what `method` needs.
bool serves(const ServerState& server, const Method& method);

// Why a method the server lacks is not found, for the error's message:
// "no plugin serves resources", "no task store is configured ([tasks])".
std::string_view unserved_reason(Needs needs);

// The era of one incoming message. `in_session`: it arrived inside a
// session (stdio after initialize; HTTP with an Mcp-Session-Id), which
// settles it. Otherwise it is 2026-07-28 when it carries that revision's
// _meta, names a method only 2026-07-28 has, or (HTTP) `protocol_header`
// names no session-era version; initialize always opens a session.
Era message_era(const jsonrpc::Message& m, bool in_session, std::string_view protocol_header = {});

}  // namespace airlock::host
