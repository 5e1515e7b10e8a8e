// The reference the HTTP bench measures airlock against: the least a C++
// MCP server must do to echo text over Streamable HTTP. POST /mcp (and
// DELETE of a session); initialize hands out an Mcp-Session-Id that later
// requests must carry; tools/call of example.echo answers
// {"content":[{"type":"text","text":...}]}, as one JSON body when Accept
// allows only application/json, else as an SSE stream (a priming event, then
// the message) sent as a single chunk.
// Keep-alive; Boost.JSON parses every body; nothing is sanitized.
//
// MCP 2026-07-28 stand-alone requests too (a POST without Mcp-Session-Id
// whose MCP-Protocol-Version header is 2026-07-28 or whose params carry
// _meta), with only what the revision makes a MUST: _meta's protocolVersion
// and clientCapabilities present, the version this one and equal to the
// header, Mcp-Method (and Mcp-Name for tools/call) repeating the body, each
// refusal with the revision's code and status, resultType "complete" on
// every result, ttlMs and cacheScope on tools/list and server/discover. No
// SHOULDs (no serverInfo in the results' _meta). The answer is framed as for
// a session (SSE when accepted, as airlock does by default) without event
// ids or a priming event: 2026-07-28 streams are not resumable.
//
//   http_echo_baseline [--listen 127.0.0.1:0] [--threads N]
//
// Prints "listening on http://HOST:PORT/mcp" on stderr, as airlock does.
// --threads N runs the one io_context on N threads (default 1, as airlock's
// transport.http.io_threads); each connection is one coroutine, so its
// requests are handled in order whichever thread runs them.
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;

namespace {

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kMaxBody = 4u << 20;  // airlock's default server.max_message_bytes

struct Session {
  std::atomic<std::uint32_t> next_stream{1};  // SSE event ids are "<stream>-<seq>"
};

class Sessions {
 public:
  std::pair<std::string, Session*> create() {
    std::lock_guard lock(mutex_);
    std::string id;
    for (int i = 0; i < 4; ++i) {
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(random_()));
      id += hex;
    }
    auto& slot = sessions_[id];
    slot = std::make_unique<Session>();
    return {id, slot.get()};
  }

  bool remove(std::string_view id) {
    std::lock_guard lock(mutex_);
    return sessions_.erase(std::string(id)) > 0;
  }

  Session* find(std::string_view id) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(std::string(id));
    return it == sessions_.end() ? nullptr : it->second.get();
  }

 private:
  std::mutex mutex_;
  std::mt19937_64 random_{std::random_device{}()};
  std::unordered_map<std::string, std::unique_ptr<Session>> sessions_;
};

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

json::object reply(json::value id, json::value result) {
  return {{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"result", std::move(result)}};
}

json::object error(json::value id, int code, std::string_view message) {
  return {{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"error", {{"code", code}, {"message", message}}}};
}

constexpr std::string_view kModernVersion = "2026-07-28";

std::string_view header(const Request& request, std::string_view name) {
  const auto it = request.find(name);
  if (it == request.end()) return {};
  std::string_view value(it->value().data(), it->value().size());
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  return value;
}

bool is_modern(const Request& request, const json::value& message) {
  if (request.find("Mcp-Session-Id") != request.end()) return false;
  if (header(request, "MCP-Protocol-Version") == kModernVersion) return true;
  json::error_code ec;
  return message.find_pointer("/params/_meta", ec) != nullptr;
}

