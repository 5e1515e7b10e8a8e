// The reference the stdio bench measures airlock against: the least a C++
// MCP server must do to echo text over stdio. One thread; Boost.JSON parses
// each line; responses are flushed whenever no complete request is waiting,
// so a pipelining client is never stalled and a burst costs one write.
#include <boost/json.hpp>

#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>

namespace json = boost::json;

namespace {

bool write_all(std::string& out) {
  std::string_view rest = out;
  while (!rest.empty()) {
    const ssize_t n = ::write(STDOUT_FILENO, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  out.clear();
  return true;
}

json::object reply(const json::value& id, json::value result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json::object error(const json::value& id, int code, std::string_view message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

// The response to one request line, or null for a notification.
json::value handle(std::string_view line) {
  json::error_code ec;
  json::value message = json::parse(line, ec);
  if (ec || !message.is_object()) return error(nullptr, -32700, "parse error");
  const json::object& request = message.as_object();
  const json::value* id = request.if_contains("id");
  const json::value* method = request.if_contains("method");
  if (!id) return nullptr;
  if (!method || !method->is_string()) return error(*id, -32600, "invalid request");
  const json::string& name = method->as_string();
  if (name == "initialize")
    return reply(*id, {{"protocolVersion", "2025-11-25"},
                       {"capabilities", {{"tools", json::object{}}}},
                       {"serverInfo", {{"name", "echo-baseline"}, {"version", "1"}}}});
  if (name == "ping") return reply(*id, json::object{});
  if (name == "tools/list")
    return reply(*id, {{"tools", json::array{json::object{
                                     {"name", "example.echo"},
                                     {"inputSchema", {{"type", "object"}}}}}}});
  if (name == "tools/call") {
    const json::value* text = message.find_pointer("/params/arguments/text", ec);
    if (!text || !text->is_string()) return error(*id, -32602, "text is required");
    return reply(*id, {{"content", json::array{json::object{{"type", "text"}, {"text", *text}}}},
                       {"isError", false}});
  }
  return error(*id, -32601, "method not found");
}

}  // namespace

int main() {
  std::string in;
  std::string out;
  std::size_t scanned = 0;
  char chunk[1 << 16];
  for (;;) {
    // Answer every complete line already read.
    std::size_t start = 0;
    for (std::size_t nl; (nl = in.find('\n', scanned)) != std::string::npos; scanned = start) {
      const json::value response = handle(std::string_view(in).substr(start, nl - start));
      start = nl + 1;
      if (!response.is_null()) {
        out += json::serialize(response);
        out += '\n';
      }
    }
    in.erase(0, start);
    scanned = in.size();
    // Nothing complete is left: flush before blocking on input.
    if (!out.empty() && !write_all(out)) return 1;
    const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    in.append(chunk, static_cast<std::size_t>(n));
  }
}
