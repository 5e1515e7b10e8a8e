// The connection alone: bytes, timers and writes, with a request handler of
// the test's own in place of the HTTP front. A real Connection on a real
// loopback socket, read by a plain blocking client, so what is asserted is
// what goes over the wire: keep-alive and pipelining, the limits and
// timeouts and their statuses, a session's stream as SSE or as one JSON
// body, and HTTP/1.0, which gets neither chunks nor keep-alive.
#include "transport/http/connection.hpp"

#include "test_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace airlock::host::http {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using testing::HasSubstr;
using testing::StartsWith;

constexpr std::string_view kPing = R"({"jsonrpc":"2.0","id":7,"method":"ping"})";

// Answers by path: /echo with the body, /close and closes, /json and /sse
// with a session's answer to a ping as the MCP endpoint would.
class TestHandler final : public RequestHandler {
 public:
  explicit TestHandler(const ServerState& state) : state_(state) {}

  void serve(Request& request, Exchange& exchange) const override {
    served.fetch_add(1);
    const std::string target(request.target());
    if (target == "/echo") return exchange.respond(200, "echo:" + request.body(), "text/plain");
    if (target == "/close") return exchange.respond(200, "bye", "text/plain", true);
    if (target == "/json" || target == "/sse") {
      const bool json = target == "/json";
      auto session = std::make_shared<HttpSession>(state_, "s-test", "", HttpSession::Limits{1 << 20, 1000});
      const auto stream = session->open_request_stream("7", json);
      if (!stream) return exchange.respond(500, "no stream", "text/plain");
      if (exchange.attach(session, *stream, 0, false) != HttpSession::Attach::ok)
        return exchange.respond(500, "no attach", "text/plain");
      session->mcp().handle(request.body());
      return json ? exchange.answer_json() : exchange.answer_stream();
    }
    exchange.respond(404, "not found\n", "text/plain");
  }

  mutable std::atomic<int> served{0};

 private:
  const ServerState& state_;
};