// A 2026-07-28 request: the response's HTTP status and JSON-RPC message, or
// a null message for a notification (202).
std::pair<http::status, json::value> answer_modern(const Request& request, json::value& message) {
  json::object* object = message.if_object();
  json::value* id = object ? object->if_contains("id") : nullptr;
  const json::value* method = object ? object->if_contains("method") : nullptr;
  if (!method || !method->is_string()) return {http::status::bad_request, error(nullptr, -32600, "invalid request")};
  if (!id) return {http::status::accepted, nullptr};
  json::error_code ec;
  const json::value* version = message.find_pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion", ec);
  const json::value* capabilities =
      message.find_pointer("/params/_meta/io.modelcontextprotocol~1clientCapabilities", ec);
  if (!version || !version->is_string() || !capabilities || !capabilities->is_object())
    return {http::status::bad_request, error(std::move(*id), -32602, "invalid params: _meta needs protocolVersion "
                                                                      "and clientCapabilities")};
  if (version->as_string() != header(request, "MCP-Protocol-Version"))
    return {http::status::bad_request, error(std::move(*id), -32020, "MCP-Protocol-Version does not match _meta")};
  if (version->as_string() != kModernVersion) {
    json::object refusal = error(std::move(*id), -32022, "unsupported protocol version");
    refusal["error"].as_object()["data"] = {{"supported", json::array{kModernVersion}}, {"requested", *version}};
    return {http::status::bad_request, std::move(refusal)};
  }
  const json::string& name = method->as_string();
  if (header(request, "Mcp-Method") != std::string_view(name))
    return {http::status::bad_request, error(std::move(*id), -32020, "Mcp-Method does not match the body")};
  const json::object tools_capability{{"tools", json::object{}}};
  if (name == "server/discover")
    return {http::status::ok, reply(std::move(*id), {{"resultType", "complete"},
                                                     {"supportedVersions", json::array{kModernVersion}},
                                                     {"capabilities", tools_capability},
                                                     {"ttlMs", 0},
                                                     {"cacheScope", "public"}})};
  if (name == "tools/list")
    return {http::status::ok,
            reply(std::move(*id), {{"resultType", "complete"},
                                   {"tools", json::array{json::object{{"name", "example.echo"},
                                                                      {"inputSchema", {{"type", "object"}}}}}},
                                   {"ttlMs", 0},
                                   {"cacheScope", "public"}})};
  if (name == "tools/call") {
    const json::value* tool = message.find_pointer("/params/name", ec);
    if (!tool || !tool->is_string() || header(request, "Mcp-Name") != std::string_view(tool->as_string()))
      return {http::status::bad_request, error(std::move(*id), -32020, "Mcp-Name does not match the body")};
    json::value* text = message.find_pointer("/params/arguments/text", ec);
    if (tool->as_string() != "example.echo") return {http::status::ok, error(std::move(*id), -32602, "unknown tool")};
    if (!text || !text->is_string()) return {http::status::ok, error(std::move(*id), -32602, "text is required")};
    json::array content{json::object{{"type", "text"}, {"text", std::move(*text)}}};
    return {http::status::ok, reply(std::move(*id), {{"resultType", "complete"}, {"content", std::move(content)}})};
  }
  return {http::status::not_found, error(std::move(*id), -32601, "method not found")};
}

bool accepts_sse(const Request& request) {
  const auto accept = request[http::field::accept];
  return std::string_view(accept.data(), accept.size()).find("text/event-stream") != std::string_view::npos;
}

Response plain(const Request& request, http::status status, std::string body = {}) {
  Response response(status, 11);
  if (!body.empty()) response.set(http::field::content_type, "application/json");
  response.body() = std::move(body);
  response.keep_alive(request.keep_alive());
  response.prepare_payload();
  return response;
}

// What the request's JSON-RPC message asks for, or null for a notification.
json::value answer(json::value& message, Session* session, std::string& new_session, Sessions& sessions) {
  json::object* request = message.if_object();
  if (!request) return error(nullptr, -32600, "invalid request");
  json::value* id = request->if_contains("id");
  const json::value* method = request->if_contains("method");
  if (!id) return nullptr;
  if (!method || !method->is_string()) return error(std::move(*id), -32600, "invalid request");
  const json::string& name = method->as_string();
  if (name == "initialize") {
    new_session = sessions.create().first;
    return reply(std::move(*id), {{"protocolVersion", "2025-11-25"},
                                  {"capabilities", {{"tools", {{"listChanged", false}}}}},
                                  {"serverInfo", {{"name", "http-echo-baseline"}, {"version", "1"}}}});
  }
  if (!session) return error(std::move(*id), -32600, "Mcp-Session-Id required");
  if (name == "ping") return reply(std::move(*id), json::object{});
  if (name == "tools/list")
    return reply(std::move(*id), {{"tools", json::array{json::object{{"name", "example.echo"},
                                                                     {"inputSchema", {{"type", "object"}}}}}}});
  if (name == "tools/call") {
    json::error_code ec;
    json::value* text = message.find_pointer("/params/arguments/text", ec);
    const json::value* tool = message.find_pointer("/params/name", ec);
    if (!tool || !tool->is_string() || tool->as_string() != "example.echo") return error(std::move(*id), -32602, "unknown tool");
    if (!text || !text->is_string()) return error(std::move(*id), -32602, "text is required");
    return reply(std::move(*id), {{"content", json::array{json::object{{"type", "text"}, {"text", std::move(*text)}}}}});
  }
  return error(std::move(*id), -32601, "method not found");
}

