// The life of one connection. Handlers run on its strand, so the state below
// needs no lock; sessions wake it from workers through wake(), which only
// posts. Timeouts hang off one timer whose meaning follows the state: idle
// (keep-alive), reading (slow clients), streaming (quiet stream: keep-alive
// comment; stuck write: close).
#include "transport/http/connection.hpp"

#include "audit/audit_trail.hpp"
#include "auth/protected_resource.hpp"

#include "mcp/jsonrpc.hpp"
#include "mcp/method_table.hpp"
#include "mcp/modern_request.hpp"
#include "mcp/protocol.hpp"
#include "mcp/request_headers.hpp"
#include "metrics/metrics.hpp"
#include "transport/http/sse.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace airlock::host::http {
namespace beast_http = boost::beast::http;
using namespace std::chrono_literals;

namespace {

// A stream write that makes no progress for this long is a client that
// stopped reading; its connection is closed rather than held.
constexpr auto kWriteTimeout = 30s;
// How long an SSE stream may stay silent before a comment checks the client.
constexpr auto kKeepAliveInterval = 20s;

std::string describe_peer(const Connection::Socket& socket) {
  boost::system::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  if (ec) return "?";
  return endpoint.address().is_v6() ? fmt::format("[{}]:{}", endpoint.address().to_string(), endpoint.port())
                                    : fmt::format("{}:{}", endpoint.address().to_string(), endpoint.port());
}

std::string peer_address(const std::string& peer) { return peer.substr(0, peer.rfind(':')); }

std::string_view header(const beast_http::request<beast_http::string_body>& request, std::string_view name) {
  auto it = request.find(boost::beast::string_view(name.data(), name.size()));
  return it == request.end() ? std::string_view() : std::string_view(it->value().data(), it->value().size());
}

// A request's headers as admit_modern reads them (Beast compares names
// case-insensitively).
class BeastHeaders final : public HeaderView {
 public:
  explicit BeastHeaders(const beast_http::request<beast_http::string_body>& request) : request_(request) {}
  std::size_t count(std::string_view name) const override {
    return request_.count(boost::beast::string_view(name.data(), name.size()));
  }
  std::optional<std::string_view> get(std::string_view name) const override {
    auto it = request_.find(boost::beast::string_view(name.data(), name.size()));
    if (it == request_.end()) return std::nullopt;
    return std::string_view(it->value().data(), it->value().size());
  }

 private:
  const beast_http::request<beast_http::string_body>& request_;
};

}  // namespace

Connection::Connection(Socket socket, std::shared_ptr<ServerContext> context)
    : context_(std::move(context)),
      ctx_(*context_), socket_(std::move(socket)), timer_(socket_.get_executor()), peer_(describe_peer(socket_)) {
  ctx_.connections.fetch_add(1);
}

Connection::~Connection() { ctx_.connections.fetch_sub(1); }

void Connection::start() { await_request(); }

void Connection::wake() {
  boost::asio::post(socket_.get_executor(), [self = shared_from_this()] {
    if (self->state_ == State::streaming) self->pump();
    else if (self->state_ == State::waiting_json) self->finish_json();
  });
}

void Connection::drain() {
  boost::asio::post(socket_.get_executor(), [self = shared_from_this()] {
    self->draining_ = true;
    if (self->state_ == State::idle) self->close();
  });
}

// ---- reading ---------------------------------------------------------------

void Connection::await_request() {
  state_ = State::idle;
  if (draining_ || ctx_.draining.load()) return close();
  if (buffer_.size() > 0) {
    // A request already buffered (pipelined) behind the last one; a read
    // still watching for hang-up must finish first, so it is cut short.
    if (socket_read_pending_) {
      boost::system::error_code ignored;
      socket_.cancel(ignored);
      return;
    }
    return read_request();
  }
  arm_timer(std::chrono::milliseconds(ctx_.config.idle_timeout_ms));
  if (socket_read_pending_) return;
  socket_read_pending_ = true;
  socket_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
    self->on_first_bytes(ec, n);
  });
}

