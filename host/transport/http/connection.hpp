// One client connection, the bytes of it: reads requests one at a time
// (keep-alive), hands each to its RequestHandler (the HTTP front), and
// writes the answer the handler chose: a complete response, or a session's
// stream as one JSON body or as SSE events while they arrive. It owns the
// socket, the timers and the writes; of MCP it knows only the session
// streams it carries. Every handler runs on the connection's strand; other
// threads only wake it.
#pragma once

#include "transport/http/exchange.hpp"
#include "transport/http/http_session.hpp"
#include "transport/http/server_context.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace airlock::host::http {

class Connection final : public Exchange, public StreamSink, public std::enable_shared_from_this<Connection> {
 public:
  using Socket = boost::asio::ip::tcp::socket;
  // `context` for the limits and timeouts, the access log, metrics and
  // draining; `handler` serves every request the connection reads.
  Connection(Socket socket, std::shared_ptr<ServerContext> context, std::shared_ptr<const RequestHandler> handler);
  ~Connection() override;

  void start();
  // StreamSink: any thread.
  void wake() override;
  // Shutdown: an idle connection closes now, a busy one after its response.
  void drain();

  // Exchange: the handler's answers. Strand only.
  void send(std::shared_ptr<Response> response, bool close) override;
  void announce_session(std::string id) override;
  HttpSession::Attach attach(std::shared_ptr<HttpSession> session, std::uint32_t stream,
                             std::optional<std::uint64_t> from, bool take_over) override;
  void answer_json() override;
  void answer_stream() override;

 private:
  enum class State { idle, reading, handling, waiting_json, streaming, closed };

  void await_request();
  void on_first_bytes(boost::system::error_code ec, std::size_t n);
  void read_request();
  // The header is in: a large body waits for room among the bodies held
  // (body_budget.hpp), then read_body() reads the rest, with a larger read
  // buffer for a large body.
  void on_header(boost::system::error_code ec);
  void on_room(std::size_t bytes);
  // 503 and close: the body waited its read timeout for room, unread.
  void refuse_for_room();
  void read_body();
  // The body's bytes held in ctx_.bodies go back: its response is written,
  // or the connection closed.
  void give_back_body();
  // Leaves the budget's queue while still in it: true, nothing is held and
  // on_room never runs; false, not waiting, or admitted already (on_room is
  // on its way and gives the bytes back if the connection is done).
  bool withdraw_from_budget();
  void on_read(boost::system::error_code ec);
  // A request is in (or given up on): its timer stops and its record starts.
  void begin_answer();

  // The read buffer's room while waiting for a request (at least; see
  // first_read_bytes_), and for a large body; and what first_read_bytes_
  // adds to a body for its header.
  static constexpr std::size_t kIdleBufferBytes = 4096;
  static constexpr std::size_t kLargeReadBytes = 64 * 1024;
  static constexpr std::size_t kHeaderRoom = 1024;
  // Lets go of the session the response came from; an exchange of one
  // 2026-07-28 request is then closed (its calls cancelled if any still run).
  void release_session();
  // The response that ended stream_ with its answer was written: the
  // session may drop the stream's events (HttpSession::forget_delivered).
  void forget_delivered();
  void after_response(bool close);
  void finish_json();

  // SSE: the header, then whatever the stream has, until it ends.
  void start_stream(unsigned status);
  void pump();
  void write_chunk(std::string bytes);
  void drop_chunk();
  // Writes `last` (the stream's last events, if any) and ends the stream.
  void end_stream(std::string last);
  // While a response is pending, a read that completes only when the client
  // hangs up (or pipelines the next request).
  void watch_for_hang_up();

  // on_timer() runs `after` from now, unless disarmed or armed again first.
  void arm_timer(std::chrono::steady_clock::duration after);
  void disarm_timer();
  void start_wait();
  // Closing: no wait stands on the timer afterwards.
  void stop_timer();
  void on_timer();
  void close();
  void record_stream();
  void record(unsigned status);

  // Shared: a connection's last handler may be destroyed after the server.
  const std::shared_ptr<ServerContext> context_;
  ServerContext& ctx_;
  const std::shared_ptr<const RequestHandler> handler_;
  Socket socket_;
  boost::asio::steady_timer timer_;
  boost::beast::flat_buffer buffer_;
  std::size_t first_read_bytes_ = kIdleBufferBytes;  // room for a request like the last, header included
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;

  State state_ = State::idle;
  bool socket_read_pending_ = false;
  bool write_pending_ = false;
  bool keep_alive_ = true;
  bool draining_ = false;
  bool timed_out_ = false;
  bool waiting_for_room_ = false;   // queued in ctx_.bodies, the body unread
  std::size_t held_body_bytes_ = 0;  // held in ctx_.bodies for the request being answered
  static constexpr auto kNoDeadline = std::chrono::steady_clock::time_point::max();
  std::chrono::steady_clock::time_point deadline_ = kNoDeadline;  // when on_timer() runs
  bool timer_waiting_ = false;       // a wait stands on timer_, ending at its expiry()
  std::uint64_t timer_generation_ = 0;  // of the standing wait; a superseded one's handler does nothing

  // The request being answered, for the access log and metrics.
  std::chrono::steady_clock::time_point started_;
  std::string new_session_id_;  // sent as Mcp-Session-Id on the response
  std::size_t bytes_out_ = 0;
  bool stream_recorded_ = false;

  std::shared_ptr<boost::beast::http::response<boost::beast::http::empty_body>> stream_header_;
  std::string chunk_;

  std::shared_ptr<HttpSession> session_;  // while waiting or streaming
  std::weak_ptr<HttpSession> delivering_;  // while the write that ends stream_ with its answer is out
  std::uint32_t stream_ = 0;
  std::uint64_t cursor_ = 0;
};

}  // namespace airlock::host::http
