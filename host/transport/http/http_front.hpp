// The HTTP front: what a request passes before MCP sees it, in this order.
// Repeated singleton fields, Host and Origin (DNS rebinding), the health
// check, the RFC 9728 metadata a client reads before it has a token, the
// path, the bearer token (auth.cpp, or OAuth through auth/), the rate limit,
// /metrics, and shutdown. What passes goes to the MCP endpoint. Every
// refusal is answered here, with a status and text that name what was
// wrong, and recorded in the audit trail.
#pragma once

#include "transport/http/exchange.hpp"
#include "transport/http/server_context.hpp"

#include <memory>

namespace airlock::host::http {

class HttpFront final : public RequestHandler {
 public:
  explicit HttpFront(std::shared_ptr<ServerContext> context) : context_(std::move(context)) {}

  void serve(Request& request, Exchange& exchange) const override;

 private:
  // The identity the request's bearer token stands for; null once a 401 is sent.
  std::shared_ptr<const Identity> authenticate(const Request& request, Exchange& exchange,
                                               const std::string& resource) const;

  const std::shared_ptr<ServerContext> context_;
};

}  // namespace airlock::host::http
