// What every connection of one HTTP server shares: the settings, the
// sessions, the policies a request passes, and the server's own state.
#pragma once

#include "auth/oauth_authenticator.hpp"
#include "config/host_config.hpp"
#include "mcp/session.hpp"
#include "transport/http/auth.hpp"
#include "transport/http/body_budget.hpp"
#include "transport/http/io_relief.hpp"
#include "transport/http/rate_limiter.hpp"
#include "transport/http/request_guard.hpp"
#include "transport/http/session_table.hpp"

#include <spdlog/logger.h>

#include <atomic>
#include <cstdint>
#include <memory>

namespace airlock::host {
class Metrics;
}

namespace airlock::host::http {

struct ServerContext {
  const ServerState& server;
  const HttpConfig& config;
  std::size_t max_body_bytes;
  SessionTable& sessions;
  const Authenticator& auth;
  const OAuthAuthenticator& oauth;  // enabled() only with [auth.oauth]
  RateLimiter& rate;
  Metrics* metrics;  // null: not counted
  HostPolicy hosts;
  std::shared_ptr<spdlog::logger> access_log;  // null: off
  IoRelief* relief = nullptr;  // null: every call goes to the workers
  BodyBudget bodies{config.max_body_bytes_in_flight};  // large request bodies held at once

  std::atomic<bool> draining{false};  // shutting down: no new requests
  std::atomic<std::uint32_t> connections{0};
};

}  // namespace airlock::host::http