void Connection::on_first_bytes(boost::system::error_code ec, std::size_t n) {
  socket_read_pending_ = false;
  if (state_ == State::closed) return;
  buffer_.commit(n);
  if (ec == boost::asio::error::operation_aborted && state_ == State::idle && buffer_.size() > 0) return read_request();
  // End of input while a response is pending is a client that hung up; the
  // call goes on (HTTP says nothing about cancelling it), its events stay
  // kept for a resume.
  if (ec) return close();
  if (state_ == State::idle) read_request();
  // Otherwise a pipelined request: it waits in buffer_ for the response.
}

void Connection::read_request() {
  state_ = State::reading;
  timed_out_ = false;
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(ctx_.config.max_header_bytes));
  parser_->body_limit(ctx_.max_body_bytes);
  arm_timer(std::chrono::milliseconds(ctx_.config.read_timeout_ms));
  beast_http::async_read(socket_, buffer_, *parser_,
                         [self = shared_from_this()](boost::system::error_code ec, std::size_t) { self->on_read(ec); });
}

void Connection::on_read(boost::system::error_code ec) {
  disarm_timer();
  if (state_ == State::closed) return;
  started_ = std::chrono::steady_clock::now();
  method_ = "-";
  path_ = "-";
  rpc_method_.clear();
  identity_.clear();
  client_.clear();
  session_tag_.clear();
  bytes_out_ = 0;
  keep_alive_ = false;
  if (timed_out_)
    return respond_error(408, jsonrpc::kInvalidRequest,
                         fmt::format("Request Timeout: the request did not arrive within {} ms "
                                     "(transport.http.read_timeout_ms)", ctx_.config.read_timeout_ms), true);
  if (ec == beast_http::error::end_of_stream || ec == boost::asio::error::eof ||
      ec == boost::asio::error::connection_reset)
    return close();
  if (ec == beast_http::error::header_limit)
    return respond_error(431, jsonrpc::kInvalidRequest,
                         fmt::format("Request Header Fields Too Large: over {} bytes (transport.http.max_header_bytes)",
                                     ctx_.config.max_header_bytes), true);
  if (ec == beast_http::error::body_limit)
    return respond_error(413, jsonrpc::kInvalidRequest,
                         fmt::format("Payload Too Large: the body exceeds {} bytes (server.max_message_bytes)",
                                     ctx_.max_body_bytes), true);
  if (ec) return respond_error(400, jsonrpc::kInvalidRequest, fmt::format("Bad Request: {}", ec.message()), true);
  Request request = parser_->release();
  parser_.reset();
  handle(request);
}

// ---- routing ---------------------------------------------------------------

void Connection::audit_refusal(unsigned status, std::string_view reason, boost::json::object detail) const {
  if (!audit::enabled()) return;
  audit::Event event;
  event.kind = status == 401 ? audit::Kind::auth_failed
               : status == 429 ? audit::Kind::rate_limited
                               : audit::Kind::request_refused;
  event.failed = true;
  event.outcome = "refused";
  event.actor.transport = "http";
  event.actor.address = peer_address(peer_);
  event.actor.caller = identity_;
  event.actor.client = client_;
  event.subject = path_;
  event.reason = std::string(reason);
  event.http_method = method_.substr(0, 16);
  event.http_path = path_;
  event.http_status = status;
  event.detail = std::move(detail);
  audit::record(std::move(event));
}

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

}  // namespace

