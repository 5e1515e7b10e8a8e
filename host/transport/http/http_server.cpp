#include "transport/http/http_server.hpp"

#include "metrics/metrics.hpp"
#include "transport/http/connection.hpp"
#include "transport/http/http_front.hpp"
#include "transport/http/server_context.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <mutex>
#include <thread>
#include <vector>

namespace airlock::host::http {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

Result<ListenAddress> parse_listen_address(std::string_view text) {
  ListenAddress address;
  std::string_view port;
  if (text.starts_with('[')) {
    const auto close = text.find("]:");
    if (close == std::string_view::npos) return Error{fmt::format("--http {}: expected [IPV6]:PORT", text)};
    address.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos || text.substr(0, colon).find(':') != std::string_view::npos)
      return Error{fmt::format("--http {}: expected HOST:PORT or [IPV6]:PORT", text)};
    address.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
  }
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), address.port);
  if (address.host.empty() || port.empty() || ec != std::errc() || end != port.data() + port.size())
    return Error{fmt::format("--http {}: expected a port from 0 to 65535", text)};
  if (address.host == "localhost") address.host = "127.0.0.1";
  return address;
}

struct HttpServer::Impl {
  Impl(const ServerState& server, Metrics* metrics_sink)
      : state(server),
        config(server.config.http),
        // Relief threads (io_relief.hpp) may run it beside the I/O threads.
        io(static_cast<int>(2 * config.io_threads)),
        relief(io, config.io_threads),
        acceptor(io),
        signals(io, SIGINT, SIGTERM),
        sweep(io),
        auth(config.tokens),
        oauth(server.config),
        rate(config.rate_limit, config.rate_burst),
        metrics(metrics_sink),
        sessions(server, config.max_sessions, std::chrono::seconds(config.session_idle_timeout_s),
                 HttpSession::Limits{config.replay_bytes, config.sse_retry_ms}) {}

  void accept();
  void on_accept(boost::system::error_code ec, tcp::socket socket);
  void schedule_sweep();
  void shut_down();

  // What run() was told to do about a call that never returns.
  std::chrono::milliseconds abandon_grace{0};
  const std::function<void()>* abandon = nullptr;

  const ServerState& state;
  const HttpConfig& config;
  asio::io_context io;
  IoRelief relief;
  tcp::acceptor acceptor;
  asio::signal_set signals;
  asio::steady_timer sweep;
  Authenticator auth;
  OAuthAuthenticator oauth;
  RateLimiter rate;
  Metrics* metrics;
  SessionTable sessions;
  std::shared_ptr<ServerContext> context;
  std::shared_ptr<const HttpFront> front;  // serves every connection's requests
  std::string url;

  std::mutex connections_mutex;  // guards connections
  std::vector<std::weak_ptr<Connection>> connections;
};

