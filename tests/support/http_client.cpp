// A small synchronous HTTP/1.1 client for tests, on Boost.Beast.
//
// Beast's synchronous calls cannot time out, so each operation is started
// asynchronously and the io_context runs for at most the time left; an
// operation still pending then is cancelled, which leaves a body parser
// usable for the next read (nothing was consumed) and lets a test wait for
// "no event within 200 ms" without losing the stream.
#include "http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace airlock::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

std::chrono::milliseconds remaining(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0ms : left;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
           return lower(x) == lower(y);
         });
}

// The end of the first complete event in `text` (just past the blank line
// that ends it), or npos. Lines end in "\r\n", "\n" or "\r"; a '\r' that ends
// the text may be half of a "\r\n" still in flight, unless the stream ended.
std::size_t event_end(std::string_view text, bool at_eof) {
  bool line_empty = true;
  for (std::size_t pos = 0; pos < text.size();) {
    const char c = text[pos];
    if (c != '\r' && c != '\n') {
      line_empty = false;
      ++pos;
      continue;
    }
    std::size_t next = pos + 1;
    if (c == '\r') {
      if (next == text.size() && !at_eof) return std::string_view::npos;
      if (next < text.size() && text[next] == '\n') ++next;
    }
    if (line_empty) return next;
    line_empty = true;
    pos = next;
  }
  return std::string_view::npos;
}

// Parses one event's lines (as event_end delimited them). Returns nullopt for
// a block with no field at all (comments only, or a stray blank line).
std::optional<SseEvent> parse_event(std::string_view block) {
  SseEvent event;
  event.raw = std::string(block);
  bool any_field = false;
  std::string data;
  std::size_t pos = 0;
  while (pos < block.size()) {
    std::size_t eol = block.find_first_of("\r\n", pos);
    if (eol == std::string_view::npos) eol = block.size();
    const std::string_view line = block.substr(pos, eol - pos);
    pos = eol + 1;
    if (eol < block.size() && block[eol] == '\r' && pos < block.size() && block[pos] == '\n') ++pos;
    if (line.empty() || line.front() == ':') continue;
    const std::size_t colon = line.find(':');
    const std::string_view name = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (value.starts_with(' ')) value.remove_prefix(1);
    if (name == "data") {
      data.append(value);
      data.push_back('\n');
      event.has_data = true;
      any_field = true;
    } else if (name == "id") {
      event.id = std::string(value);
      any_field = true;
    } else if (name == "event") {
      event.event = std::string(value);
      any_field = true;
    } else if (name == "retry") {
      std::int64_t ms = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
      if (ec == std::errc{} && end == value.data() + value.size()) event.retry = ms;
      any_field = true;
    }
  }
  if (!data.empty()) data.pop_back();
  event.data = std::move(data);
  if (!any_field) return std::nullopt;
  return event;
}

}  // namespace

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  for (const auto& [field, value] : headers)
    if (iequals(field, name)) return value;
  return std::nullopt;
}

std::string HttpResponse::describe() const {
  if (status == 0) return "no response: " + error;
  std::string text = "HTTP " + std::to_string(status);
  for (const auto& [field, value] : headers) text += "\n  " + field + ": " + value;
  text += "\n" + body.substr(0, 2000);
  if (!error.empty()) text += "\n(error: " + error + ")";
  return text;
}

// ---------------------------------------------------------------------------

struct HttpConnection::State {
  explicit State(std::uint16_t p) : port(p) {}

  // Runs one asynchronous operation for at most `timeout`. `start` receives
  // the completion handler. A timed-out operation is cancelled and reported
  // as asio::error::timed_out.
  template <class Start>
  beast::error_code run(std::chrono::milliseconds timeout, Start&& start) {
    std::optional<beast::error_code> result;
    start([&result](beast::error_code ec, auto&&...) { result = ec; });
    ioc.restart();
    ioc.run_for(timeout);
    if (result) return *result;
    beast::error_code ignored;
    socket.cancel(ignored);
    ioc.restart();
    ioc.run();
    return asio::error::timed_out;
  }

  bool connect(std::chrono::milliseconds timeout) {
    close();
    const tcp::endpoint endpoint(asio::ip::make_address_v4("127.0.0.1"), port);
    const beast::error_code ec =
        run(timeout, [&](auto handler) { socket.async_connect(endpoint, std::move(handler)); });
    if (ec) {
      error = "connect to 127.0.0.1:" + std::to_string(port) + ": " + ec.message();
      close();
      return false;
    }
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    open = true;
    fresh = true;
    return true;
  }

  void close() {
    beast::error_code ignored;
    if (socket.is_open()) {
      socket.shutdown(tcp::socket::shutdown_both, ignored);
      socket.close(ignored);
    }
    open = false;
    parser.reset();
    buffer.clear();
  }

