// A small synchronous HTTP/1.1 client for tests, on Boost.Beast: whole
// requests, Server-Sent Events read one at a time, and a raw socket for
// requests no well-behaved client would send. Loopback only.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace airlock::test {

using namespace std::chrono_literals;

// Header fields in the order given; names compare without case.
using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";
  std::string target = "/";
  HttpHeaders headers;  // a Host field is added (127.0.0.1:PORT) unless one is given
  std::string body;     // sent with Content-Length when non-empty or when the method is POST
};

// What came back. status 0 means no response: `error` says why (refused,
// closed, timed out). For a streamed response `body` holds what was read.
struct HttpResponse {
  int status = 0;
  HttpHeaders headers;
  std::string body;
  std::string error;

  // The first field named `name` (any case), or nullopt.
  std::optional<std::string> header(std::string_view name) const;
  // The same, "" when absent.
  std::string header_or_empty(std::string_view name) const { return header(name).value_or(""); }
  // "HTTP 404 (content-type: ...) body" or the error, for failure messages.
  std::string describe() const;
};

// One event of a text/event-stream (WHATWG HTML "server-sent events").
struct SseEvent {
  std::optional<std::string> id;     // the id: field of this event, when it had one
  std::string event;                 // event: field ("" = "message")
  std::string data;                  // data: lines joined with '\n'
  bool has_data = false;             // some data: line was present (a priming event's is empty)
  std::optional<std::int64_t> retry; // retry: field
  std::string raw;                   // the event's bytes as sent, with its terminating blank line
};

// One keep-alive TCP connection to 127.0.0.1:port. A request on a connection
// the server closed opens a fresh one first. Not thread-safe; use one per
// thread. Every wait is bounded by its timeout.
class HttpConnection {
 public:
  static constexpr std::chrono::milliseconds kTimeout = 5s;

  explicit HttpConnection(std::uint16_t port);
  ~HttpConnection();
  HttpConnection(HttpConnection&&) noexcept;
  HttpConnection& operator=(HttpConnection&&) noexcept;

  std::uint16_t port() const;

  // Sends `request` and reads the whole response.
  HttpResponse request(const HttpRequest& request, std::chrono::milliseconds timeout = kTimeout);

  // Sends `request` and reads only the status line and header fields; the body
  // then comes from read_some() (or, for SSE, an SseStream).
  HttpResponse start(const HttpRequest& request, std::chrono::milliseconds timeout = kTimeout);

  enum class Read { data, end, timeout, error };
  // Appends the next body bytes of a start()ed response to `out`. `end` once
  // the body is complete (the connection stays usable when keep-alive).
  Read read_some(std::string& out, std::chrono::milliseconds timeout);
  // Reads the rest of a start()ed body into `out` until it ends or `timeout`.
  Read read_rest(std::string& out, std::chrono::milliseconds timeout);

  // The last transport error, for messages.
  const std::string& last_error() const;

  bool is_open() const;
  void close();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Splits a text/event-stream body into events, however the bytes were cut.
class SseParser {
 public:
  void feed(std::string_view bytes) { pending_.append(bytes); }
  // The next complete event, or nullopt. `at_end`: no more bytes will come,
  // so a trailing lone '\r' ends its line.
  std::optional<SseEvent> take(bool at_end);
  bool has_event(bool at_end) const;

 private:
  std::string pending_;  // bytes not yet returned as events
};

// A streamed response read as Server-Sent Events: opens its own connection,
// sends the request, and yields events one at a time. close() (or the
// destructor) drops the connection, which the server sees as a disconnect.
class SseStream {
 public:
  SseStream(std::uint16_t port, const HttpRequest& request,
            std::chrono::milliseconds timeout = HttpConnection::kTimeout);

  // Status and header fields; for a response that is not an event stream,
  // body holds the whole body.
  const HttpResponse& response() const { return response_; }
  bool is_event_stream() const;

  // The next event, or nullopt when none arrived within `timeout` or the
  // stream ended (then ended() is true).
  std::optional<SseEvent> next(std::chrono::milliseconds timeout = HttpConnection::kTimeout);
  // True once the server ended the body (or the connection) and every
  // complete event has been returned.
  bool ended() const { return ended_ && !parser_.has_event(true); }
  // Waits up to `timeout` for the end of the stream, keeping any events read
  // meanwhile for next(). True if it ended.
  bool wait_end(std::chrono::milliseconds timeout);
  // Every byte of the body read so far.
  const std::string& raw() const { return raw_; }
  void close();

 private:
  // Reads more of the body into parser_ and raw_; false on timeout.
  bool read_more(std::chrono::milliseconds timeout);

  HttpConnection connection_;
  HttpResponse response_;
  SseParser parser_;
  std::string raw_;
  bool ended_ = false;
};

// A bare TCP connection for abuse cases: arbitrary bytes, sent as slowly as
// asked, and whatever the server answers before it closes.
class RawConnection {
 public:
  // Connects to 127.0.0.1:port; connected() says whether that worked.
  explicit RawConnection(std::uint16_t port);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  // False once the server closed or reset the connection.
  bool send(std::string_view bytes);
  // Sends one byte at a time with `gap` between them; stops early (false) when
  // the server closes, or when `deadline_for_all` passes.
  bool send_slowly(std::string_view bytes, std::chrono::milliseconds gap,
                   std::chrono::milliseconds deadline_for_all = 30s);
  // Reads until the server closes the connection or `timeout` passes; returns
  // what arrived.
  std::string read_until_close(std::chrono::milliseconds timeout);
  // Reads until `text` arrived, the server closed, or `timeout`; returns what arrived.
  std::string read_until(std::string_view text, std::chrono::milliseconds timeout);
  // True when the server closed (EOF or reset) within `timeout`; bytes read
  // meanwhile are appended to received().
  bool closed_by_peer(std::chrono::milliseconds timeout);
  const std::string& received() const { return received_; }
  // Forgets what was received, so read_until looks at new bytes only.
  void clear_received() { received_.clear(); }
  void close();

 private:
  // One poll + recv; -1 on timeout, 0 on close, else the bytes read.
  long read_once(std::chrono::milliseconds timeout);

  int fd_ = -1;
  bool peer_closed_ = false;
  std::string received_;
};

// The status code of the first status line in `bytes` ("HTTP/1.1 408 ..."), or 0.
int status_of_raw_response(std::string_view bytes);

}  // namespace airlock::test
