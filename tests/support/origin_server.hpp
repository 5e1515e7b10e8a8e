// A real HTTP/1.1 origin on 127.0.0.1 for egress tests: answers every request
// through a handler the test supplies and remembers what it was asked, so a
// test can prove that a refused destination saw nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace airlock::test {

// Listens on 127.0.0.1 on an ephemeral port from construction until
// destruction. Each connection is served on a thread of its own, so a slow
// response (Response::delay) never holds up another connection. The
// destructor closes every connection, cuts short any pending delay and joins
// all threads.
class OriginServer {
 public:
  struct Request {
    std::string method, target;
    std::vector<std::pair<std::string, std::string>> headers;  // in the order received
    std::string body;
  };
  struct Response {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;  // Content-Length is always set by the server
    std::string body;
    std::chrono::milliseconds delay{0};  // before the response is written; the server stays responsive
  };
  // Called on a connection's thread, possibly on several threads at once.
  using Handler = std::function<Response(const Request&)>;

  explicit OriginServer(Handler handler);
  ~OriginServer();
  OriginServer(const OriginServer&) = delete;
  OriginServer& operator=(const OriginServer&) = delete;

  std::uint16_t port() const;
  // "http://127.0.0.1:PORT" + target.
  std::string url(std::string_view target) const;
  // Every request received so far, in order of arrival (thread-safe).
  std::vector<Request> requests() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace airlock::test