std::shared_ptr<const Identity> Connection::authenticate(const Request& request, const std::string& resource) {
  const auto credentials = bearer_credentials(header(request, "Authorization"));
  std::shared_ptr<const Identity> identity;
  std::string reason;
  if (credentials.verdict == BearerCredentials::Verdict::ok) {
    // A configured token first: it is a digest compare, and static tokens
    // keep working beside OAuth.
    if (ctx_.auth.enabled()) identity = ctx_.auth.match(credentials.token).identity;
    if (!identity && ctx_.oauth.enabled()) {
      auto outcome = ctx_.oauth.authenticate(credentials.token, resource);
      identity = std::move(outcome.identity);
      reason = std::move(outcome.reason);
    }
    if (identity) return identity;
  }

  const bool missing = credentials.verdict == BearerCredentials::Verdict::missing;
  audit_refusal(401, missing ? "no bearer token" : "bearer token not valid");
  std::string message = missing ? "Unauthorized: a bearer token is required"
                                : "Unauthorized: the bearer token is not valid";
  if (!reason.empty()) message += ": " + reason;
  auto response = make_response(401, jsonrpc::error(nullptr, jsonrpc::kInvalidRequest, message), "application/json");
  if (ctx_.oauth.enabled()) {
    // RFC 6750 3.1: a request without a token gets no error code.
    response->set(beast_http::field::www_authenticate,
                  missing ? bearer_challenge(resource)
                          : bearer_challenge(resource, "invalid_token",
                                             reason.empty() ? "the bearer token is not valid" : reason));
  } else {
    response->set(beast_http::field::www_authenticate,
                  www_authenticate(missing ? Authenticator::Verdict::missing : Authenticator::Verdict::invalid));
  }
  send(std::move(response), false);
  return nullptr;
}

bool Connection::refuse_out_of_scope(const jsonrpc::Message& message, const Identity* identity,
                                     const std::string& resource) {
  // RFC 6750 3.1 insufficient_scope, as the MCP authorization specification
  // asks: the token is good, but no scope it carries grants what the request
  // names, and the challenge names the scopes that would.
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
  audit_refusal(403, "insufficient scope", {{what, name->subview(0, 256)}, {"scope", needed}});
  const std::string description = fmt::format("the token's scopes do not grant this {}", what);
  auto response = make_response(
      403, jsonrpc::error(message.id, jsonrpc::kInvalidRequest,
                          fmt::format("Forbidden: {}; it needs one of: {}", description, needed)),
      "application/json");
  response->set(beast_http::field::www_authenticate,
                bearer_challenge(resource, "insufficient_scope", description, needed));
  send(std::move(response), false);
  return true;
}

void Connection::handle(Request& request) {
  state_ = State::handling;
  method_ = std::string(request.method_string());
  keep_alive_ = request.keep_alive();
  http10_ = request.version() < 11;

  // Before any check reads one of them: a check and a proxy in front must
  // not each pick a different line. The connection closes, as after any
  // request whose framing a reader could take two ways.
  const std::string_view target(request.target().data(), request.target().size());
  const std::string_view path = target.substr(0, target.find('?'));
  path_ = std::string(path.substr(0, 128));
  if (const auto repeated = repeated_singleton_header(BeastHeaders(request))) {
    audit_refusal(400, fmt::format("duplicate {} header", *repeated));
    return respond_error(400, jsonrpc::kInvalidRequest, fmt::format("Bad Request: duplicate {} header", *repeated),
                         true);
  }

  // DNS rebinding: a page on a hostile name that resolves to loopback still
  // says its own name in Host and Origin.
  const std::string_view host = header(request, "Host");
  if (!host_allowed(host, ctx_.hosts)) {
    audit_refusal(403, "Host not allowed", {{"host", host.substr(0, 256)}});
    return respond_error(403, jsonrpc::kServerBusy, fmt::format("Invalid Host: {}", host));
  }
  if (const std::string_view origin = header(request, "Origin"); !origin_allowed(origin, ctx_.hosts)) {
    audit_refusal(403, "Origin not allowed", {{"origin", origin.substr(0, 256)}});
    return respond_error(403, jsonrpc::kServerBusy, fmt::format("Invalid Origin: {}", origin));
  }

  const bool is_mcp = path == ctx_.config.path;
  const bool is_metrics = path == "/metrics";
  if (path == "/healthz") {
    if (request.method() != beast_http::verb::get && request.method() != beast_http::verb::head)
      return respond(405, "method not allowed\n", "text/plain");
    return respond(200, ctx_.draining.load() ? "draining\n" : "ok\n", "text/plain");
  }
  // RFC 9728: what a client reads before it has a token, so before the check.
  std::string resource;
  if (ctx_.oauth.enabled()) {
    resource = resource_identifier(ctx_.server.config.oauth, host, ctx_.config.path);
    if (is_metadata_path(path, resource)) {
      if (request.method() != beast_http::verb::get && request.method() != beast_http::verb::head)
        return respond(405, "method not allowed\n", "text/plain");
      return respond(200, metadata_document(ctx_.server.config.oauth, resource, ctx_.server.config.server.name), "application/json");
    }
  }
  if (!is_mcp && !is_metrics) return respond(404, "not found\n", "text/plain");

  std::shared_ptr<const Identity> identity;
  if (ctx_.auth.enabled() || ctx_.oauth.enabled()) {
    identity = authenticate(request, resource);
    if (!identity) return;
    identity_ = identity->name;
    client_ = identity->client;
  }

  const auto admitted = ctx_.rate.admit(identity_.empty() ? peer_address(peer_) : identity_,
                                        std::chrono::steady_clock::now());
  if (!admitted.allowed) {
    audit_refusal(429, "over the rate limit");
    auto response = make_response(429, jsonrpc::error(nullptr, jsonrpc::kServerBusy,
                                                      "Too Many Requests: over the rate limit (transport.http.rate_limit)"),
                                  "application/json");
    response->set(beast_http::field::retry_after, std::to_string(std::max<long>(1, admitted.retry_after.count())));
    return send(std::move(response), false);
  }

  if (is_metrics) {
    if (request.method() != beast_http::verb::get) return respond(405, "method not allowed\n", "text/plain");
    return respond(200, ctx_.metrics ? ctx_.metrics->render() : std::string(), "text/plain; version=0.0.4; charset=utf-8");
  }
  if (ctx_.draining.load())
    return respond_error(503, jsonrpc::kServerBusy, "Service Unavailable: the server is shutting down", true);

  switch (request.method()) {
    case beast_http::verb::post: return handle_post(request, identity, resource);
    case beast_http::verb::get: return handle_get(request);
    case beast_http::verb::delete_: return handle_delete(request);
    default: {
      auto response = make_response(405, jsonrpc::error(nullptr, jsonrpc::kInvalidRequest,
                                                        "Method Not Allowed: use POST, GET or DELETE"),
                                    "application/json");
      response->set(beast_http::field::allow, "GET, POST, DELETE");
      return send(std::move(response), false);
    }
  }
}

