#include "transport/http/http_front.hpp"

#include "auth/protected_resource.hpp"
#include "mcp/jsonrpc.hpp"
#include "metrics/metrics.hpp"
#include "transport/http/mcp_endpoint.hpp"

#include <fmt/format.h>

#include <chrono>

namespace airlock::host::http {
namespace beast_http = boost::beast::http;

void HttpFront::serve(Request& request, Exchange& exchange) const {
  ServerContext& ctx = *context_;
  auto& record = exchange.record();
  // Before any check reads one of them: a check and a proxy in front must
  // not each pick a different line. The connection closes, as after any
  // request whose framing a reader could take two ways.
  const std::string_view target(request.target().data(), request.target().size());
  const std::string_view path = target.substr(0, target.find('?'));
  record.path = std::string(path.substr(0, 128));
  if (const auto repeated = repeated_singleton_header(BeastHeaders(request))) {
    exchange.audit_refusal(400, fmt::format("duplicate {} header", *repeated));
    return exchange.respond_error(400, jsonrpc::kInvalidRequest,
                                  fmt::format("Bad Request: duplicate {} header", *repeated), true);
  }

  // DNS rebinding: a page on a hostile name that resolves to loopback still
  // says its own name in Host and Origin.
  const std::string_view host = header(request, "Host");
  if (!host_allowed(host, ctx.hosts)) {
    exchange.audit_refusal(403, "Host not allowed", {{"host", host.substr(0, 256)}});
    return exchange.respond_error(403, jsonrpc::kServerBusy, fmt::format("Invalid Host: {}", host));
  }
  if (const std::string_view origin = header(request, "Origin"); !origin_allowed(origin, ctx.hosts)) {
    exchange.audit_refusal(403, "Origin not allowed", {{"origin", origin.substr(0, 256)}});
    return exchange.respond_error(403, jsonrpc::kServerBusy, fmt::format("Invalid Origin: {}", origin));
  }

  const bool is_mcp = path == ctx.config.path;
  const bool is_metrics = path == "/metrics";
  const bool reads = request.method() == beast_http::verb::get || request.method() == beast_http::verb::head;
  if (path == "/healthz") {
    if (!reads) return exchange.respond(405, "method not allowed\n", "text/plain");
    return exchange.respond(200, ctx.draining.load() ? "draining\n" : "ok\n", "text/plain");
  }
  // RFC 9728: what a client reads before it has a token, so before the check.
  std::string resource;
  if (ctx.oauth.enabled()) {
    resource = resource_identifier(ctx.server.config.oauth, host, ctx.config.path);
    if (is_metadata_path(path, resource)) {
      if (!reads) return exchange.respond(405, "method not allowed\n", "text/plain");
      return exchange.respond(200, metadata_document(ctx.server.config.oauth, resource, ctx.server.config.server.name),
                              "application/json");
    }
  }
  if (!is_mcp && !is_metrics) return exchange.respond(404, "not found\n", "text/plain");

  std::shared_ptr<const Identity> identity;
  if (ctx.auth.enabled() || ctx.oauth.enabled()) {
    identity = authenticate(request, exchange, resource);
    if (!identity) return;
    record.identity = identity->name;
    record.client = identity->client;
  }

  const auto admitted = ctx.rate.admit(record.identity.empty() ? exchange.peer_address() : record.identity,
                                       std::chrono::steady_clock::now());
  if (!admitted.allowed) {
    exchange.audit_refusal(429, "over the rate limit");
    auto response = Exchange::make_response(
        429,
        jsonrpc::error(nullptr, jsonrpc::kServerBusy, "Too Many Requests: over the rate limit (transport.http.rate_limit)"),
        "application/json");
    response->set(beast_http::field::retry_after, std::to_string(std::max<long>(1, admitted.retry_after.count())));
    return exchange.send(std::move(response), false);
  }

  if (is_metrics) {
    if (request.method() != beast_http::verb::get) return exchange.respond(405, "method not allowed\n", "text/plain");
    return exchange.respond(200, ctx.metrics ? ctx.metrics->render() : std::string(),
                            "text/plain; version=0.0.4; charset=utf-8");
  }
  if (ctx.draining.load())
    return exchange.respond_error(503, jsonrpc::kServerBusy, "Service Unavailable: the server is shutting down", true);
  serve_mcp(ctx, request, exchange, McpCaller{std::move(identity), std::move(resource)});
}

std::shared_ptr<const Identity> HttpFront::authenticate(const Request& request, Exchange& exchange,
                                                        const std::string& resource) const {
  ServerContext& ctx = *context_;
  const auto credentials = bearer_credentials(header(request, "Authorization"));
  std::shared_ptr<const Identity> identity;
  std::string reason;
  if (credentials.verdict == BearerCredentials::Verdict::ok) {
    // A configured token first: it is a digest compare, and static tokens
    // keep working beside OAuth.
    if (ctx.auth.enabled()) identity = ctx.auth.match(credentials.token).identity;
    if (!identity && ctx.oauth.enabled()) {
      auto outcome = ctx.oauth.authenticate(credentials.token, resource);
      identity = std::move(outcome.identity);
      reason = std::move(outcome.reason);
    }
    if (identity) return identity;
  }

  const bool missing = credentials.verdict == BearerCredentials::Verdict::missing;
  exchange.audit_refusal(401, missing ? "no bearer token" : "bearer token not valid");
  std::string message = missing ? "Unauthorized: a bearer token is required"
                                : "Unauthorized: the bearer token is not valid";
  if (!reason.empty()) message += ": " + reason;
  auto response =
      Exchange::make_response(401, jsonrpc::error(nullptr, jsonrpc::kInvalidRequest, message), "application/json");
  if (ctx.oauth.enabled()) {
    // RFC 6750 3.1: a request without a token gets no error code.
    response->set(beast_http::field::www_authenticate,
                  missing ? bearer_challenge(resource)
                          : bearer_challenge(resource, "invalid_token",
                                             reason.empty() ? "the bearer token is not valid" : reason));
  } else {
    response->set(beast_http::field::www_authenticate,
                  www_authenticate(missing ? Authenticator::Verdict::missing : Authenticator::Verdict::invalid));
  }
  exchange.send(std::move(response), false);
  return nullptr;
}

}  // namespace airlock::host::http
