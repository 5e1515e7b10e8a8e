// One destination a tool's fetch reached or was refused: the provenance a
// tool result carries. Plain data, apart from the fetcher, so that what holds
// a result (plugins/plugin_types.hpp) needs neither the fetcher nor the
// resolver and policy behind it.
#pragma once

#include <cstdint>
#include <string>

namespace airlock::host {

// One destination the call reached or was refused: provenance.
struct EgressRecord {
  std::string url;       // Url::text of the hop; a URL or Location refused unread: as written, printable, cut short
  std::string host;      // empty when the URL was refused unread
  std::uint16_t port = 0;  // 0 when the URL was refused unread
  std::string address;   // the address connected to; empty when refused before connecting
  bool allowed = false;
  std::string rule;      // allowed: the grant's text; denied: why (names the destination and rule), or for a
                         // URL refused unread "url: <rule>" / "redirect: <rule>" (UrlRefusal::rule)
  int http_status = 0;
  std::uint64_t bytes = 0;  // body bytes kept
  bool truncated = false;
  std::string error;     // network error / timeout text for an allowed hop that failed
};

}  // namespace airlock::host