std::shared_ptr<HttpSession> Connection::find_session(const Request& request, bool& answered) {
  answered = true;
  const std::string_view id = header(request, "Mcp-Session-Id");
  if (id.empty()) {
    respond_error(400, jsonrpc::kInvalidRequest, "Bad Request: the Mcp-Session-Id header is required");
    return nullptr;
  }
  auto session = ctx_.sessions.find(id, identity_);
  if (!session) {
    respond_error(404, kSessionNotFound, "Session not found: it expired, was deleted, or never existed");
    return nullptr;
  }
  answered = false;
  session->touch();
  session_tag_ = session->id().substr(0, 8);
  return session;
}

bool Connection::check_protocol_header(const Request& request) {
  const std::string_view version = header(request, "MCP-Protocol-Version");
  if (version.empty() || protocol_header_accepted(version)) return true;
  respond_error(400, jsonrpc::kInvalidRequest,
                fmt::format("Bad Request: unsupported MCP-Protocol-Version: {}", version));
  return false;
}

void Connection::handle_post(Request& request, const std::shared_ptr<const Identity>& identity,
                             const std::string& resource) {
  if (!is_json_content_type(header(request, "Content-Type")))
    return respond_error(415, jsonrpc::kInvalidRequest,
                         "Unsupported Media Type: the body must be sent as Content-Type: application/json");
  const Accepts accepts = parse_accept(header(request, "Accept"));
  if (!accepts.json && !accepts.sse)
    return respond_error(406, jsonrpc::kInvalidRequest,
                         "Not Acceptable: Accept must allow application/json or text/event-stream");
  auto parsed = jsonrpc::parse(request.body());
  if (auto* failure = std::get_if<jsonrpc::Failure>(&parsed))
    return respond(400, jsonrpc::error(failure->id, failure->code, failure->message), "application/json");
  auto& message = std::get<jsonrpc::Message>(parsed);
  rpc_method_ = message.method;
  const bool is_request = message.kind == jsonrpc::Message::Kind::request;
  if (refuse_out_of_scope(message, identity.get(), resource)) return;

  // The era is known only from the body: a 2026-07-28 request has no
  // session, and its own header rules.
  // HTTP/1.0 has no chunked coding, so a 1.0 client that takes JSON gets
  // JSON with a Content-Length rather than a stream it would have to read
  // to the close.
  const bool json = !accepts.sse || (accepts.json && (http10_ || ctx_.config.response == HttpResponseMode::json));
  const bool in_session = !header(request, "Mcp-Session-Id").empty();
  if (message_era(message, in_session, header(request, "MCP-Protocol-Version")) == Era::modern)
    return handle_modern_post(request, message, identity, accepts.sse, json);
  if (!check_protocol_header(request)) return;

  std::shared_ptr<HttpSession> session;
  bool created = false;
  if (header(request, "Mcp-Session-Id").empty() && is_request && message.method == "initialize") {
    session = ctx_.sessions.create(identity_);
    if (session) session->mcp().set_transport("http", peer_address(peer_));
    if (session && identity) session->mcp().set_client(identity->client);
    if (!session) {
      auto response = make_response(503, jsonrpc::error(message.id, jsonrpc::kServerBusy,
                                                        "Service Unavailable: too many live sessions "
                                                        "(transport.http.max_sessions)"),
                                    "application/json");
      response->set(beast_http::field::retry_after, "5");
      return send(std::move(response), false);
    }
    created = true;
    session_tag_ = session->id().substr(0, 8);
    if (identity) scope_to(session->mcp(), identity);
  } else {
    bool answered = false;
    session = find_session(request, answered);
    if (answered) return;
  }

  if (!is_request) {
    session->mcp().handle(message);
    return respond(202, {}, {});
  }

  const std::string key = boost::json::serialize(message.id);
  const auto stream = session->open_request_stream(key, json);
  if (!stream)
    return respond(409, jsonrpc::error(message.id, jsonrpc::kInvalidRequest,
                                       fmt::format("id {} is already in use by a request in flight", key)),
                   "application/json");
  session_ = session;
  stream_ = *stream;
  session->attach(stream_, shared_from_this(), 0, cursor_, false);
  dispatch(message, [&](jsonrpc::Message& m) { session->mcp().handle(m); });

  if (created) {
    if (session->mcp().initialized()) {
      new_session_id_ = session->id();
      if (ctx_.metrics) ctx_.metrics->session_opened();
    } else {
      // A refused initialize leaves no session behind; its error still goes out.
      ctx_.sessions.remove(session->id(), identity_);
    }
  }
  if (json) {
    state_ = State::waiting_json;
    watch_for_hang_up();
    return finish_json();
  }
  start_stream(200);
}

