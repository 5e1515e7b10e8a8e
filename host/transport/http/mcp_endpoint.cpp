#include "transport/http/mcp_endpoint.hpp"

#include "auth/protected_resource.hpp"
#include "executor/inline_calls.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/method_table.hpp"
#include "mcp/modern_request.hpp"
#include "metrics/metrics.hpp"
#include "util/json_text.hpp"

#include <fmt/format.h>

#include <functional>
#include <vector>

namespace airlock::host::http {
namespace beast_http = boost::beast::http;

namespace {

// What `identity` may see of the session's tools, resources and prompts.
void scope_to(Session& session, const std::shared_ptr<const Identity>& identity) {
  const auto only = [&identity](const Grant Identity::*grant) -> Session::ToolScope {
    if (((*identity).*grant).everything) return {};
    return [identity, grant](std::string_view name) { return ((*identity).*grant).allows(name); };
  };
  session.set_tool_scope(only(&Identity::tools));
  session.set_content_scope(only(&Identity::resources), only(&Identity::prompts));
}

// One request at the endpoint; lives on the stack while the request is
// handed to its session.
class McpEndpoint {
 public:
  McpEndpoint(ServerContext& ctx, Request& request, Exchange& exchange, const McpCaller& caller)
      : ctx_(ctx), request_(request), exchange_(exchange), caller_(caller) {}

  void serve() {
    switch (request_.method()) {
      case beast_http::verb::post: return post();
      case beast_http::verb::get: return get();
      case beast_http::verb::delete_: return delete_session();
      default: {
        auto response = Exchange::make_response(
            405, jsonrpc::error(nullptr, jsonrpc::kInvalidRequest, "Method Not Allowed: use POST, GET or DELETE"),
            "application/json");
        response->set(beast_http::field::allow, "GET, POST, DELETE");
        return exchange_.send(std::move(response), false);
      }
    }
  }

 private:
  void post();
  // A POST of 2026-07-28: one request served on its own exchange (an
  // HttpSession that is not a session), or a notification.
  void post_modern(jsonrpc::Message& message, bool sse, bool json);
  // True once a 403 insufficient_scope is sent for a request the token's scopes do not grant.
  bool refuse_out_of_scope(const jsonrpc::Message& message);
  // Hands a request to its session. A cheap tool call it starts runs here,
  // on this I/O thread, before this returns (io_relief.hpp): the answer is
  // then ready for the response without a hand-off.
  void dispatch(jsonrpc::Message& message, const std::function<void(jsonrpc::Message&)>& handle);
  void get();
  void delete_session();
  // The session the request names, or null after answering 400/404.
  std::shared_ptr<HttpSession> find_session();
  bool check_protocol_header();
  const std::string& identity() const { return exchange_.record().identity; }