class ConnectionTest : public testing::Test {
 protected:
  ConnectionTest()
      : server_(unit::TestServerOptions{.fixtures = {}}),
        auth_(std::vector<TokenConfig>{}),
        oauth_(server_.config()),
        rate_(0, 0),
        sessions_(server_.state(), 16, std::chrono::seconds(60), HttpSession::Limits{1 << 20, 1000}) {
    config_.read_timeout_ms = 300;
    config_.idle_timeout_ms = 400;
    config_.max_header_bytes = 1024;
    context_.reset(new ServerContext{server_.state(), config_, 4096, sessions_, auth_, oauth_, rate_, nullptr,
                                     HostPolicy{}, nullptr});
    handler_ = std::make_shared<TestHandler>(server_.state());
    acceptor_.open(tcp::v4());
    acceptor_.bind(tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    acceptor_.listen();
    accept();
    io_thread_ = std::thread([this] { io_.run(); });
  }

  ~ConnectionTest() override {
    asio::post(io_, [this] { acceptor_.close(); });
    work_.reset();
    io_.stop();
    io_thread_.join();
  }

  // A blocking client socket that gives up on a read after 5 s, so a
  // connection that never answers fails the test instead of hanging it.
  tcp::socket connect() {
    tcp::socket socket(client_io_);
    socket.connect(acceptor_.local_endpoint());
    const timeval limit{5, 0};
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    return socket;
  }

  static void write(tcp::socket& socket, std::string_view bytes) { asio::write(socket, asio::buffer(bytes)); }

  // Everything the server sends until it closes the connection (or 5 s pass).
  static std::string read_to_close(tcp::socket& socket) {
    std::string all;
    char chunk[4096];
    for (;;) {
      boost::system::error_code ec;
      const std::size_t n = socket.read_some(asio::buffer(chunk), ec);
      all.append(chunk, n);
      if (ec) return all;
    }
  }

  // Reads until `bytes` holds `count` complete responses of the simple kind
  // the handler writes (a Content-Length body), or the server closes.
  static std::string read_responses(tcp::socket& socket, int count) {
    std::string all;
    char chunk[4096];
    for (;;) {
      int complete = 0;
      for (std::size_t at = 0;;) {
        const auto head_end = all.find("\r\n\r\n", at);
        if (head_end == std::string::npos) break;
        const auto length_at = all.find("Content-Length: ", at);
        if (length_at == std::string::npos || length_at > head_end) break;
        const std::size_t length = std::stoul(all.substr(length_at + 16));
        if (all.size() < head_end + 4 + length) break;
        ++complete;
        at = head_end + 4 + length;
      }
      if (complete >= count) return all;
      boost::system::error_code ec;
      const std::size_t n = socket.read_some(asio::buffer(chunk), ec);
      all.append(chunk, n);
      if (ec) return all;
    }
  }

  static std::string post(std::string_view target, std::string_view body, std::string_view version = "1.1") {
    return std::string("POST ").append(target).append(" HTTP/").append(version) +
           "\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
  }

  unit::TestServer server_;
  HttpConfig config_;
  Authenticator auth_;
  OAuthAuthenticator oauth_;
  RateLimiter rate_;
  SessionTable sessions_;
  std::shared_ptr<ServerContext> context_;
  std::shared_ptr<TestHandler> handler_;
  asio::io_context io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{io_.get_executor()};
  tcp::acceptor acceptor_{io_};
  std::thread io_thread_;
  asio::io_context client_io_;

 private:
  void accept() {
    acceptor_.async_accept(asio::make_strand(io_), [this](boost::system::error_code ec, tcp::socket socket) {
      if (ec) return;
      std::make_shared<Connection>(std::move(socket), context_, handler_)->start();
      accept();
    });
  }
};

TEST_F(ConnectionTest, RequestsOnOneConnectionAreAnsweredInOrderEvenWhenPipelined) {
  auto socket = connect();
  write(socket, post("/echo", "one"));
  EXPECT_THAT(read_responses(socket, 1), HasSubstr("echo:one"));
  // Two at once: the second waits in the buffer until the first is answered.
  write(socket, post("/echo", "two") + post("/echo", "three"));
  const std::string both = read_responses(socket, 2);
  const auto two = both.find("echo:two");
  const auto three = both.find("echo:three");
  ASSERT_NE(two, std::string::npos) << both;
  ASSERT_NE(three, std::string::npos) << both;
  EXPECT_LT(two, three);
  EXPECT_EQ(handler_->served.load(), 3);
}

TEST_F(ConnectionTest, AResponseThatClosesEndsTheConnectionAfterIt) {
  auto socket = connect();
  write(socket, post("/close", ""));
  const std::string all = read_to_close(socket);
  EXPECT_THAT(all, StartsWith("HTTP/1.1 200 OK"));
  EXPECT_THAT(all, HasSubstr("Connection: close"));
  EXPECT_THAT(all, HasSubstr("\r\n\r\nbye"));
}

TEST_F(ConnectionTest, OversizedHeadersAndBodiesAreRefusedWithTheirStatusAndTheSettingToRaise) {
  {
    auto socket = connect();
    write(socket, "GET /echo HTTP/1.1\r\nHost: localhost\r\nX-Big: " + std::string(2000, 'a') + "\r\n\r\n");
    const std::string all = read_to_close(socket);
    EXPECT_THAT(all, StartsWith("HTTP/1.1 431"));
    EXPECT_THAT(all, HasSubstr("transport.http.max_header_bytes"));
  }
  {
    auto socket = connect();
    write(socket, post("/echo", std::string(5000, 'b')));
    const std::string all = read_to_close(socket);
    EXPECT_THAT(all, StartsWith("HTTP/1.1 413"));
    EXPECT_THAT(all, HasSubstr("server.max_message_bytes"));
  }
  EXPECT_EQ(handler_->served.load(), 0);
}

TEST_F(ConnectionTest, ARequestThatDoesNotArriveInTimeGets408AndTheConnectionCloses) {
  auto socket = connect();
  write(socket, "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\nabc");
  const auto started = std::chrono::steady_clock::now();
  const std::string all = read_to_close(socket);
  EXPECT_THAT(all, StartsWith("HTTP/1.1 408"));
  EXPECT_THAT(all, HasSubstr("transport.http.read_timeout_ms"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4));
  EXPECT_EQ(handler_->served.load(), 0);
}

TEST_F(ConnectionTest, AnIdleKeepAliveConnectionIsClosedByTheServer) {
  auto socket = connect();
  write(socket, post("/echo", "x"));
  ASSERT_THAT(read_responses(socket, 1), HasSubstr("echo:x"));
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(read_to_close(socket), "");  // no bytes, then the close
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4));
}

