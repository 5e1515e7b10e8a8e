// What a 2026-07-28 request says about itself. A session (2025 versions)
// learns the protocol version and the client's capabilities once, at
// initialize; a 2026-07-28 request carries them in its own params._meta, so
// each one is served with its own scope and nothing is remembered after it.
#pragma once

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace airlock::host {

struct RequestScope {
  std::string protocol_version;
  boost::json::object client_capabilities;  // _meta clientCapabilities
  std::string client_capabilities_json;     // the same, as JSON text
  // _meta logLevel: the least severe notifications/message the client wants;
  // none: it wants none.
  std::optional<int> log_level;
  // Who asked (the authenticated identity over HTTP; empty over stdio):
  // requestState is bound to it.
  std::string caller;
};

}  // namespace airlock::host
