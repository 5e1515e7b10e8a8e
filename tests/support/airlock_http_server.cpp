// Runs `airlock serve --http` as a child process and finds the port it bound.
#include "airlock_http_server.hpp"

#include "test_paths.hpp"

#include <signal.h>

#include <charconv>
#include <thread>

namespace airlock::test {

std::vector<std::string> serve_http_argv(const std::filesystem::path& config, const std::string& listen) {
  return {kAirlockBinary, "serve", "--config", config.string(), "--http", listen};
}

ListenAddress find_listen_address(const std::string& log) {
  static constexpr std::string_view kMarker = "listening on http://";
  ListenAddress address;
  const std::size_t at = log.find(kMarker);
  if (at == std::string::npos) return address;
  const std::size_t start = at + kMarker.size();
  std::size_t end = log.find_first_of(" \t\r\n\"'", start);
  if (end == std::string::npos) end = log.size();
  const std::string_view url = std::string_view(log).substr(start, end - start);
  const std::size_t slash = url.find('/');
  const std::string_view authority = url.substr(0, slash);
  address.path = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
  const std::size_t colon = authority.rfind(':');
  if (colon == std::string_view::npos) return address;
  address.host = std::string(authority.substr(0, colon));
  unsigned port = 0;
  const std::string_view digits = authority.substr(colon + 1);
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (ec == std::errc{} && ptr == digits.data() + digits.size() && port > 0 && port < 65536)
    address.port = static_cast<std::uint16_t>(port);
  return address;
}

AirlockHttpServer::AirlockHttpServer(const std::filesystem::path& config, std::string listen,
                                     std::chrono::milliseconds startup)
    : process_(serve_http_argv(config, listen)) {
  const auto deadline = std::chrono::steady_clock::now() + startup;
  while (std::chrono::steady_clock::now() < deadline) {
    const ListenAddress address = find_listen_address(process_.stderr_text());
    if (address.port != 0) {
      port_ = address.port;
      path_ = address.path;
      return;
    }
    // A server that exited will never listen.
    if (process_.wait_exit(10ms)) return;
  }
}

std::string AirlockHttpServer::url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + path_;
}

void AirlockHttpServer::signal(int signal_number) {
  // An exited child's pid may already name another process.
  if (process_.pid() > 0 && !process_.wait_exit(0ms)) ::kill(process_.pid(), signal_number);
}

std::optional<int> AirlockHttpServer::terminate(std::chrono::milliseconds timeout) {
  signal(SIGTERM);
  return process_.wait_exit(timeout);
}

}  // namespace airlock::test
