// Speaks MCP over Streamable HTTP: one session, JSON or SSE answers.
#include "mcp_http_client.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <system_error>

namespace airlock::test {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

std::chrono::milliseconds remaining(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0ms : left;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
           return lower(x) == lower(y);
         });
}

}  // namespace

Message parse_message(std::string_view text) {
  Message message;
  message.line = std::string(text);
  std::error_code ec;
  json::value value = json::parse(text, ec);
  if (!ec) message.json = std::move(value);
  return message;
}

bool answers(const Message& message, const json::value& id) {
  const json::object* o = message.json.if_object();
  return o && !o->contains("method") && (o->contains("result") || o->contains("error")) && o->contains("id") &&
         o->at("id") == id;
}

std::vector<Message> McpReply::others() const {
  std::vector<Message> rest;
  for (const Message& m : messages)
    if (m.line != response.line) rest.push_back(m);
  return rest;
}

std::string McpReply::describe() const {
  std::string text = http.describe();
  if (is_sse()) {
    text += "\nevents:";
    for (const SseEvent& e : events) text += "\n  [" + e.raw + "]";
  }
  return text;
}

McpHttpClient::McpHttpClient(std::uint16_t port, std::string path)
    : port_(port), path_(std::move(path)), connection_(port) {}

void McpHttpClient::set_header(std::string_view name, std::string value) {
  std::erase_if(extra_headers_, [&](const auto& field) { return iequals(field.first, name); });
  if (!value.empty()) extra_headers_.emplace_back(std::string(name), std::move(value));
}

void McpHttpClient::set_bearer(std::string token) {
  set_header("Authorization", token.empty() ? std::string() : "Bearer " + token);
}

HttpHeaders McpHttpClient::common_headers() const {
  HttpHeaders headers = extra_headers_;
  if (!session_id_.empty()) headers.emplace_back("Mcp-Session-Id", session_id_);
  if (!protocol_header_.empty()) headers.emplace_back("MCP-Protocol-Version", protocol_header_);
  return headers;
}

HttpRequest McpHttpClient::post_request(std::string body) const {
  HttpRequest request{.method = "POST", .target = path_, .headers = common_headers(), .body = std::move(body)};
  request.headers.emplace_back("Content-Type", "application/json");
  if (!accept_.empty()) request.headers.emplace_back("Accept", accept_);
  return request;
}

HttpResponse McpHttpClient::raw(const HttpRequest& request, std::chrono::milliseconds timeout) {
  return connection_.request(request, timeout);
}

McpReply McpHttpClient::initialize(std::string_view protocol_version, bool send_initialized) {
  session_id_.clear();
  protocol_header_.clear();
  const json::value id = next_id();
  McpReply reply = send(json::object{{"jsonrpc", "2.0"},
                                     {"id", id},
                                     {"method", "initialize"},
                                     {"params",
                                      {{"protocolVersion", protocol_version},
                                       {"capabilities", json::object{}},
                                       {"clientInfo", {{"name", "airlock-http-test"}, {"version", "0"}}}}}});
  session_id_ = reply.http.header_or_empty("mcp-session-id");
  const std::string negotiated = string_at(reply.response, "/result/protocolVersion");
  protocol_header_ = negotiated;
  if (send_initialized && reply.http.status == 200) notify("notifications/initialized");
  return reply;
}

McpReply McpHttpClient::call(std::string_view method, std::optional<json::object> params,
                             std::chrono::milliseconds timeout) {
  json::object message{{"jsonrpc", "2.0"}, {"id", next_id()}, {"method", method}};
  if (params) message["params"] = std::move(*params);
  return send(message, timeout);
}

McpReply McpHttpClient::call_tool(std::string_view name, json::object arguments, std::chrono::milliseconds timeout) {
  return call("tools/call", json::object{{"name", name}, {"arguments", std::move(arguments)}}, timeout);
}

McpReply McpHttpClient::send(const json::value& message, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  const HttpResponse head = connection_.start(post_request(json::serialize(message)), timeout);
  json::value id;
  if (const json::object* o = message.if_object(); o && o->contains("id") && o->contains("method"))
    id = o->at("id");
  return read_reply(head, id, remaining(deadline));
}

McpReply McpHttpClient::read_reply(const HttpResponse& head, const json::value& id,
                                   std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  McpReply reply;
  reply.http = head;
  if (head.status == 0) return reply;

  if (!reply.is_sse()) {
    if (connection_.read_rest(reply.http.body, remaining(deadline)) == HttpConnection::Read::timeout) {
      reply.http.error = "the body did not end in time";
      connection_.close();
    }
    if (!reply.http.body.empty()) {
      Message m = parse_message(reply.http.body);
      if (answers(m, id) || (id.is_null() && m.json.is_object() && m.json.as_object().contains("error")))
        reply.response = m;
      reply.messages.push_back(std::move(m));
    }
    return reply;
  }

  // An event stream: read events until the body ends; the response is among
  // them (the contract ends the stream right after it).
  SseParser parser;
  bool ended = false;
  while (true) {
    while (std::optional<SseEvent> event = parser.take(ended)) {
      reply.events.push_back(*event);
      if (!event->has_data || event->data.empty()) continue;
      Message m = parse_message(event->data);
      if (answers(m, id)) reply.response = m;
      if (is_server_request(m)) answer(m);
      reply.messages.push_back(std::move(m));
    }
    if (ended) break;
    std::string chunk;
    const HttpConnection::Read read = connection_.read_some(chunk, remaining(deadline));
    reply.http.body += chunk;
    parser.feed(chunk);
    if (read == HttpConnection::Read::end || read == HttpConnection::Read::error) ended = true;
    if (read == HttpConnection::Read::timeout) {
      reply.stream_ended = false;
      reply.http.error = "the event stream did not end in time";
      connection_.close();
      break;
    }
  }
  return reply;
}

void McpHttpClient::answer(const Message& request) {
  if (!on_server_request) return;
  json::object response = on_server_request(request);
  response["jsonrpc"] = "2.0";
  response["id"] = request.json.as_object().at("id");
  if (!side_connection_) side_connection_.emplace(port_);
  side_connection_->request(post_request(json::serialize(response)));
}

HttpResponse McpHttpClient::notify(std::string_view method, json::object params) {
  json::object message{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.empty()) message["params"] = std::move(params);
  return connection_.request(post_request(json::serialize(message)));
}

SseStream McpHttpClient::post_stream(const json::value& message, std::chrono::milliseconds timeout) {
  return SseStream(port_, post_request(json::serialize(message)), timeout);
}

SseStream McpHttpClient::get_stream(std::optional<std::string> last_event_id, std::chrono::milliseconds timeout) {
  HttpRequest request{.method = "GET", .target = path_, .headers = common_headers(), .body = {}};
  request.headers.emplace_back("Accept", "text/event-stream");
  if (last_event_id) request.headers.emplace_back("Last-Event-ID", *last_event_id);
  return SseStream(port_, request, timeout);
}

HttpResponse McpHttpClient::end_session() {
  return connection_.request(HttpRequest{.method = "DELETE", .target = path_, .headers = common_headers(), .body = {}});
}

}  // namespace airlock::test
