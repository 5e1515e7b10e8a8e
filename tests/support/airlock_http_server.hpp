// Runs `airlock serve --http` as a child process and finds the port it bound.
#pragma once

#include "subprocess.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace airlock::test {

using namespace std::chrono_literals;

// `airlock serve --config <config> --http <listen>` (listen "127.0.0.1:0" by
// default: an ephemeral port). The constructor waits for the log line
// "listening on http://HOST:PORT/PATH"; ready() says whether it came.
// The destructor kills the server if it is still running.
class AirlockHttpServer {
 public:
  explicit AirlockHttpServer(const std::filesystem::path& config, std::string listen = "127.0.0.1:0",
                             std::chrono::milliseconds startup = 10s);

  // True once the server logged its address.
  bool ready() const { return port_ != 0; }
  std::uint16_t port() const { return port_; }
  // The path the server logged (the MCP endpoint), e.g. "/mcp".
  const std::string& path() const { return path_; }
  // "http://127.0.0.1:PORT/mcp".
  std::string url() const;

  Subprocess& process() { return process_; }
  std::string stderr_text() const { return process_.stderr_text(); }

  // Sends `signal_number` to the server.
  void signal(int signal_number);
  // SIGTERM, then waits for the exit status (nullopt: still running).
  std::optional<int> terminate(std::chrono::milliseconds timeout = 10s);

 private:
  Subprocess process_;
  std::uint16_t port_ = 0;
  std::string path_;
};

// The argv of `airlock serve --config <config> --http <listen>`.
std::vector<std::string> serve_http_argv(const std::filesystem::path& config, const std::string& listen);

// Parses "listening on http://HOST:PORT/PATH" out of a log; port 0 if absent.
struct ListenAddress {
  std::string host;
  std::uint16_t port = 0;
  std::string path;
};
ListenAddress find_listen_address(const std::string& log);

}  // namespace airlock::test
