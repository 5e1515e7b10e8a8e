// Who asked for a tool result: what a result sanitizer is told about the request.
#pragma once

#include <airlock/airlock.h>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace airlock::host {

class Metrics;

// Every text here is borrowed, not owned: from the session, the request's
// scope and the call, which all outlive the request it describes (a
// context lives on the stack of the thread serving the request). Built for
// every call, it took a copy of each before.
struct RequestContext {
  std::string_view protocol_version;
  std::string_view session_id;  // empty over stdio
  std::string_view caller;      // authenticated identity; empty when none
  std::string_view request_id;  // the JSON-RPC id as JSON text
  // What the client declared it can do, as JSON: at initialize, or in a
  // 2026-07-28 request's own _meta.
  std::string_view client_capabilities = "{}";
  // Where the pipeline counts a sanitizer that withheld a result; null: not
  // counted. Not owned; outlives the request.
  Metrics* metrics = nullptr;
  // Set for a 2026-07-28 request: {name, version} of this server, which
  // every result of that revision carries in _meta, next to resultType
  // (stamped after the chain, so no sanitizer can forge either). Not owned.
  const boost::json::object* modern_server_info = nullptr;
  // How the request arrived, for the audit trail: "stdio" or "http", and
  // the peer's address over HTTP.
  std::string_view transport = {};
  std::string_view peer_address = {};
  // The OAuth client_id of the caller's token, for the audit trail; empty
  // for a static token, stdio, or no authentication. Plugins are not told.
  std::string_view client = {};
  // The call's arguments as the session already parsed them, so the audit
  // trail's digest of them does not parse them again; null: parse the text.
  // Not owned; outlives the request.
  const boost::json::value* arguments = nullptr;

  // The airlock_request_context a plugin hook gets; borrows from this.
  airlock_request_context raw() const {
    return airlock_request_context{sizeof(airlock_request_context), borrow_str(protocol_version),
                                   borrow_str(session_id), borrow_str(caller), borrow_str(request_id),
                                   borrow_str(client_capabilities)};
  }

 private:
  static airlock_str borrow_str(std::string_view s) { return airlock_str{s.data(), s.size()}; }
};

}  // namespace airlock::host