  std::uint16_t port;
  asio::io_context ioc;
  tcp::socket socket{ioc};
  beast::flat_buffer buffer;
  std::optional<http::response_parser<http::buffer_body>> parser;
  bool open = false;
  bool fresh = false;  // no request sent on this connection yet
  std::string error;
};

HttpConnection::HttpConnection(std::uint16_t port) : state_(std::make_unique<State>(port)) {}
HttpConnection::~HttpConnection() = default;
HttpConnection::HttpConnection(HttpConnection&&) noexcept = default;
HttpConnection& HttpConnection::operator=(HttpConnection&&) noexcept = default;

std::uint16_t HttpConnection::port() const { return state_->port; }
const std::string& HttpConnection::last_error() const { return state_->error; }
bool HttpConnection::is_open() const { return state_->open; }
void HttpConnection::close() { state_->close(); }

HttpResponse HttpConnection::start(const HttpRequest& request, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  State& s = *state_;
  HttpResponse response;

  http::request<http::string_body> message;
  message.version(11);
  message.method_string(request.method);
  message.target(request.target);
  bool has_host = false;
  for (const auto& [name, value] : request.headers) {
    message.insert(name, value);
    has_host = has_host || iequals(name, "host");
  }
  if (!has_host) message.set(http::field::host, "127.0.0.1:" + std::to_string(s.port));
  if (!request.body.empty() || request.method == "POST") {
    message.body() = request.body;
    message.content_length(request.body.size());
  }

  // A keep-alive connection the server has since closed fails on first use;
  // then (and only then, as the request was never read) it is sent once more
  // on a fresh connection.
  for (int attempt = 0;; ++attempt) {
    // A body left half read makes the connection unusable for the next request.
    if (!s.open || (s.parser && !s.parser->is_done())) {
      if (!s.connect(remaining(deadline))) {
        response.error = s.error;
        return response;
      }
    }
    const bool reused = !s.fresh;
    s.fresh = false;
    s.parser.emplace();
    s.parser->body_limit(boost::none);
    s.parser->header_limit(1u << 20);
    beast::error_code ec =
        s.run(remaining(deadline), [&](auto handler) { http::async_write(s.socket, message, std::move(handler)); });
    if (!ec) {
      ec = s.run(remaining(deadline),
                 [&](auto handler) { http::async_read_header(s.socket, s.buffer, *s.parser, std::move(handler)); });
    }
    if (ec) {
      const bool stale = ec == http::error::end_of_stream || ec == asio::error::eof ||
                         ec == asio::error::connection_reset || ec == asio::error::broken_pipe;
      s.error = "HTTP " + request.method + " " + request.target + ": " + ec.message();
      s.close();
      if (reused && stale && attempt == 0) continue;
      response.error = s.error;
      return response;
    }
    break;
  }

  const auto& header = s.parser->get();
  response.status = static_cast<int>(header.result_int());
  for (const auto& field : header) response.headers.emplace_back(field.name_string(), field.value());
  return response;
}

HttpConnection::Read HttpConnection::read_some(std::string& out, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  State& s = *state_;
  if (!s.parser) return Read::error;
  std::array<char, 16 * 1024> chunk{};
  while (true) {
    if (s.parser->is_done()) {
      if (!s.parser->keep_alive()) s.close();
      return Read::end;
    }
    auto& body = s.parser->get().body();
    body.data = chunk.data();
    body.size = chunk.size();
    beast::error_code ec = s.run(
        remaining(deadline), [&](auto handler) { http::async_read_some(s.socket, s.buffer, *s.parser, std::move(handler)); });
    const std::size_t got = chunk.size() - s.parser->get().body().size;
    out.append(chunk.data(), got);
    if (ec == http::error::need_buffer) ec = {};
    if (ec == asio::error::timed_out) return got > 0 ? Read::data : Read::timeout;
    if (ec) {
      const bool closed = ec == http::error::end_of_stream || ec == asio::error::eof ||
                          ec == http::error::partial_message;
      s.error = "reading the body: " + ec.message();
      s.close();
      if (got > 0) return Read::data;
      return closed ? Read::end : Read::error;
    }
    if (got > 0) return Read::data;
    if (remaining(deadline) == 0ms) return Read::timeout;
  }
}

HttpConnection::Read HttpConnection::read_rest(std::string& out, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (true) {
    const Read read = read_some(out, remaining(deadline));
    if (read != Read::data) return read;
  }
}

