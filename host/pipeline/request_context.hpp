// Who asked for a tool result: what a result sanitizer is told about the request.
#pragma once

#include <string>

namespace airlock::host {

class Metrics;

struct RequestContext {
  std::string protocol_version;
  std::string session_id;  // empty over stdio
  std::string caller;      // authenticated identity; empty when none
  std::string request_id;  // the JSON-RPC id as JSON text
  // Where the pipeline counts a sanitizer that withheld a result; null: not
  // counted. Not owned; outlives the request.
  Metrics* metrics = nullptr;
};

}  // namespace airlock::host
