// A real HTTP/1.1 origin on 127.0.0.1 for egress tests, on synchronous Beast.
//
// Synchronous Asio calls cannot be cancelled from another thread, so stopping
// works one level down: the destructor shuts down the listening socket and
// every connection's socket with ::shutdown(2) on their descriptors, which
// wakes a thread blocked in accept, read or write, and never touches the Asio
// objects those threads own.
#include "origin_server.hpp"

#include <sys/socket.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace airlock::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

}  // namespace

struct OriginServer::State {
  Handler handler;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  int listen_fd = -1;
  std::uint16_t port = 0;
  std::thread accept_thread;

  // This mutex guards stopping, requests, open_fds and connection_threads;
  // stop_cv waits on it so that a delayed response ends when the server stops.
  mutable std::mutex mutex;
  std::condition_variable stop_cv;
  bool stopping = false;
  std::vector<Request> requests;
  std::vector<int> open_fds;  // connections still open, shut down on stop
  std::vector<std::thread> connection_threads;

  void accept_loop();
  void serve(tcp::socket socket);
  Response answer(const Request& request);
  // False when the server stopped while waiting.
  bool wait_unless_stopping(std::chrono::milliseconds delay);
};

void OriginServer::State::accept_loop() {
  for (;;) {
    tcp::socket socket(io);
    boost::system::error_code ec;
    acceptor.accept(socket, ec);
    std::lock_guard lock(mutex);
    if (stopping) return;
    if (ec) continue;  // e.g. a connection reset before it was accepted
    open_fds.push_back(socket.native_handle());
    connection_threads.emplace_back([this, s = std::move(socket)]() mutable { serve(std::move(s)); });
  }
}

OriginServer::Response OriginServer::State::answer(const Request& request) {
  try {
    return handler(request);
  } catch (const std::exception& e) {
    return Response{500, {{"Content-Type", "text/plain"}}, std::string("handler threw: ") + e.what(), {}};
  }
}

bool OriginServer::State::wait_unless_stopping(std::chrono::milliseconds delay) {
  std::unique_lock lock(mutex);
  return !stop_cv.wait_for(lock, delay, [this] { return stopping; });
}

void OriginServer::State::serve(tcp::socket socket) {
  beast::flat_buffer buffer;
  for (;;) {
    http::request<http::string_body> incoming;
    boost::system::error_code ec;
    http::read(socket, buffer, incoming, ec);
    if (ec) break;

    Request request;
    request.method = std::string(incoming.method_string());
    request.target = std::string(incoming.target());
    for (const auto& field : incoming) request.headers.emplace_back(field.name_string(), field.value());
    request.body = incoming.body();
    {
      std::lock_guard lock(mutex);
      requests.push_back(request);
    }

    const Response reply = answer(request);
    if (reply.delay.count() > 0 && !wait_unless_stopping(reply.delay)) break;

    http::response<http::string_body> outgoing;
    outgoing.version(incoming.version());
    outgoing.result(static_cast<unsigned>(reply.status));
    for (const auto& [name, value] : reply.headers) outgoing.insert(name, value);
    outgoing.body() = reply.body;
    outgoing.keep_alive(incoming.keep_alive());
    outgoing.prepare_payload();
    http::write(socket, outgoing, ec);
    if (ec || !outgoing.keep_alive()) break;
  }

  // Forgotten before it is closed, so the destructor never shuts down a
  // descriptor number the system has already handed to someone else.
  {
    std::lock_guard lock(mutex);
    std::erase(open_fds, socket.native_handle());
  }
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

OriginServer::OriginServer(Handler handler) : state_(std::make_unique<State>()) {
  state_->handler = std::move(handler);
  const tcp::endpoint loopback(asio::ip::make_address("127.0.0.1"), 0);
  state_->acceptor.open(loopback.protocol());
  state_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  state_->acceptor.bind(loopback);
  state_->acceptor.listen();
  state_->listen_fd = state_->acceptor.native_handle();
  state_->port = state_->acceptor.local_endpoint().port();
  state_->accept_thread = std::thread([state = state_.get()] { state->accept_loop(); });
}

OriginServer::~OriginServer() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
    ::shutdown(state_->listen_fd, SHUT_RDWR);
    for (const int fd : state_->open_fds) ::shutdown(fd, SHUT_RDWR);
  }
  state_->stop_cv.notify_all();
  state_->accept_thread.join();
  // No thread is added once the accept loop has returned.
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(state_->mutex);
    threads.swap(state_->connection_threads);
  }
  for (auto& thread : threads) thread.join();
  boost::system::error_code ignored;
  state_->acceptor.close(ignored);
}

std::uint16_t OriginServer::port() const { return state_->port; }

std::string OriginServer::url(std::string_view target) const {
  return "http://127.0.0.1:" + std::to_string(state_->port) + std::string(target);
}

std::vector<OriginServer::Request> OriginServer::requests() const {
  std::lock_guard lock(state_->mutex);
  return state_->requests;
}

}  // namespace airlock::test
