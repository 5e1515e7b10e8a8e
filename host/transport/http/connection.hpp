// One client connection: reads requests one at a time (keep-alive), checks
// each, and answers with a status, a JSON body, or an SSE stream that it
// feeds from the session as events arrive. Every handler runs on the
// connection's strand; other threads only wake it.
#pragma once

#include "mcp/jsonrpc.hpp"
#include "transport/http/http_session.hpp"
#include "transport/http/server_context.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace airlock::host::http {

class Connection final : public StreamSink, public std::enable_shared_from_this<Connection> {
 public:
  using Socket = boost::asio::ip::tcp::socket;
  Connection(Socket socket, std::shared_ptr<ServerContext> context);
  ~Connection() override;

  void start();
  // StreamSink: any thread.
  void wake() override;
  // Shutdown: an idle connection closes now, a busy one after its response.
  void drain();

 private:
  using Request = boost::beast::http::request<boost::beast::http::string_body>;
  using Response = boost::beast::http::response<boost::beast::http::string_body>;
  enum class State { idle, reading, handling, waiting_json, streaming, closed };

  // JSON-RPC error code for an unknown session (the TypeScript SDK's).
  static constexpr int kSessionNotFound = -32001;

  void await_request();
  void on_first_bytes(boost::system::error_code ec, std::size_t n);
  void read_request();
  void on_read(boost::system::error_code ec);
  void handle(Request& request);
  void handle_post(Request& request, const std::shared_ptr<const Identity>& identity, const std::string& resource);
  // The identity the request's bearer token stands for; null once a 401 is sent.
  std::shared_ptr<const Identity> authenticate(const Request& request, const std::string& resource);
  // True once a 403 insufficient_scope is sent for a tools/call the token's scopes do not grant.
  bool refuse_out_of_scope(const jsonrpc::Message& message, const Identity* identity, const std::string& resource);
  // A POST of 2026-07-28: one request served on its own exchange (an
  // HttpSession that is not a session), or a notification.
  void handle_modern_post(Request& request, jsonrpc::Message& message, const std::shared_ptr<const Identity>& identity,
                          bool sse, bool json);
  // Hands a request to its session. A cheap tool call it starts runs here,
  // on this I/O thread, before this returns (io_relief.hpp): the answer is
  // then ready for the response without a hand-off.
  void dispatch(jsonrpc::Message& message, const std::function<void(jsonrpc::Message&)>& handle);
  // Lets go of the session the response came from; an exchange of one
  // 2026-07-28 request is then closed (its calls cancelled if any still run).
  void release_session();
  void handle_get(Request& request);
  void handle_delete(Request& request);
  // The session the request names, or null after answering 400/404.
  std::shared_ptr<HttpSession> find_session(const Request& request, bool& answered);
  bool check_protocol_header(const Request& request);

  std::shared_ptr<Response> make_response(unsigned status, std::string body, std::string_view content_type);
  // A complete response; the connection then reads the next request, or
  // closes when `close` or the request said so.
  void send(std::shared_ptr<Response> response, bool close);
  void respond(unsigned status, std::string body, std::string_view content_type, bool close = false);
  void respond_error(unsigned status, int code, std::string_view message, bool close = false);
  // Records a request the front door refused (before any MCP handling) in
  // the audit trail: `reason` is host text; `detail` what else it knows.
  void audit_refusal(unsigned status, std::string_view reason, boost::json::object detail = {}) const;
  void after_response(bool close);
  void finish_json();

  // SSE: the header, then whatever the stream has, until it ends.
  void start_stream(unsigned status);
  void pump();
  void write_chunk(std::string bytes);
  void end_stream();
  // While a response is pending, a read that completes only when the client
  // hangs up (or pipelines the next request).
  void watch_for_hang_up();

  void arm_timer(std::chrono::steady_clock::duration after);
  void disarm_timer();
  void on_timer();
  void close();
  void record_stream();
  void record(unsigned status);

  // Shared: a connection's last handler may be destroyed after the server.
  const std::shared_ptr<ServerContext> context_;
  ServerContext& ctx_;
  Socket socket_;
  boost::asio::steady_timer timer_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  const std::string peer_;

  State state_ = State::idle;
  bool socket_read_pending_ = false;
  bool write_pending_ = false;
  bool keep_alive_ = true;
  bool http10_ = false;  // the request being answered is HTTP/1.0: no chunked coding
  bool draining_ = false;
  bool timed_out_ = false;
  std::uint64_t timer_generation_ = 0;

  // The request being answered, for the access log and metrics.
  std::chrono::steady_clock::time_point started_;
  std::string method_;
  std::string path_;  // as requested, cut to 128 bytes for the log
  std::string rpc_method_;
  std::string identity_;
  std::string client_;  // the OAuth client_id of identity_'s token, for the audit trail
  std::string session_tag_;  // first 8 characters of the session id
  std::string new_session_id_;  // sent as Mcp-Session-Id on the initialize response
  std::size_t bytes_out_ = 0;
  bool stream_recorded_ = false;

  std::shared_ptr<boost::beast::http::response<boost::beast::http::empty_body>> stream_header_;
  std::string chunk_;

  std::shared_ptr<HttpSession> session_;  // while waiting or streaming
  std::uint32_t stream_ = 0;
  std::uint64_t cursor_ = 0;
};

}  // namespace airlock::host::http
