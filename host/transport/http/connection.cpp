// The life of one connection. Handlers run on its strand, so the state below
// needs no lock; sessions wake it from workers through wake(), which only
// posts. Timeouts hang off one timer whose meaning follows the state: idle
// (keep-alive), reading (slow clients), streaming (quiet stream: keep-alive
// comment; stuck write: close).
#include "transport/http/connection.hpp"

#include "mcp/jsonrpc.hpp"
#include "metrics/metrics.hpp"
#include "transport/http/sse.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_cat.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <bit>
#include <cstdint>

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

}  // namespace

Connection::Connection(Socket socket, std::shared_ptr<ServerContext> context,
                       std::shared_ptr<const RequestHandler> handler)
    : Exchange(describe_peer(socket)),
      context_(std::move(context)),
      ctx_(*context_),
      handler_(std::move(handler)),
      socket_(std::move(socket)),
      timer_(socket_.get_executor()) {
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
    if (self->state_ == State::idle) return self->close();
    // Its body unread, a request waiting for room would wait out its
    // read_timeout_ms (and, queued in the budget, keep its connection).
    if (self->withdraw_from_budget()) {
      self->begin_answer();
      self->respond_error(503, jsonrpc::kServerBusy, "Service Unavailable: the server is shutting down", true);
    }
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
  socket_.async_read_some(buffer_.prepare(first_read_bytes_), [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
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
  beast_http::async_read_header(
      socket_, buffer_, *parser_,
      [self = shared_from_this()](boost::system::error_code ec, std::size_t) { self->on_header(ec); });
}

void Connection::on_header(boost::system::error_code ec) {
  if (ec || state_ == State::closed || parser_->is_done()) return on_read(ec);
  // A large body is read once the server holds few enough others
  // (body_budget.hpp). One over the body limit is not: reading it fails at
  // once with 413, which holds nothing.
  const auto length = parser_->content_length();
  if (length && BodyBudget::counted(*length) && *length <= ctx_.max_body_bytes) {
    const auto bytes = static_cast<std::size_t>(*length);
    auto admitted = [self = shared_from_this(), bytes] {
      boost::asio::post(self->socket_.get_executor(), [self, bytes] { self->on_room(bytes); });
    };
    if (!ctx_.bodies.acquire(this, bytes, std::move(admitted))) {
      waiting_for_room_ = true;
      return;
    }
    held_body_bytes_ = bytes;
  }
  read_body();
}

void Connection::on_room(std::size_t bytes) {
  waiting_for_room_ = false;
  held_body_bytes_ = bytes;
  if (state_ == State::closed) return give_back_body();
  // The read timeout passed while this was on its way: the body would be
  // read with no deadline left.
  if (timed_out_) {
    give_back_body();
    return refuse_for_room();
  }
  read_body();
}

void Connection::refuse_for_room() {
  begin_answer();
  respond_error(503, jsonrpc::kServerBusy,
                fmt::format("Service Unavailable: {} bytes of large request bodies are in flight "
                            "(transport.http.max_body_bytes_in_flight) and this one waited {} ms "
                            "(transport.http.read_timeout_ms) for room; retry later",
                            ctx_.bodies.held(), ctx_.config.read_timeout_ms),
                true);
}

void Connection::read_body() {
  // Beast reads as much as the buffer has room for, and the buffer has the
  // room of the first read (4 KiB): a 256 KiB body took 64 reads, each with
  // its wait. A body known to be large gets room for reads of 64 KiB.
  if (const auto length = parser_->content_length(); length && *length > buffer_.capacity())
    buffer_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(*length, kLargeReadBytes)));
  beast_http::async_read(socket_, buffer_, *parser_,
                         [self = shared_from_this()](boost::system::error_code ec, std::size_t) { self->on_read(ec); });
}

bool Connection::withdraw_from_budget() {
  if (!waiting_for_room_ || !ctx_.bodies.withdraw(this)) return false;
  waiting_for_room_ = false;
  return true;
}

void Connection::give_back_body() {
  if (held_body_bytes_ > 0) ctx_.bodies.release(std::exchange(held_body_bytes_, 0));
}

void Connection::begin_answer() {
  disarm_timer();
  started_ = std::chrono::steady_clock::now();
  record_ = Record{};
  bytes_out_ = 0;
  keep_alive_ = false;
}

void Connection::on_read(boost::system::error_code ec) {
  if (state_ == State::closed) return;
  begin_answer();
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
  // The next request likely looks like this one: its first read gets room
  // for all of this one, header included, so that a request of a few KiB
  // takes one read, not two, while a client of small requests keeps the
  // smallest buffer. An idle connection keeps no more than that room.
  first_read_bytes_ = std::clamp<std::size_t>(std::bit_ceil(request.body().size() + kHeaderRoom), kIdleBufferBytes,
                                              kLargeReadBytes);
  if (buffer_.capacity() > first_read_bytes_ && buffer_.size() <= first_read_bytes_) buffer_.shrink_to_fit();
  state_ = State::handling;
  record_.method = std::string(request.method_string());
  keep_alive_ = request.keep_alive();
  http10_ = request.version() < 11;
  handler_->serve(request, *this);
}

// ---- answering -------------------------------------------------------------

void Connection::announce_session(std::string id) { new_session_id_ = std::move(id); }

HttpSession::Attach Connection::attach(std::shared_ptr<HttpSession> session, std::uint32_t stream,
                                       std::optional<std::uint64_t> from, bool take_over) {
  const auto attached = session->attach(stream, shared_from_this(), from, cursor_, take_over);
  if (attached == HttpSession::Attach::ok) {
    session_ = std::move(session);
    stream_ = stream;
  }
  return attached;
}

