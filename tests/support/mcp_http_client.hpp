// Speaks MCP over Streamable HTTP (MCP 2025-11-25 "Transports"): one session,
// requests answered as JSON or as an SSE stream, the standalone GET stream,
// DELETE. Built on http_client.hpp; loopback only.
#pragma once

#include "http_client.hpp"
#include "mcp_stdio_client.hpp"  // Message and its accessors

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::test {

// What one POST brought back.
struct McpReply {
  HttpResponse http;               // status and header fields; body as received
  std::vector<SseEvent> events;    // an SSE answer's events in order, the priming event included
  std::vector<Message> messages;   // every JSON-RPC message received, in order
  Message response;                // the one answering the request; json null when none came
  bool stream_ended = true;        // an SSE answer's body ended (false: still open at the timeout)

  bool is_sse() const { return http.header_or_empty("content-type").starts_with("text/event-stream"); }
  // Messages that are not the response (notifications, server->client requests).
  std::vector<Message> others() const;
  // "HTTP 200 ... " plus the response, for failure messages.
  std::string describe() const;
};

// An MCP client of one session. The session id from initialize is sent on
// every later request; tests may replace it (set_session_id) or headers
// (set_header) to build the requests a misbehaving client would send.
class McpHttpClient {
 public:
  static constexpr std::chrono::milliseconds kTimeout = 5s;
  static constexpr std::string_view kAcceptBoth = "application/json, text/event-stream";

  explicit McpHttpClient(std::uint16_t port, std::string path = "/mcp");

  std::uint16_t port() const { return port_; }
  const std::string& path() const { return path_; }

  // Header fields sent on every request from now on; set_header replaces a
  // field of the same name, an empty value removes it.
  void set_header(std::string_view name, std::string value);
  // Sets `Authorization: Bearer <token>` ("" removes it).
  void set_bearer(std::string token);
  // The Accept field of POSTs (default: both types).
  void set_accept(std::string accept) { accept_ = std::move(accept); }
  // MCP-Protocol-Version on requests after initialize; "" sends none.
  // initialize() sets it to the negotiated version.
  void set_protocol_header(std::string version) { protocol_header_ = std::move(version); }

  // POST initialize (no session header), keep the Mcp-Session-Id it returns,
  // then POST notifications/initialized unless `send_initialized` is false.
  McpReply initialize(std::string_view protocol_version = "2025-11-25", bool send_initialized = true);
  const std::string& session_id() const { return session_id_; }
  void set_session_id(std::string id) { session_id_ = std::move(id); }

  // POST a request with a fresh integer id and read its answer, JSON or SSE.
  // Server->client requests on the stream go to on_server_request, whose
  // result is POSTed back (a separate connection, as the stream is busy).
  McpReply call(std::string_view method, std::optional<boost::json::object> params = boost::json::object{},
                std::chrono::milliseconds timeout = kTimeout);
  McpReply call_tool(std::string_view name, boost::json::object arguments = {},
                     std::chrono::milliseconds timeout = kTimeout);
  // POST any JSON-RPC message (a request keeps the id given).
  McpReply send(const boost::json::value& message, std::chrono::milliseconds timeout = kTimeout);
  // POST a notification; the answer should be 202 with no body.
  HttpResponse notify(std::string_view method, boost::json::object params = {});

  // Answers a server->client request that arrives on a POST's stream: returns
  // {"result": ...} or {"error": ...}; jsonrpc and id are added. Unset: the
  // request is only recorded in the reply.
  std::function<boost::json::object(const Message& request)> on_server_request;

  // The request a POST of `body` would be, header fields included, for tests
  // that change one thing about it.
  HttpRequest post_request(std::string body) const;
  // Sends any request on this client's connection.
  HttpResponse raw(const HttpRequest& request, std::chrono::milliseconds timeout = kTimeout);

  // POSTs `message` and returns the answer as a stream (its own connection),
  // for tests that read events as they come or drop the connection.
  SseStream post_stream(const boost::json::value& message, std::chrono::milliseconds timeout = kTimeout);
  // GET the session's standalone stream, or with Last-Event-ID the stream
  // that id belongs to.
  SseStream get_stream(std::optional<std::string> last_event_id = std::nullopt,
                       std::chrono::milliseconds timeout = kTimeout);
  // DELETE the session.
  HttpResponse end_session();

  std::int64_t next_id() { return next_id_++; }

  // The header fields every request carries (Host aside): extra ones, the
  // session id and the protocol version.
  HttpHeaders common_headers() const;

 private:
  McpReply read_reply(const HttpResponse& head, const boost::json::value& id, std::chrono::milliseconds timeout);
  void answer(const Message& request);

  std::uint16_t port_;
  std::string path_;
  HttpConnection connection_;
  std::optional<HttpConnection> side_connection_;  // for answers while connection_ streams
  HttpHeaders extra_headers_;
  std::string accept_{kAcceptBoth};
  std::string session_id_;
  std::string protocol_header_;
  std::int64_t next_id_ = 1;
};

// Parses one JSON-RPC message; json stays null when `text` is not JSON.
Message parse_message(std::string_view text);
// True when `message` answers request `id` (a result or an error).
bool answers(const Message& message, const boost::json::value& id);

}  // namespace airlock::test