Response handle(const Request& request, Sessions& sessions) {
  const std::string_view target(request.target().data(), request.target().size());
  if (target != "/mcp") return plain(request, http::status::not_found);
  const auto session_header = request.find("Mcp-Session-Id");
  if (request.method() == http::verb::delete_ && session_header != request.end())
    return plain(request, sessions.remove(std::string_view(session_header->value().data(), session_header->value().size()))
                              ? http::status::no_content : http::status::not_found);
  if (request.method() != http::verb::post) return plain(request, http::status::method_not_allowed);
  Session* session = nullptr;
  if (const auto it = session_header; it != request.end()) {
    session = sessions.find(std::string_view(it->value().data(), it->value().size()));
    if (!session) return plain(request, http::status::not_found, R"({"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}})");
  }
  json::error_code ec;
  json::value message = json::parse(request.body(), ec);
  if (ec) return plain(request, http::status::bad_request, json::serialize(error(nullptr, -32700, "parse error")));

  if (is_modern(request, message)) {
    auto [status, result] = answer_modern(request, message);
    if (result.is_null()) return plain(request, http::status::accepted);
    if (status != http::status::ok || !accepts_sse(request)) return plain(request, status, json::serialize(result));
    Response response(http::status::ok, 11);
    response.keep_alive(request.keep_alive());
    std::string& body = response.body();
    body.append("event: message\ndata: ").append(json::serialize(result)).append("\n\n");
    response.set(http::field::content_type, "text/event-stream");
    response.set(http::field::cache_control, "no-cache");
    response.chunked(true);
    return response;
  }

  std::string new_session;
  const json::value result = answer(message, session, new_session, sessions);
  if (result.is_null()) return plain(request, http::status::accepted);

  const bool sse = accepts_sse(request);
  Response response(http::status::ok, 11);
  if (!new_session.empty()) response.set("Mcp-Session-Id", new_session);
  response.keep_alive(request.keep_alive());
  if (!sse) {
    response.set(http::field::content_type, "application/json");
    response.body() = json::serialize(result);
    response.prepare_payload();
    return response;
  }
  const std::uint32_t stream = session ? session->next_stream.fetch_add(1) : 0;
  const std::string serialized = json::serialize(result);
  std::string& body = response.body();
  body.reserve(serialized.size() + 64);
  body.append("id: ").append(std::to_string(stream)).append("-0\nretry: 1000\ndata: \n\n");
  body.append("id: ").append(std::to_string(stream)).append("-1\nevent: message\ndata: ");
  body.append(serialized).append("\n\n");
  response.set(http::field::content_type, "text/event-stream");
  response.set(http::field::cache_control, "no-cache");
  response.chunked(true);
  return response;
}

asio::awaitable<void> serve(tcp::socket socket, Sessions& sessions) {
  beast::flat_buffer buffer;
  // Beast reads at most the buffer's free capacity (and at least 512 bytes)
  // per call: a big one keeps a 256 KiB request to a few reads.
  buffer.reserve(64u << 10);
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(kMaxBody);
    auto [rec, rn] = co_await http::async_read(socket, buffer, parser, kTuple);
    if (rec) break;
    const Request& request = parser.get();
    Response response = handle(request, sessions);
    auto [wec, wn] = co_await http::async_write(socket, response, kTuple);
    if (wec || !response.keep_alive()) break;
  }
  beast::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
}

asio::awaitable<void> accept(tcp::acceptor& acceptor, Sessions& sessions) {
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(kTuple);
    if (ec == asio::error::operation_aborted) co_return;
    if (ec) continue;
    socket.set_option(tcp::no_delay(true), ec);
    asio::co_spawn(acceptor.get_executor(), serve(std::move(socket), sessions), asio::detached);
  }
}

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "http_echo_baseline: " << why << "\nusage: http_echo_baseline [--listen HOST:PORT] [--threads N]\n";
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string listen = "127.0.0.1:0";
  int threads = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--listen") listen = value;
    else if (flag == "--threads") threads = std::atoi(value.c_str());
    else usage("unknown option " + flag);
  }
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos || threads < 1 || threads > 64) usage("bad --listen or --threads");
  beast::error_code ec;
  const auto address = asio::ip::make_address(listen.substr(0, colon), ec);
  if (ec || !address.is_loopback()) usage("--listen must be a loopback address and port");

  asio::io_context io(threads);
  tcp::acceptor acceptor(io);
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(std::atoi(listen.c_str() + colon + 1)));
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    std::cerr << "http_echo_baseline: cannot listen on " << listen << ": " << ec.message() << "\n";
    return 1;
  }
  std::fprintf(stderr, "listening on http://%s:%u/mcp\n", address.to_string().c_str(),
               static_cast<unsigned>(acceptor.local_endpoint().port()));

  Sessions sessions;
  asio::co_spawn(io, accept(acceptor, sessions), asio::detached);
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&io](beast::error_code, int) { io.stop(); });
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back([&io] { io.run(); });
  io.run();
  for (auto& t : pool) t.join();
}
