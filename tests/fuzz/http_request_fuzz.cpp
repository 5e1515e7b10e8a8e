// http_request_fuzz — raw HTTP/1.1 request bytes through what the HTTP
// transport does with a request before a session gets it. Connection
// (host/transport/http/connection.cpp) owns a TCP socket and its checks are
// private steps of its handler, so this target parses the bytes with the
// same Beast request_parser (body limited like [server] max_message_bytes)
// and then calls, in Connection::handle's order, the functions it calls:
// host_allowed and origin_allowed (DNS rebinding), the bearer Authenticator,
// protocol_header_accepted, is_json_content_type and parse_accept,
// jsonrpc::parse of the body, the session lookup in a SessionTable (unknown
// ids), the era decision, and for a 2026-07-28 request admit_modern with
// the request's headers (Mcp-Method, Mcp-Name, Mcp-Param-*), then the
// admitted request served by Session::handle_modern. Asserts that nothing
// crashes or throws, that decode_header_value only ever yields valid UTF-8
// without CR, LF or NUL unless base64 spelled them, that a rejection carries a 4xx status and a
// message, and that everything a session sends is one line of JSON-RPC
// (outbox.hpp).
// GCC 12 with sanitizers misreports Beast's parser (boost::optional in
// basic_parser.hpp) as maybe-uninitialized; set before every include.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "fuzz_server.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/method_table.hpp"
#include "mcp/modern_request.hpp"
#include "mcp/protocol.hpp"
#include "mcp/request_headers.hpp"
#include "outbox.hpp"
#include "transport/http/auth.hpp"
#include "transport/http/request_guard.hpp"
#include "transport/http/session_table.hpp"

#include <boost/beast/http.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace bhttp = boost::beast::http;

namespace {

// A request's headers as admit_modern reads them (names without case).
class FieldsView final : public airlock::host::HeaderView {
 public:
  explicit FieldsView(const bhttp::fields& fields) : fields_(fields) {}
  std::size_t count(std::string_view name) const override { return fields_.count(name); }
  std::optional<std::string_view> get(std::string_view name) const override {
    const auto it = fields_.find(name);
    if (it == fields_.end()) return std::nullopt;
    return std::string_view(it->value().data(), it->value().size());
  }

 private:
  const bhttp::fields& fields_;
};

std::string_view header(const bhttp::request<bhttp::string_body>& request, std::string_view name) {
  const auto it = request.find(name);
  if (it == request.end()) return {};
  return {it->value().data(), it->value().size()};
}

airlock::host::http::SessionTable& sessions() {
  static airlock::host::http::SessionTable table(airlock::fuzz::FuzzServer::get().state(), 4,
                                                 std::chrono::seconds(60), {1 << 20, 1000});
  return table;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace airlock;
  using namespace airlock::host;
  const auto& server = fuzz::FuzzServer::get();
  static const http::HostPolicy hosts = http::make_host_policy("127.0.0.1", {}, {});
  static const http::Authenticator no_tokens(std::vector<TokenConfig>{});

  bhttp::request_parser<bhttp::string_body> parser;
  parser.body_limit(server.config().server.max_message_bytes);
  parser.eager(true);
  // Fed the way a socket read loop feeds it (Beast's http::read_some): the
  // bytes arrive in growing pieces, and after need_more the unconsumed bytes
  // come again with more behind them, never alone.
  boost::beast::error_code ec;
  std::size_t at = 0;
  std::size_t arrived = std::min<std::size_t>(size, 64);
  while (at < arrived && !parser.is_done()) {
    at += parser.put(boost::asio::buffer(data + at, arrived - at), ec);
    if (ec == bhttp::error::need_more) {
      if (arrived == size) break;  // the client sent nothing more
      ec = {};
      arrived = std::min(size, arrived * 2);
    } else if (ec) {
      break;
    }
  }
  if (ec || !parser.is_header_done()) return 0;
  const auto& request = parser.get();

  // Header values as 2026-07-28 reads them, every one of them. A value
  // decoded from =?base64?...?= may hold any UTF-8 text, CR, LF and NUL
  // included (it must equal a JSON string of the body, which may hold them;
  // every message that shows it quotes it); a literal value never holds
  // them.
  for (const auto& field : request) {
    const std::string_view raw(field.value().data(), field.value().size());
    if (const auto decoded = decode_header_value(raw)) {
      if (!valid_utf8(*decoded)) std::abort();
      std::string_view value = raw;
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
      const bool sentinel = value.starts_with("=?base64?") && value.ends_with("?=");
      if (!sentinel && decoded->find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) std::abort();
    }
  }

  if (!http::host_allowed(header(request, "Host"), hosts)) return 0;
  if (!http::origin_allowed(header(request, "Origin"), hosts)) return 0;
  (void)no_tokens.authenticate(header(request, "Authorization"));
  const std::string_view protocol = header(request, "MCP-Protocol-Version");
  const bool protocol_ok = protocol.empty() || http::protocol_header_accepted(protocol);
  if (request.method() != bhttp::verb::post || !parser.is_done()) {
    if (const std::string_view id = header(request, "Mcp-Session-Id"); !id.empty())
      (void)sessions().find(id, "anonymous");
    return 0;
  }
  if (!http::is_json_content_type(header(request, "Content-Type"))) return 0;
  (void)http::parse_accept(header(request, "Accept"));

  auto parsed = jsonrpc::parse(request.body());
  auto* message = std::get_if<jsonrpc::Message>(&parsed);
  if (!message) return 0;
  const std::string_view session_id = header(request, "Mcp-Session-Id");
  const bool modern = message_era(*message, !session_id.empty(), protocol) == Era::modern;
  if (!modern) {
    if (protocol_ok && !session_id.empty()) (void)sessions().find(session_id, "anonymous");
    return 0;
  }
  if (message->kind != jsonrpc::Message::Kind::request) return 0;

  const FieldsView headers(request.base());
  auto admitted = admit_modern(server.state(), *message, &headers, {}, "anonymous");
  if (const auto* rejection = std::get_if<Rejection>(&admitted)) {
    if (rejection->http_status < 400 || rejection->http_status > 499 || rejection->message.empty()) std::abort();
    fuzz::Outbox::check(jsonrpc::error(message->id, rejection->code, rejection->message, rejection->data));
    return 0;
  }
  fuzz::Outbox outbox;
  Session session(server.state(), outbox.sender());
  session.handle_modern(*message, std::move(std::get<RequestScope>(admitted)));
  session.close(std::chrono::milliseconds(2000));
  return 0;
}