void Connection::release_session() {
  if (session_ && session_->stateless()) ctx_.sessions.retire_stateless(std::move(session_));
  session_.reset();
}

void Connection::forget_delivered() {
  // Only a stream that ended with its answer: one cut short, or ended by
  // another connection's resume, stays for the client to resume.
  if (auto session = std::exchange(delivering_, {}).lock()) session->forget_delivered(stream_);
}

void Connection::answer_json() {
  state_ = State::waiting_json;
  watch_for_hang_up();
  finish_json();
}

void Connection::answer_stream() { start_stream(200); }

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
                            self->forget_delivered();
                            self->after_response(!response->keep_alive());
                          });
}

void Connection::after_response(bool close_after) {
  give_back_body();
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
      delivering_ = session_;
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
                 record_.session_tag, stream_);
  if (pulled.ended) return end_stream(std::move(pulled.bytes));
  if (!pulled.bytes.empty()) return write_chunk(std::move(pulled.bytes));
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
    self->drop_chunk();
    if (ec) return self->close();
    self->pump();
  };
  if (http10_) return boost::asio::async_write(socket_, boost::asio::buffer(chunk_), std::move(written));
  boost::asio::async_write(socket_, beast_http::make_chunk(boost::asio::buffer(chunk_)), std::move(written));
}

// The next chunk comes in a string of its own (moved in), so the written
// one's room is of no use; kept, a 256 KiB answer stayed on every idle
// connection that had carried one.
void Connection::drop_chunk() { std::string().swap(chunk_); }

void Connection::end_stream(std::string last) {
  if (session_) session_->detach(stream_, this);
  delivering_ = session_;
  release_session();
  // The stream's last events and its end go out in one write: on loopback a
  // write costs more than a 4 KiB event, and an answer's stream took three
  // (header, event, end).
  chunk_ = std::move(last);
  bytes_out_ += chunk_.size();
  // A 1.0 stream has no last chunk: the close is its end.
  if (http10_ && chunk_.empty()) {
    record_stream();
    forget_delivered();
    return after_response(true);
  }
  write_pending_ = true;
  arm_timer(kWriteTimeout);
  auto ended = [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
    self->write_pending_ = false;
    self->disarm_timer();
    self->drop_chunk();
    self->record_stream();
    if (ec) return self->close();
    self->forget_delivered();
    self->after_response(self->http10_ || !self->keep_alive_ || self->draining_ || self->ctx_.draining.load());
  };
  if (http10_) return boost::asio::async_write(socket_, boost::asio::buffer(chunk_), std::move(ended));
  // An empty chunk would be the last chunk itself.
  if (chunk_.empty()) return boost::asio::async_write(socket_, beast_http::make_chunk_last(), std::move(ended));
  boost::asio::async_write(
      socket_, boost::beast::buffers_cat(beast_http::make_chunk(boost::asio::buffer(chunk_)), beast_http::make_chunk_last()),
      std::move(ended));
}

void Connection::watch_for_hang_up() {
  if (socket_read_pending_) return;
  socket_read_pending_ = true;
  socket_.async_read_some(buffer_.prepare(first_read_bytes_), [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
    self->on_first_bytes(ec, n);
  });
}

// ---- timers, closing, accounting -------------------------------------------

// Arming only moves deadline_ while the standing wait ends no later than
// it: that wait, when it ends, waits again for the rest. A request arms and
// disarms three times (idle, reading, handling); each asio re-arm cancels a
// wait, runs its handler and queues a new one, which cost more than the
// rest of a small request's HTTP handling.
void Connection::arm_timer(std::chrono::steady_clock::duration after) {
  deadline_ = std::chrono::steady_clock::now() + after;
  if (timer_waiting_ && timer_.expiry() <= deadline_) return;
  start_wait();
}

void Connection::disarm_timer() { deadline_ = kNoDeadline; }

void Connection::start_wait() {
  const std::uint64_t generation = ++timer_generation_;
  timer_waiting_ = true;
  timer_.expires_at(deadline_);  // a standing wait ends now, superseded
  timer_.async_wait([self = shared_from_this(), generation](boost::system::error_code ec) {
    if (generation != self->timer_generation_) return;
    self->timer_waiting_ = false;
    if (ec || self->state_ == State::closed || self->deadline_ == kNoDeadline) return;
    if (std::chrono::steady_clock::now() < self->deadline_) return self->start_wait();
    self->deadline_ = kNoDeadline;
    self->on_timer();
  });
}

void Connection::stop_timer() {
  deadline_ = kNoDeadline;
  ++timer_generation_;
  timer_waiting_ = false;
  timer_.cancel();  // its handler, and the connection it holds, go now
}

void Connection::on_timer() {
  switch (state_) {
    case State::idle: return close();  // keep-alive connection unused for idle_timeout_ms
    case State::reading: {
      // Still waiting for room: no read to cut short. Admitted meanwhile
      // (withdraw fails), on_room is on its way and sees timed_out_.
      if (withdraw_from_budget()) return refuse_for_room();
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
  // A wait for room withdrawn holds nothing; one admitted meanwhile gives
  // its bytes back in on_room.
  withdraw_from_budget();
  give_back_body();
  stop_timer();
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
  if (ctx_.metrics) ctx_.metrics->http_request(record_.method, status, latency);
  if (ctx_.access_log) {
    const auto shown = [](const std::string& value) { return value.empty() ? std::string_view("-") : std::string_view(value); };
    ctx_.access_log->info("peer={} identity={} method={} path={} status={} bytes={} ms={:.2f} session={} rpc={}",
                          peer_, shown(record_.identity), record_.method, record_.path, status, bytes_out_,
                          std::chrono::duration<double, std::milli>(latency).count(), shown(record_.session_tag),
                          shown(record_.rpc_method));
  }
}

}  // namespace airlock::host::http