void Connection::handle_modern_post(Request& request, jsonrpc::Message& message,
                                    const std::shared_ptr<const Identity>& identity, bool sse, bool json) {
  using Kind = jsonrpc::Message::Kind;
  if (message.kind == Kind::response)
    return respond(400, jsonrpc::error(nullptr, jsonrpc::kInvalidRequest,
                                       "invalid request: a 2026-07-28 POST carries a request or a notification; "
                                       "this server sent no request to answer"),
                   "application/json");
  // Cancelling is closing the request's response; nothing else is said
  // without a session.
  if (message.kind == Kind::notification) return respond(202, {}, {});

  std::function<bool(std::string_view)> in_scope;
  if (identity && !identity->tools.everything)
    in_scope = [identity](std::string_view tool) { return identity->allows_tool(tool); };
  const BeastHeaders headers(request);
  auto admitted = admit_modern(ctx_.server, message, &headers, in_scope, identity_);
  if (auto* rejected = std::get_if<Rejection>(&admitted))
    return respond(rejected->http_status, jsonrpc::error(message.id, rejected->code, rejected->message, rejected->data),
                   "application/json");
  const bool listen = message.method == "subscriptions/listen";
  if (listen && !sse)
    return respond(406, jsonrpc::error(message.id, jsonrpc::kInvalidRequest,
                                       "Not Acceptable: subscriptions/listen answers with an SSE stream; Accept must "
                                       "allow text/event-stream"),
                   "application/json");

  auto exchange = ctx_.sessions.create_stateless(identity_);
  exchange->mcp().set_transport("http", peer_address(peer_));
  if (identity) exchange->mcp().set_client(identity->client);
  if (identity) scope_to(exchange->mcp(), identity);
  const std::string key = boost::json::serialize(message.id);
  const auto stream = exchange->open_request_stream(key, json && !listen);
  session_ = exchange;
  stream_ = *stream;
  // Its events start at 1: there is no priming event to resume from.
  exchange->attach(stream_, shared_from_this(), 1, cursor_, false);
  dispatch(message, [&](jsonrpc::Message& m) {
    exchange->mcp().handle_modern(m, std::move(std::get<RequestScope>(admitted)));
  });
  if (json && !listen) {
    state_ = State::waiting_json;
    watch_for_hang_up();
    return finish_json();
  }
  start_stream(200);
}