HttpResponse HttpConnection::request(const HttpRequest& request, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  HttpResponse response = start(request, timeout);
  if (response.status == 0) return response;
  switch (read_rest(response.body, remaining(deadline))) {
    case Read::timeout:
      response.error = "the body did not end within " + std::to_string(timeout.count()) + " ms";
      close();
      break;
    case Read::error:
      response.error = last_error();
      break;
    default:
      break;
  }
  return response;
}

// ---------------------------------------------------------------------------

bool SseParser::has_event(bool at_end) const { return event_end(pending_, at_end) != std::string::npos; }

std::optional<SseEvent> SseParser::take(bool at_end) {
  while (true) {
    const std::size_t end = event_end(pending_, at_end);
    if (end == std::string::npos) return std::nullopt;
    std::optional<SseEvent> event = parse_event(std::string_view(pending_).substr(0, end));
    pending_.erase(0, end);
    if (event) return event;
  }
}

SseStream::SseStream(std::uint16_t port, const HttpRequest& request, std::chrono::milliseconds timeout)
    : connection_(port) {
  const Clock::time_point deadline = Clock::now() + timeout;
  response_ = connection_.start(request, timeout);
  if (response_.status == 0) {
    ended_ = true;
    return;
  }
  if (!is_event_stream()) {
    connection_.read_rest(response_.body, remaining(deadline));
    ended_ = true;
  }
}

bool SseStream::is_event_stream() const {
  return response_.header_or_empty("content-type").starts_with("text/event-stream");
}

bool SseStream::read_more(std::chrono::milliseconds timeout) {
  std::string chunk;
  const HttpConnection::Read read = connection_.read_some(chunk, timeout);
  parser_.feed(chunk);
  raw_ += chunk;
  if (read == HttpConnection::Read::end || read == HttpConnection::Read::error) ended_ = true;
  return read != HttpConnection::Read::timeout;
}

std::optional<SseEvent> SseStream::next(std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (true) {
    if (std::optional<SseEvent> event = parser_.take(ended_)) return event;
    if (ended_ || !read_more(remaining(deadline))) return std::nullopt;
  }
}

bool SseStream::wait_end(std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (!ended_)
    if (!read_more(remaining(deadline))) return false;
  return true;
}

void SseStream::close() {
  connection_.close();
  ended_ = true;
}

// ---------------------------------------------------------------------------

RawConnection::RawConnection(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // A loopback connect completes or fails at once, so it can block.
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fd_ = fd;
}

RawConnection::~RawConnection() { close(); }

void RawConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool RawConnection::send(std::string_view bytes) {
  while (fd_ >= 0 && !bytes.empty()) {
    const ssize_t sent = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) {
      peer_closed_ = true;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(sent));
  }
  return fd_ >= 0;
}

bool RawConnection::send_slowly(std::string_view bytes, std::chrono::milliseconds gap,
                                std::chrono::milliseconds deadline_for_all) {
  const Clock::time_point deadline = Clock::now() + deadline_for_all;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (!send(bytes.substr(i, 1))) return false;
    if (i + 1 == bytes.size()) break;
    // Sleeping by polling for input notices at once when the server answers
    // (a 408) or closes, instead of writing into a dead connection.
    if (closed_by_peer(std::min(gap, remaining(deadline)))) return false;
    if (Clock::now() >= deadline) return false;
  }
  return true;
}

long RawConnection::read_once(std::chrono::milliseconds timeout) {
  if (fd_ < 0 || peer_closed_) return 0;
  pollfd p{fd_, POLLIN, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
  if (ready <= 0) return -1;
  std::array<char, 16 * 1024> chunk{};
  const ssize_t got = ::recv(fd_, chunk.data(), chunk.size(), 0);
  if (got <= 0) {
    if (got < 0 && errno == EINTR) return -1;
    peer_closed_ = true;
    return 0;
  }
  received_.append(chunk.data(), static_cast<std::size_t>(got));
  return got;
}

bool RawConnection::closed_by_peer(std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (!peer_closed_) {
    if (read_once(remaining(deadline)) < 0 && Clock::now() >= deadline) return false;
  }
  return true;
}

std::string RawConnection::read_until_close(std::chrono::milliseconds timeout) {
  closed_by_peer(timeout);
  return received_;
}

std::string RawConnection::read_until(std::string_view text, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (!peer_closed_ && received_.find(text) == std::string::npos) {
    if (read_once(remaining(deadline)) < 0 && Clock::now() >= deadline) break;
  }
  return received_;
}

int status_of_raw_response(std::string_view bytes) {
  if (!bytes.starts_with("HTTP/1.") || bytes.size() < 12) return 0;
  int status = 0;
  const auto [end, ec] = std::from_chars(bytes.data() + 9, bytes.data() + 12, status);
  return ec == std::errc{} && end == bytes.data() + 12 ? status : 0;
}

}  // namespace airlock::test