  ServerContext& ctx_;
  Request& request_;
  Exchange& exchange_;
  const McpCaller& caller_;
};

bool McpEndpoint::refuse_out_of_scope(const jsonrpc::Message& message) {
  // RFC 6750 3.1 insufficient_scope, as the MCP authorization specification
  // asks: the token is good, but no scope it carries grants what the request
  // names, and the challenge names the scopes that would.
  const Identity* identity = caller_.identity.get();
  if (!identity || !identity->oauth || message.kind != jsonrpc::Message::Kind::request) return false;
  using Kind = OAuthAuthenticator::GrantKind;
  const auto* params = message.params.if_object();
  const auto named = [params](std::string_view field) -> const boost::json::string* {
    const auto* value = params ? params->if_contains(field) : nullptr;
    return value ? value->if_string() : nullptr;
  };
  const boost::json::string* name = nullptr;
  Kind kind = Kind::tool;
  const Grant* grant = nullptr;
  const char* what = "";
  if (message.method == "tools/call") {
    name = named("name"), kind = Kind::tool, grant = &identity->tools, what = "tool";
  } else if (message.method == "resources/read") {
    name = named("uri"), kind = Kind::resource, grant = &identity->resources, what = "resource";
  } else if (message.method == "prompts/get") {
    name = named("name"), kind = Kind::prompt, grant = &identity->prompts, what = "prompt";
  }
  if (!name || grant->allows(*name)) return false;
  const std::string needed = ctx_.oauth.scopes_granting(kind, *name);
  // What no scope grants is hidden from every token: the session answers as
  // for something unknown.
  if (needed.empty()) return false;
  exchange_.audit_refusal(403, "insufficient scope", {{what, name->subview(0, 256)}, {"scope", needed}});
  const std::string description = fmt::format("the token's scopes do not grant this {}", what);
  auto response = Exchange::make_response(
      403,
      jsonrpc::error(message.id, jsonrpc::kInvalidRequest,
                     fmt::format("Forbidden: {}; it needs one of: {}", description, needed)),
      "application/json");
  response->set(beast_http::field::www_authenticate,
                bearer_challenge(caller_.resource, "insufficient_scope", description, needed));
  exchange_.send(std::move(response), false);
  return true;
}

std::shared_ptr<HttpSession> McpEndpoint::find_session() {
  const std::string_view id = header(request_, "Mcp-Session-Id");
  if (id.empty()) {
    exchange_.respond_error(400, jsonrpc::kInvalidRequest, "Bad Request: the Mcp-Session-Id header is required");
    return nullptr;
  }
  auto session = ctx_.sessions.find(id, identity());
  if (!session) {
    exchange_.respond_error(404, kSessionNotFound, "Session not found: it expired, was deleted, or never existed");
    return nullptr;
  }
  session->touch();
  exchange_.record().session_tag = session->id().substr(0, 8);
  return session;
}

bool McpEndpoint::check_protocol_header() {
  const std::string_view version = header(request_, "MCP-Protocol-Version");
  if (version.empty() || protocol_header_accepted(version)) return true;
  exchange_.respond_error(400, jsonrpc::kInvalidRequest,
                          fmt::format("Bad Request: unsupported MCP-Protocol-Version: {}", version));
  return false;
}

void McpEndpoint::post() {
  if (!is_json_content_type(header(request_, "Content-Type")))
    return exchange_.respond_error(415, jsonrpc::kInvalidRequest,
                                   "Unsupported Media Type: the body must be sent as Content-Type: application/json");
  const Accepts accepts = parse_accept(header(request_, "Accept"));
  if (!accepts.json && !accepts.sse)
    return exchange_.respond_error(406, jsonrpc::kInvalidRequest,
                                   "Not Acceptable: Accept must allow application/json or text/event-stream");
  auto parsed = jsonrpc::parse(request_.body());
  if (auto* failure = std::get_if<jsonrpc::Failure>(&parsed))
    return exchange_.respond(400, jsonrpc::error(failure->id, failure->code, failure->message), "application/json");
  auto& message = std::get<jsonrpc::Message>(parsed);
  exchange_.record().rpc_method = message.method;
  const bool is_request = message.kind == jsonrpc::Message::Kind::request;
  if (refuse_out_of_scope(message)) return;

  // HTTP/1.0 has no chunked coding, so a 1.0 client that takes JSON gets
  // JSON with a Content-Length rather than a stream it would have to read
  // to the close.
  const bool json =
      !accepts.sse || (accepts.json && (exchange_.http10() || ctx_.config.response == HttpResponseMode::json));
  const bool in_session = !header(request_, "Mcp-Session-Id").empty();
  if (message_era(message, in_session, header(request_, "MCP-Protocol-Version")) == Era::modern)
    return post_modern(message, accepts.sse, json);
  if (!check_protocol_header()) return;

  std::shared_ptr<HttpSession> session;
  bool created = false;
  if (!in_session && is_request && message.method == "initialize") {
    session = ctx_.sessions.create(identity());
    if (!session) {
      auto response = Exchange::make_response(503,
                                               jsonrpc::error(message.id, jsonrpc::kServerBusy,
                                                              "Service Unavailable: too many live sessions "
                                                              "(transport.http.max_sessions)"),
                                               "application/json");
      response->set(beast_http::field::retry_after, "5");
      return exchange_.send(std::move(response), false);
    }
    session->mcp().set_transport("http", exchange_.peer_address());
    if (caller_.identity) {
      session->mcp().set_client(caller_.identity->client);
      scope_to(session->mcp(), caller_.identity);
    }
    created = true;
    exchange_.record().session_tag = session->id().substr(0, 8);
  } else {
    session = find_session();
    if (!session) return;
  }

  if (!is_request) {
    session->mcp().handle(message);
    return exchange_.respond(202, {}, {});
  }

  const std::string key = to_json(message.id);
  const auto stream = session->open_request_stream(key, json);
  if (!stream)
    return exchange_.respond(409,
                             jsonrpc::error(message.id, jsonrpc::kInvalidRequest,
                                            fmt::format("id {} is already in use by a request in flight", key)),
                             "application/json");
  exchange_.attach(session, *stream, 0, false);
  dispatch(message, [&](jsonrpc::Message& m) { session->mcp().handle(m); });

  if (created) {
    if (session->mcp().initialized()) {
      exchange_.announce_session(session->id());
      if (ctx_.metrics) ctx_.metrics->session_opened();
    } else {
      // A refused initialize leaves no session behind; its error still goes out.
      ctx_.sessions.remove(session->id(), identity());
    }
  }
  if (json) return exchange_.answer_json();
  exchange_.answer_stream();
}

void McpEndpoint::post_modern(jsonrpc::Message& message, bool sse, bool json) {
  using Kind = jsonrpc::Message::Kind;
  if (message.kind == Kind::response)
    return exchange_.respond(400,
                             jsonrpc::error(nullptr, jsonrpc::kInvalidRequest,
                                            "invalid request: a 2026-07-28 POST carries a request or a notification; "
                                            "this server sent no request to answer"),
                             "application/json");
  // Cancelling is closing the request's response; nothing else is said
  // without a session.
  if (message.kind == Kind::notification) return exchange_.respond(202, {}, {});

  const auto& identity = caller_.identity;
  std::function<bool(std::string_view)> in_scope;
  if (identity && !identity->tools.everything)
    in_scope = [identity](std::string_view tool) { return identity->allows_tool(tool); };
  const BeastHeaders headers(request_);
  auto admitted = admit_modern(ctx_.server, message, &headers, in_scope, this->identity());
  if (auto* rejected = std::get_if<Rejection>(&admitted))
    return exchange_.respond(rejected->http_status,
                             jsonrpc::error(message.id, rejected->code, rejected->message, rejected->data),
                             "application/json");
  const bool listen = message.method == "subscriptions/listen";
  if (listen && !sse)
    return exchange_.respond(406,
                             jsonrpc::error(message.id, jsonrpc::kInvalidRequest,
                                            "Not Acceptable: subscriptions/listen answers with an SSE stream; Accept "
                                            "must allow text/event-stream"),
                             "application/json");

  auto lone = ctx_.sessions.create_stateless(this->identity());
  lone->mcp().set_transport("http", exchange_.peer_address());
  if (identity) {
    lone->mcp().set_client(identity->client);
    scope_to(lone->mcp(), identity);
  }
  const std::string key = to_json(message.id);
  const auto stream = lone->open_request_stream(key, json && !listen);
  // Its events start at 1: there is no priming event to resume from.
  exchange_.attach(lone, *stream, 1, false);
  dispatch(message, [&](jsonrpc::Message& m) {
    lone->mcp().handle_modern(m, std::move(std::get<RequestScope>(admitted)));
  });
  if (json && !listen) return exchange_.answer_json();
  exchange_.answer_stream();
}

void McpEndpoint::dispatch(jsonrpc::Message& message, const std::function<void(jsonrpc::Message&)>& handle) {
  std::vector<InlineCalls::Job> cheap;
  {
    std::optional<InlineCalls> collecting;
    if (ctx_.relief && IoRelief::may_run_inline()) collecting.emplace(cheap);
    handle(message);
  }
  if (!cheap.empty()) ctx_.relief->run(cheap);
}

void McpEndpoint::get() {
  if (!parse_accept(header(request_, "Accept")).sse)
    return exchange_.respond_error(406, jsonrpc::kInvalidRequest,
                                   "Not Acceptable: GET opens an SSE stream; Accept must allow text/event-stream");
  if (!check_protocol_header()) return;
  auto session = find_session();
  if (!session) return;

  std::uint32_t stream = HttpSession::kStandaloneStream;
  std::optional<std::uint64_t> from;
  if (const std::string_view last = header(request_, "Last-Event-ID"); !last.empty()) {
    const auto at = parse_event_id(last);
    if (!at)
      return exchange_.respond_error(400, jsonrpc::kInvalidRequest,
                                     fmt::format("Bad Request: malformed Last-Event-ID: {}", last));
    stream = at->stream;
    from = at->seq + 1;
  } else if (!ctx_.config.standalone_stream) {
    auto response = Exchange::make_response(405,
                                            jsonrpc::error(nullptr, jsonrpc::kInvalidRequest,
                                                           "Method Not Allowed: this server offers no standalone "
                                                           "stream (transport.http.standalone_stream = false)"),
                                            "application/json");
    response->set(beast_http::field::allow, "POST, DELETE");
    return exchange_.send(std::move(response), false);
  }
  // Resuming takes the stream over from a connection the client gave up
  // on; a second standalone stream is refused (the spec allows one).
  switch (exchange_.attach(std::move(session), stream, from, from.has_value())) {
    case HttpSession::Attach::ok: return exchange_.answer_stream();
    case HttpSession::Attach::busy:
      return exchange_.respond_error(409, jsonrpc::kInvalidRequest,
                                     "Conflict: this session's standalone stream is already open");
    case HttpSession::Attach::unknown_stream:
      return exchange_.respond_error(404, jsonrpc::kInvalidRequest,
                                     "Not Found: Last-Event-ID names no stream this session still keeps "
                                     "(a stream written whole with its answer is not kept; the others within "
                                     "transport.http.replay_bytes)");
  }
}

void McpEndpoint::delete_session() {
  const std::string_view id = header(request_, "Mcp-Session-Id");
  if (id.empty())
    return exchange_.respond_error(400, jsonrpc::kInvalidRequest, "Bad Request: the Mcp-Session-Id header is required");
  if (!ctx_.sessions.remove(id, identity()))
    return exchange_.respond_error(404, kSessionNotFound, "Session not found: it expired, was deleted, or never existed");
  exchange_.record().session_tag = std::string(id.substr(0, 8));
  if (ctx_.metrics) ctx_.metrics->session_closed();
  exchange_.respond(204, {}, {});
}

}  // namespace

void serve_mcp(ServerContext& context, Request& request, Exchange& exchange, const McpCaller& caller) {
  McpEndpoint(context, request, exchange, caller).serve();
}

}  // namespace airlock::host::http