void Connection::dispatch(jsonrpc::Message& message, const std::function<void(jsonrpc::Message&)>& handle) {
  std::vector<InlineCalls::Job> cheap;
  {
    std::optional<InlineCalls> collecting;
    if (ctx_.relief && IoRelief::may_run_inline()) collecting.emplace(cheap);
    handle(message);
  }
  if (!cheap.empty()) ctx_.relief->run(cheap);
}

void Connection::release_session() {
  if (session_ && session_->stateless()) ctx_.sessions.retire_stateless(std::move(session_));
  session_.reset();
}

void Connection::handle_get(Request& request) {
  if (!parse_accept(header(request, "Accept")).sse)
    return respond_error(406, jsonrpc::kInvalidRequest, "Not Acceptable: GET opens an SSE stream; Accept must allow "
                                                        "text/event-stream");
  if (!check_protocol_header(request)) return;
  bool answered = false;
  auto session = find_session(request, answered);
  if (answered) return;

  std::uint32_t stream = HttpSession::kStandaloneStream;
  std::optional<std::uint64_t> from;
  if (const std::string_view last = header(request, "Last-Event-ID"); !last.empty()) {
    const auto at = parse_event_id(last);
    if (!at) return respond_error(400, jsonrpc::kInvalidRequest, fmt::format("Bad Request: malformed Last-Event-ID: {}", last));
    stream = at->stream;
    from = at->seq + 1;
  } else if (!ctx_.config.standalone_stream) {
    auto response = make_response(405, jsonrpc::error(nullptr, jsonrpc::kInvalidRequest,
                                                      "Method Not Allowed: this server offers no standalone stream "
                                                      "(transport.http.standalone_stream = false)"),
                                  "application/json");
    response->set(beast_http::field::allow, "POST, DELETE");
    return send(std::move(response), false);
  }
  // Resuming takes the stream over from a connection the client gave up
  // on; a second standalone stream is refused (the spec allows one).
  switch (session->attach(stream, shared_from_this(), from, cursor_, from.has_value())) {
    case HttpSession::Attach::ok: break;
    case HttpSession::Attach::busy:
      return respond_error(409, jsonrpc::kInvalidRequest, "Conflict: this session's standalone stream is already open");
    case HttpSession::Attach::unknown_stream:
      return respond_error(404, jsonrpc::kInvalidRequest,
                           "Not Found: Last-Event-ID names no stream this session still keeps "
                           "(transport.http.replay_bytes)");
  }
  session_ = std::move(session);
  stream_ = stream;
  start_stream(200);
}

void Connection::handle_delete(Request& request) {
  const std::string_view id = header(request, "Mcp-Session-Id");
  if (id.empty()) return respond_error(400, jsonrpc::kInvalidRequest, "Bad Request: the Mcp-Session-Id header is required");
  if (!ctx_.sessions.remove(id, identity_))
    return respond_error(404, kSessionNotFound, "Session not found: it expired, was deleted, or never existed");
  session_tag_ = std::string(id.substr(0, 8));
  if (ctx_.metrics) ctx_.metrics->session_closed();
  respond(204, {}, {});
}

// ---- answering -------------------------------------------------------------

std::shared_ptr<Connection::Response> Connection::make_response(unsigned status, std::string body,
                                                                std::string_view content_type) {
  auto response = std::make_shared<Response>(static_cast<beast_http::status>(status), 11);
  response->set(beast_http::field::server, "airlock");
  if (!content_type.empty()) response->set(beast_http::field::content_type, content_type);
  response->body() = std::move(body);
  return response;
}