Result<std::unique_ptr<HttpServer>> HttpServer::bind(const ServerState& server, const ListenAddress& address,
                                                     Metrics* metrics) {
  auto impl = std::make_unique<Impl>(server, metrics);
  const HttpConfig& config = impl->config;
  boost::system::error_code ec;
  const auto ip = asio::ip::make_address(address.host, ec);
  if (ec) return Error{fmt::format("--http {}:{}: not an IP address (use 127.0.0.1, ::1 or another literal address)",
                                   address.host, address.port)};
  if (!ip.is_loopback() && !impl->auth.enabled() && !impl->oauth.enabled() && !config.allow_unauthenticated_remote)
    return Error{fmt::format("refusing to serve {} without authentication: declare [[transport.http.tokens]] or "
                             "[auth.oauth], or set "
                             "transport.http.allow_unauthenticated_remote = true to accept anyone who can reach it",
                             address.host)};
  const tcp::endpoint endpoint(ip, address.port);
  auto& acceptor = impl->acceptor;
  if (acceptor.open(endpoint.protocol(), ec); !ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Error{fmt::format("cannot listen on {}:{}: {}", address.host, address.port, ec.message())};

  const auto bound = acceptor.local_endpoint();
  const std::string shown = ip.is_v6() ? fmt::format("[{}]", ip.to_string()) : ip.to_string();
  impl->url = fmt::format("http://{}:{}{}", shown, bound.port(), config.path);

  std::shared_ptr<spdlog::logger> access;
  if (config.access_log) {
    access = spdlog::default_logger()->clone("access");
  }
  impl->context.reset(new ServerContext{server, config, server.config.server.max_message_bytes, impl->sessions,
                                        impl->auth, impl->oauth, impl->rate, metrics,
                                        make_host_policy(address.host, config.allowed_hosts, config.allowed_origins),
                                        std::move(access)});
  impl->context->relief = &impl->relief;
  if (metrics)
    impl->context->bodies.observe(
        [metrics](std::size_t held, std::size_t waiting) { metrics->http_bodies(held, waiting); });
  impl->front = std::make_shared<const HttpFront>(impl->context);
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() = default;

std::string HttpServer::url() const { return impl_->url; }

void HttpServer::Impl::accept() {
  acceptor.async_accept(asio::make_strand(io), [this](boost::system::error_code ec, tcp::socket socket) {
    on_accept(ec, std::move(socket));
  });
}

void HttpServer::Impl::on_accept(boost::system::error_code ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
  if (!ec) {
    socket.set_option(tcp::no_delay(true), ec);
    if (context->connections.load() >= config.max_connections) {
      // Answered without reading: a short write into an empty socket buffer
      // does not block, and the client learns why instead of seeing a reset.
      static constexpr std::string_view kBusy =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 1\r\nConnection: close\r\n\r\n";
      socket.non_blocking(true, ec);
      asio::write(socket, asio::buffer(kBusy), ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
      socket.close(ec);
    } else {
      auto connection = std::make_shared<Connection>(std::move(socket), context, front);
      {
        std::lock_guard lock(connections_mutex);
        if (connections.size() > 64 && connections.size() > 2 * context->connections.load())
          std::erase_if(connections, [](const auto& weak) { return weak.expired(); });
        connections.push_back(connection);
      }
      connection->start();
    }
  } else {
    // Out of descriptors and the like: keep accepting after a breath
    // rather than spinning on the error.
    spdlog::warn("accept failed: {}", ec.message());
  }
  accept();
}

void HttpServer::Impl::schedule_sweep() {
  const auto every = std::clamp<std::chrono::seconds>(std::chrono::seconds(config.session_idle_timeout_s / 10), 1s, 60s);
  sweep.expires_after(every);
  sweep.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    const auto expired = sessions.expire(std::chrono::steady_clock::now());
    if (metrics)
      for (std::size_t i = 0; i < expired; ++i) metrics->session_closed();
    schedule_sweep();
  });
}

void HttpServer::run(std::chrono::milliseconds abandon_grace, const std::function<void()>& abandon) {
  Impl& impl = *impl_;
  impl.abandon_grace = abandon_grace;
  impl.abandon = &abandon;
  spdlog::info("listening on {}", impl.url);
  impl.accept();
  impl.schedule_sweep();

  std::thread shutdown;
  impl.signals.async_wait([&impl, &shutdown](boost::system::error_code ec, int signal) {
    if (ec) return;
    spdlog::info("{}: shutting down; calls in flight get up to {} ms", signal == SIGTERM ? "SIGTERM" : "SIGINT",
                 impl.config.shutdown_grace_ms);
    // Waiting for calls blocks, and the I/O threads must keep delivering
    // their answers meanwhile: the shutdown runs on its own thread.
    shutdown = std::thread([&impl] { impl.shut_down(); });
  });

  // The issuers' keys, fetched before the first token needs them and off
  // the I/O threads (a fetch blocks for up to auth.oauth.fetch_timeout_ms).
  std::thread prefetch;
  if (impl.oauth.enabled()) prefetch = std::thread([&impl] { impl.oauth.prefetch(); });

  std::vector<std::thread> threads;
  for (std::uint32_t i = 1; i < impl.config.io_threads; ++i) threads.emplace_back([&impl] { impl.io.run(); });
  impl.io.run();
  for (auto& t : threads) t.join();
  impl.relief.stop();
  if (shutdown.joinable()) shutdown.join();
  if (prefetch.joinable()) prefetch.join();
  spdlog::info("HTTP server stopped");
}

void HttpServer::Impl::shut_down() {
  context->draining = true;
  asio::post(io, [this] {
    boost::system::error_code ignored;
    acceptor.close(ignored);
    sweep.cancel();
  });
  {
    std::lock_guard lock(connections_mutex);
    for (auto& weak : connections)
      if (auto connection = weak.lock()) connection->drain();
  }
  if (!sessions.close_all(std::chrono::milliseconds(config.shutdown_grace_ms), abandon_grace)) (*abandon)();
  // Streams now end; give their last bytes a moment to leave.
  const auto deadline = std::chrono::steady_clock::now() + 2s;
  while (context->connections.load() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  {
    std::lock_guard lock(connections_mutex);
    for (auto& weak : connections)
      if (auto connection = weak.lock()) connection->drain();
  }
  io.stop();
}

}  // namespace airlock::host::http
