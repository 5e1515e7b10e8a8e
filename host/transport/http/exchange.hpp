// One request and its answer, as the layers above the connection see it:
// the request's facts, what the access log and the audit trail record of
// it, and the ways to answer it. The connection (connection.cpp) implements
// it for bytes and timers; the HTTP front (http_front.cpp) and the MCP
// endpoint (mcp_endpoint.cpp) only decide what the answer is. Exactly one
// answer per request: a response, or a session's stream as JSON or SSE.
// Everything here runs on the connection's strand.
#pragma once

#include "mcp/request_headers.hpp"
#include "transport/http/http_session.hpp"

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host::http {

using Request = boost::beast::http::request<boost::beast::http::string_body>;
using Response = boost::beast::http::response<boost::beast::http::string_body>;

// The JSON-RPC error code for a session that is gone or never was (the
// TypeScript SDK's).
inline constexpr int kSessionNotFound = -32001;

// The value of header `name`, or empty when the request has none.
std::string_view header(const Request& request, std::string_view name);

// A request's headers as the checks in mcp/ and request_guard read them
// (names compare case-insensitively).
class BeastHeaders final : public HeaderView {
 public:
  explicit BeastHeaders(const Request& request) : request_(request) {}
  std::size_t count(std::string_view name) const override;
  std::optional<std::string_view> get(std::string_view name) const override;

 private:
  const Request& request_;
};

class Exchange {
 public:
  // What the access log line and the audit trail say of the request; the
  // layers fill in what they learn ("-" or empty until they do).
  struct Record {
    std::string method = "-";
    std::string path = "-";     // as requested, cut to 128 bytes
    std::string rpc_method;     // the JSON-RPC method of a POST
    std::string identity;       // who the bearer token stands for
    std::string client;         // the OAuth client_id of that token
    std::string session_tag;    // the first 8 characters of the session id
  };

  virtual ~Exchange() = default;

  const std::string& peer() const { return peer_; }  // "address:port"
  std::string peer_address() const;                 // the address alone
  bool http10() const { return http10_; }
  Record& record() { return record_; }
  const Record& record() const { return record_; }

  // A complete response; the connection then reads the next request, or
  // closes when `close` or the request said so.
  virtual void send(std::shared_ptr<Response> response, bool close) = 0;
  static std::shared_ptr<Response> make_response(unsigned status, std::string body, std::string_view content_type);
  void respond(unsigned status, std::string body, std::string_view content_type, bool close = false);
  // A JSON-RPC error with a null id, as the body of `status`.
  void respond_error(unsigned status, int code, std::string_view message, bool close = false);

  // The session this request opened: its id goes out as Mcp-Session-Id on
  // whatever answers the request.
  virtual void announce_session(std::string id) = 0;
  // Makes `stream` of `session` this request's answer, to be sent by
  // answer_json or answer_stream once the caller has handed the request to
  // the session; `from` and `take_over` as HttpSession::attach. On anything
  // but ok the exchange holds nothing and the caller answers.
  virtual HttpSession::Attach attach(std::shared_ptr<HttpSession> session, std::uint32_t stream,
                                     std::optional<std::uint64_t> from, bool take_over) = 0;
  // The attached stream's response, as one application/json body once the
  // session has it (204 when the client cancelled the request).
  virtual void answer_json() = 0;
  // The attached stream as text/event-stream, until it ends.
  virtual void answer_stream() = 0;

  // Records a request refused before any MCP handling in the audit trail:
  // `reason` is host text; `detail` what else is known.
  void audit_refusal(unsigned status, std::string_view reason, boost::json::object detail = {}) const;

 protected:
  explicit Exchange(std::string peer) : peer_(std::move(peer)) {}

  const std::string peer_;
  bool http10_ = false;  // the request being answered is HTTP/1.0: no chunked coding
  Record record_;
};

// What serves a request once the connection has read it whole.
class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  virtual void serve(Request& request, Exchange& exchange) const = 0;
};

}  // namespace airlock::host::http