void Connection::respond(unsigned status, std::string body, std::string_view content_type, bool close) {
  send(make_response(status, std::move(body), content_type), close);
}

void Connection::respond_error(unsigned status, int code, std::string_view message, bool close) {
  respond(status, jsonrpc::error(nullptr, code, message), "application/json", close);
}

void Connection::send(std::shared_ptr<Response> response, bool close) {
  if (!new_session_id_.empty()) response->set("Mcp-Session-Id", std::exchange(new_session_id_, {}));
  response->keep_alive(keep_alive_ && !close && !draining_ && !ctx_.draining.load());
  // A whole event stream comes chunked, as the streams written as they
  // grow; anything else gets its Content-Length.
  if (!response->chunked()) response->prepare_payload();
  state_ = State::handling;
  write_pending_ = true;
  bytes_out_ = response->body().size();
  beast_http::async_write(socket_, *response,
                          [self = shared_from_this(), response](boost::system::error_code ec, std::size_t) {
                            self->write_pending_ = false;
                            self->record(response->result_int());
                            if (ec) return self->close();
                            self->after_response(!response->keep_alive());
                          });
}

void Connection::after_response(bool close_after) {
  if (close_after) {
    boost::system::error_code ignored;
    socket_.shutdown(Socket::shutdown_send, ignored);
    return close();
  }
  await_request();
}

void Connection::finish_json() {
  if (state_ != State::waiting_json) return;
  auto body = session_->take_json_response(stream_);
  if (!body) {
    if (session_->closing()) {
      const bool stateless = session_->stateless();
      release_session();
      if (stateless)
        return respond_error(503, jsonrpc::kServerBusy, "Service Unavailable: the server is shutting down", true);
      respond_error(404, kSessionNotFound, "Session not found: it ended before the response was ready");
    }
    return;  // woken again when it is ready
  }
  release_session();
  // An empty response is a request the session will not answer (the client
  // cancelled it): the POST ends with no body.
  if (body->empty()) return respond(204, {}, {});
  respond(200, std::move(*body), "application/json");
}

namespace {

void set_event_stream_fields(beast_http::fields& header) {
  header.set(beast_http::field::server, "airlock");
  header.set(beast_http::field::content_type, "text/event-stream");
  header.set(beast_http::field::cache_control, "no-cache, no-transform");
  header.set("X-Accel-Buffering", "no");  // proxies that buffer would hold events back
}

}  // namespace

void Connection::start_stream(unsigned status) {
  // Answered already (a cheap call runs before this): the header, every
  // event as one chunk and the last chunk go out in one write, not three.
  if (!http10_ && session_->answered(stream_)) {
    auto pulled = session_->pull(stream_, cursor_, this);
    if (pulled.ended) {
      session_->detach(stream_, this);
      release_session();
      auto response = std::make_shared<Response>(static_cast<beast_http::status>(status), 11);
      set_event_stream_fields(*response);
      response->body() = std::move(pulled.bytes);
      response->chunked(true);
      return send(std::move(response), false);
    }
  }
  state_ = State::streaming;
  stream_recorded_ = false;
  stream_header_ = std::make_shared<beast_http::response<beast_http::empty_body>>(
      static_cast<beast_http::status>(status), 11);
  auto& header = *stream_header_;
  set_event_stream_fields(header);
  if (!new_session_id_.empty()) header.set("Mcp-Session-Id", std::exchange(new_session_id_, {}));
  // A 1.0 client cannot read chunks (RFC 9112 section 6.1): its stream has
  // neither coding nor length, and ends when the server closes.
  if (http10_) keep_alive_ = false;
  header.chunked(!http10_);
  header.keep_alive(keep_alive_);
  auto serializer = std::make_shared<beast_http::response_serializer<beast_http::empty_body>>(header);
  write_pending_ = true;
  arm_timer(kWriteTimeout);
  beast_http::async_write_header(socket_, *serializer,
                                 [self = shared_from_this(), serializer](boost::system::error_code ec, std::size_t) {
                                   self->write_pending_ = false;
                                   if (ec) return self->close();
                                   self->pump();
                                 });
  watch_for_hang_up();
}

