// MCP over Streamable HTTP: a listening socket, a few I/O threads that run
// every connection, and the sessions they serve. Tool calls still run on the
// server's worker pool, so a slow tool never holds an I/O thread.
#pragma once

#include "config/host_config.hpp"
#include "mcp/session.hpp"
#include "util/error.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace airlock::host {
class Metrics;
}

namespace airlock::host::http {

struct ListenAddress {
  std::string host;  // without brackets
  unsigned short port = 0;  // 0: the kernel picks one
};
// "HOST:PORT" or "[IPV6]:PORT"; port 0 allowed (tests, benchmarks).
Result<ListenAddress> parse_listen_address(std::string_view text);

class HttpServer {
 public:
  // Binds now, so a bad address or a port in use fails before anything is
  // announced; serving starts with run().
  static Result<std::unique_ptr<HttpServer>> bind(const ServerState& server, const ListenAddress& address,
                                                  Metrics* metrics);
  ~HttpServer();

  // The URL clients use, e.g. "http://127.0.0.1:8808/mcp".
  std::string url() const;

  // Serves until SIGTERM or SIGINT, then shuts down gracefully: stops
  // accepting, lets calls in flight answer for up to shutdown_grace_ms,
  // ends every stream, and returns. A call that still runs `abandon_grace`
  // after its cancellation (an in-process plugin that never returns) holds
  // a thread that cannot be stopped: `abandon` is called then, on the
  // shutdown thread, and must end the process.
  void run(std::chrono::milliseconds abandon_grace, const std::function<void()>& abandon);

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace airlock::host::http
