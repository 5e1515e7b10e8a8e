// What the unit tests of the HTTP layers above the connection share: a
// ServerContext over a TestServer with the real session table, token
// authenticator and rate limiter, and an Exchange that records the answer
// instead of writing it to a socket. So the front and the MCP endpoint are
// driven exactly as a Connection drives them, and what they chose to answer
// is read back whole: status, headers, body, a session's stream.
#pragma once

#include "test_server.hpp"
#include "transport/http/exchange.hpp"
#include "transport/http/server_context.hpp"
#include "util/sha256.hpp"

#include <boost/beast/http/field.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace airlock::unit {

namespace http = host::http;

class RecordingExchange final : public http::Exchange {
 public:
  RecordingExchange() : Exchange("127.0.0.1:40000") {}

  void send(std::shared_ptr<http::Response> response, bool close) override {
    response_ = std::move(response);
    closes = close;
    ++answers;
  }
  void announce_session(std::string id) override { announced = std::move(id); }
  http::HttpSession::Attach attach(std::shared_ptr<http::HttpSession> session, std::uint32_t stream,
                                   std::optional<std::uint64_t> from, bool take_over) override {
    const auto attached = session->attach(stream, sink_, from, cursor_, take_over);
    if (attached == http::HttpSession::Attach::ok) {
      session_ = std::move(session);
      stream_ = stream;
    }
    return attached;
  }
  // The session's answer, as the connection would take it once ready (the
  // tests' requests are answered before the handler returns).
  void answer_json() override {
    ++answers;
    json = session_->take_json_response(stream_).value_or("(not ready)");
  }
  void answer_stream() override {
    ++answers;
    events = session_->pull(stream_, cursor_, sink_.get()).bytes;
  }

  unsigned status() const { return response_ ? response_->result_int() : 0; }
  std::string body() const { return response_ ? response_->body() : std::string(); }
  std::string field(boost::beast::http::field name) const {
    if (!response_) return {};
    auto it = response_->find(name);
    return it == response_->end() ? std::string() : std::string(it->value());
  }

  int answers = 0;  // responses, JSON answers and streams together: exactly one per request
  bool closes = false;
  std::string announced;  // Mcp-Session-Id of a session the request opened
  std::string json;       // answer_json's body
  std::string events;     // answer_stream's SSE bytes

 private:
  struct NullSink final : http::StreamSink {
    void wake() override {}
  };
  std::shared_ptr<http::StreamSink> sink_ = std::make_shared<NullSink>();
  std::shared_ptr<http::Response> response_;
  std::shared_ptr<http::HttpSession> session_;
  std::uint32_t stream_ = 0;
  std::uint64_t cursor_ = 0;
};

// A token that [[transport.http.tokens]] would configure for `identity`.
inline host::TokenConfig token_for(std::string identity, std::string_view token) {
  host::TokenConfig config;
  config.identity = std::move(identity);
  config.sha256 = host::sha256(token);
  return config;
}

struct HttpServerOptions {
  std::vector<host::TokenConfig> tokens{};
  double rate = 0;  // requests per second per caller; 0: no limit
  std::uint32_t burst = 0;
};

// A ServerContext as HttpServer::bind builds it, over the canary fixture.
class HttpTestServer {
 public:
  explicit HttpTestServer(HttpServerOptions options = {})
      : server_(TestServerOptions{.fixtures = {"canary"}}),
        auth_(options.tokens),
        oauth_(server_.config()),
        rate_(options.rate, options.burst),
        sessions_(server_.state(), 16, std::chrono::seconds(60), http::HttpSession::Limits{1 << 20, 1000}) {
    context_ = std::shared_ptr<http::ServerContext>(
        new http::ServerContext{server_.state(), config_, server_.config().server.max_message_bytes, sessions_,
                                auth_, oauth_, rate_, nullptr, http::make_host_policy("127.0.0.1", {}, {}),
                                nullptr});
  }

  const std::shared_ptr<http::ServerContext>& context() { return context_; }
  http::SessionTable& sessions() { return sessions_; }
  host::HttpConfig& config() { return config_; }

 private:
  TestServer server_;
  host::HttpConfig config_;
  http::Authenticator auth_;
  host::OAuthAuthenticator oauth_;
  http::RateLimiter rate_;
  http::SessionTable sessions_;
  std::shared_ptr<http::ServerContext> context_;
};

// A request as a client would send it to 127.0.0.1.
inline http::Request request(boost::beast::http::verb verb, std::string_view target, std::string body = {}) {
  http::Request r(verb, std::string(target), 11);
  r.set(boost::beast::http::field::host, "127.0.0.1:8808");
  if (!body.empty()) {
    r.set(boost::beast::http::field::content_type, "application/json");
    r.set(boost::beast::http::field::accept, "application/json, text/event-stream");
  }
  r.body() = std::move(body);
  r.prepare_payload();
  return r;
}

}  // namespace airlock::unit