void Connection::pump() {
  if (state_ != State::streaming || write_pending_) return;
  auto pulled = session_->pull(stream_, cursor_, this);
  if (pulled.lost)
    spdlog::warn("session {}: stream {}: events before the resume point were dropped (transport.http.replay_bytes)",
                 session_tag_, stream_);
  if (!pulled.bytes.empty()) return write_chunk(std::move(pulled.bytes));
  if (pulled.ended) return end_stream();
  arm_timer(kKeepAliveInterval);
}

void Connection::write_chunk(std::string bytes) {
  chunk_ = std::move(bytes);
  bytes_out_ += chunk_.size();
  write_pending_ = true;
  arm_timer(kWriteTimeout);
  auto written = [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
    self->write_pending_ = false;
    self->disarm_timer();
    if (ec) return self->close();
    self->pump();
  };
  if (http10_) return boost::asio::async_write(socket_, boost::asio::buffer(chunk_), std::move(written));
  boost::asio::async_write(socket_, beast_http::make_chunk(boost::asio::buffer(chunk_)), std::move(written));
}

void Connection::end_stream() {
  if (session_) session_->detach(stream_, this);
  release_session();
  if (http10_) {
    // The close is the end of a 1.0 stream: there is no last chunk to send.
    record_stream();
    return after_response(true);
  }
  write_pending_ = true;
  arm_timer(kWriteTimeout);
  boost::asio::async_write(socket_, beast_http::make_chunk_last(),
                           [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                             self->write_pending_ = false;
                             self->disarm_timer();
                             self->record_stream();
                             if (ec) return self->close();
                             self->after_response(!self->keep_alive_ || self->draining_ || self->ctx_.draining.load());
                           });
}

void Connection::watch_for_hang_up() {
  if (socket_read_pending_) return;
  socket_read_pending_ = true;
  socket_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
    self->on_first_bytes(ec, n);
  });
}

// ---- timers, closing, accounting -------------------------------------------

void Connection::arm_timer(std::chrono::steady_clock::duration after) {
  const std::uint64_t generation = ++timer_generation_;
  timer_.expires_after(after);
  timer_.async_wait([self = shared_from_this(), generation](boost::system::error_code ec) {
    if (ec || generation != self->timer_generation_) return;
    self->on_timer();
  });
}

void Connection::disarm_timer() {
  ++timer_generation_;
  timer_.cancel();
}

void Connection::on_timer() {
  switch (state_) {
    case State::idle: return close();  // keep-alive connection unused for idle_timeout_ms
    case State::reading: {
      timed_out_ = true;
      boost::system::error_code ignored;
      socket_.cancel(ignored);
      return;
    }
    case State::streaming:
      if (write_pending_) return close();  // the client stopped reading
      return write_chunk(std::string(kSseKeepAlive));
    default: return;
  }
}

void Connection::close() {
  if (state_ == State::closed) return;
  if (state_ == State::streaming) record_stream();
  state_ = State::closed;
  if (session_) session_->detach(stream_, this);
  release_session();
  disarm_timer();
  boost::system::error_code ignored;
  socket_.shutdown(Socket::shutdown_both, ignored);
  socket_.close(ignored);
}

void Connection::record_stream() {
  if (stream_recorded_) return;
  stream_recorded_ = true;
  record(200);
}

void Connection::record(unsigned status) {
  const auto latency = std::chrono::steady_clock::now() - started_;
  if (ctx_.metrics) ctx_.metrics->http_request(method_, status, latency);
  if (ctx_.access_log)
    ctx_.access_log->info("peer={} identity={} method={} path={} status={} bytes={} ms={:.2f} session={} rpc={}", peer_,
                          identity_.empty() ? "-" : identity_,
                          method_, path_, status, bytes_out_,
                          std::chrono::duration<double, std::milli>(latency).count(),
                          session_tag_.empty() ? "-" : session_tag_, rpc_method_.empty() ? "-" : rpc_method_);
}

}  // namespace airlock::host::http