// The timer is re-armed lazily (a standing wait that ends early waits
// again for the rest): a connection in steady use for several read and
// idle timeouts is never cut by a deadline it has since moved, and the
// idle timeout still counts from its last request.
TEST_F(ConnectionTest, AConnectionInUseLongerThanItsTimeoutsIsNotCutAndIdlesOutAfterItsLastRequest) {
  auto socket = connect();
  const auto first = std::chrono::steady_clock::now();
  int answered = 0;
  // When the last answer arrived: the idle timeout runs from its write, a
  // little before. (Taken after the pause that follows it, the 50 ms pause
  // overshot on a loaded machine and the idle close looked early.)
  auto last = first;
  while (std::chrono::steady_clock::now() - first < std::chrono::milliseconds(1200)) {  // 4 read timeouts
    write(socket, post("/echo", std::to_string(answered)));
    ASSERT_THAT(read_responses(socket, 1), HasSubstr("echo:" + std::to_string(answered)));
    last = std::chrono::steady_clock::now();
    ++answered;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(handler_->served.load(), answered);
  EXPECT_EQ(read_to_close(socket), "");  // no 408, no bytes: the idle close
  const auto idle = std::chrono::steady_clock::now() - last;
  EXPECT_GE(idle, std::chrono::milliseconds(350));  // idle_timeout_ms is 400
  EXPECT_LT(idle, std::chrono::seconds(2));
}

TEST_F(ConnectionTest, BytesThatAreNotHttpGet400AndAClose) {
  auto socket = connect();
  write(socket, "HELLO\r\n\r\n");
  const std::string all = read_to_close(socket);
  EXPECT_THAT(all, StartsWith("HTTP/1.1 400"));
  EXPECT_THAT(all, HasSubstr("Bad Request"));
}

TEST_F(ConnectionTest, ASessionsStreamGoesOutAsServerSentEventsInChunks) {
  auto socket = connect();
  write(socket, post("/sse", kPing) + "GET /close HTTP/1.1\r\nHost: localhost\r\n\r\n");
  const std::string all = read_to_close(socket);
  EXPECT_THAT(all, StartsWith("HTTP/1.1 200 OK"));
  EXPECT_THAT(all, HasSubstr("Content-Type: text/event-stream"));
  EXPECT_THAT(all, HasSubstr("Transfer-Encoding: chunked"));
  EXPECT_THAT(all, HasSubstr(R"(data: {"jsonrpc":"2.0","id":7,"result":{}})"));
  // The last chunk ends the stream, and the connection serves the next request.
  const auto last_chunk = all.find("\r\n0\r\n\r\n");
  ASSERT_NE(last_chunk, std::string::npos) << all;
  EXPECT_THAT(all.substr(last_chunk), HasSubstr("bye"));
}

TEST_F(ConnectionTest, ASessionsAnswerInJsonModeIsOneBodyWithItsLength) {
  auto socket = connect();
  write(socket, post("/json", kPing));
  const std::string all = read_responses(socket, 1);
  EXPECT_THAT(all, StartsWith("HTTP/1.1 200 OK"));
  EXPECT_THAT(all, HasSubstr("Content-Type: application/json"));
  EXPECT_THAT(all, HasSubstr("\r\n\r\n" + std::string(R"({"jsonrpc":"2.0","id":7,"result":{}})")));
  EXPECT_THAT(all, testing::Not(HasSubstr("chunked")));
}

TEST_F(ConnectionTest, AnHttp10StreamHasNoChunksAndEndsWithTheClose) {
  auto socket = connect();
  write(socket, post("/sse", kPing, "1.0"));
  const std::string all = read_to_close(socket);
  EXPECT_THAT(all, StartsWith("HTTP/1.1 200 OK"));
  EXPECT_THAT(all, testing::Not(HasSubstr("chunked")));
  EXPECT_THAT(all, HasSubstr(R"(data: {"jsonrpc":"2.0","id":7,"result":{}})"));
  EXPECT_THAT(all, testing::Not(HasSubstr("\r\n0\r\n\r\n")));
}

}  // namespace
}  // namespace airlock::host::http
