// Speaks MCP over a child's stdio: newline-delimited JSON-RPC 2.0.
#include "mcp_stdio_client.hpp"

#include "test_paths.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <system_error>

namespace airlock::test {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds remaining(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0ms : left;
}

bool is_response(const boost::json::value& message) {
  const boost::json::object& json = message.as_object();
  return json.contains("id") && (json.contains("result") || json.contains("error")) &&
         !json.contains("method");
}

bool has_id(const boost::json::value& message, const boost::json::value& id) {
  return is_response(message) && message.as_object().at("id") == id;
}

}  // namespace

const boost::json::value* find(const Message& message, std::string_view pointer) {
  std::error_code ec;
  return message.json.find_pointer(pointer, ec);
}

std::string string_at(const Message& message, std::string_view pointer) {
  const boost::json::value* v = find(message, pointer);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::int64_t int_at(const Message& message, std::string_view pointer, std::int64_t fallback) {
  const boost::json::value* v = find(message, pointer);
  if (v && v->is_int64()) return v->as_int64();
  if (v && v->is_uint64()) return static_cast<std::int64_t>(v->as_uint64());
  return fallback;
}

bool is_error(const Message& message) {
  return message.json.is_object() && message.json.as_object().contains("error");
}

bool is_server_request(const Message& message) {
  const boost::json::object* json = message.json.if_object();
  return json && json->contains("id") && json->contains("method");
}

std::string method_of(const Message& message) {
  const boost::json::object* json = message.json.if_object();
  const boost::json::value* method = json ? json->if_contains("method") : nullptr;
  return method && method->is_string() ? std::string(method->as_string()) : std::string();
}

bool is_tool_error(const Message& message) {
  const boost::json::value* v = find(message, "/result/isError");
  return v && v->is_bool() && v->as_bool();
}

McpStdioClient::McpStdioClient(std::vector<std::string> argv, Subprocess::Options options)
    : process_(std::move(argv), std::move(options)) {}

void McpStdioClient::send(const boost::json::value& message) {
  send_line(boost::json::serialize(message));
}

void McpStdioClient::send_line(std::string_view line) {
  std::string bytes(line);
  bytes.push_back('\n');
  EXPECT_TRUE(process_.write(bytes)) << "the server stopped reading its stdin";
}

boost::json::value McpStdioClient::request(std::string_view method, boost::json::object params) {
  const boost::json::value id = next_id_++;
  send(boost::json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  return id;
}

void McpStdioClient::notify(std::string_view method, boost::json::object params) {
  send(boost::json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

std::optional<Message> McpStdioClient::read_message(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    std::optional<std::string> line = process_.read_line(remaining(deadline));
    if (!line) return std::nullopt;
    lines_.push_back(*line);
    std::error_code ec;
    boost::json::value parsed = boost::json::parse(*line, ec);
    if (ec || !parsed.is_object()) {
      ADD_FAILURE() << "stdout line is not a JSON-RPC message (stdout must carry only protocol "
                       "lines): "
                    << line->substr(0, 300);
      continue;
    }
    return Message{std::move(parsed), std::move(*line)};
  }
}

std::optional<Message> McpStdioClient::wait_response(const boost::json::value& id,
                                                     std::chrono::milliseconds timeout) {
  for (auto it = kept_.begin(); it != kept_.end(); ++it) {
    if (has_id(it->json, id)) {
      Message found = std::move(*it);
      kept_.erase(it);
      return found;
    }
  }
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    std::optional<Message> message = read_message(remaining(deadline));
    if (!message) return std::nullopt;
    if (has_id(message->json, id)) return message;
    kept_.push_back(std::move(*message));
  }
}

std::optional<Message> McpStdioClient::next_message(std::chrono::milliseconds timeout) {
  if (!kept_.empty()) {
    Message first = std::move(kept_.front());
    kept_.pop_front();
    return first;
  }
  return read_message(timeout);
}

std::optional<Message> McpStdioClient::wait_request(std::string_view method, std::chrono::milliseconds timeout) {
  auto wanted = [&](const Message& m) { return is_server_request(m) && method_of(m) == method; };
  for (auto it = kept_.begin(); it != kept_.end(); ++it) {
    if (wanted(*it)) {
      Message found = std::move(*it);
      kept_.erase(it);
      return found;
    }
  }
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    std::optional<Message> message = read_message(remaining(deadline));
    if (!message) return std::nullopt;
    if (wanted(*message)) return message;
    kept_.push_back(std::move(*message));
  }
}

void McpStdioClient::respond(const boost::json::value& id, boost::json::value result) {
  send(boost::json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void McpStdioClient::respond_error(const boost::json::value& id, std::int64_t code, std::string_view message) {
  send(boost::json::object{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

bool McpStdioClient::no_response_within(const boost::json::value& id,
                                        std::chrono::milliseconds window) {
  return !wait_response(id, window).has_value();
}

Message McpStdioClient::call(std::string_view method, boost::json::object params,
                             std::chrono::milliseconds timeout) {
  const boost::json::value id = request(method, std::move(params));
  std::optional<Message> response = wait_response(id, timeout);
  if (!response) {
    ADD_FAILURE() << "no response to " << method << " (id " << boost::json::serialize(id)
                  << ") within " << timeout.count() << " ms; stderr:\n"
                  << process_.stderr_text();
    return Message{};
  }
  return std::move(*response);
}

Message McpStdioClient::initialize(std::string_view protocol_version, boost::json::object capabilities) {
  Message response = call("initialize", {{"protocolVersion", protocol_version},
                                         {"capabilities", std::move(capabilities)},
                                         {"clientInfo", {{"name", "airlock-integration-test"},
                                                         {"version", "0"}}}});
  notify("notifications/initialized");
  return response;
}

Message McpStdioClient::call_tool(std::string_view name, std::optional<boost::json::value> arguments,
                                  std::chrono::milliseconds timeout) {
  boost::json::object params{{"name", name}};
  if (arguments) params["arguments"] = std::move(*arguments);
  return call("tools/call", std::move(params), timeout);
}

std::optional<int> McpStdioClient::finish(std::chrono::milliseconds timeout) {
  process_.close_stdin();
  const auto deadline = Clock::now() + timeout;
  // Read what is left so every line is checked and the child never blocks
  // on a full stdout pipe while it shuts down.
  while (!process_.stdout_eof() && Clock::now() < deadline) {
    std::optional<Message> message = read_message(remaining(deadline));
    if (message) kept_.push_back(std::move(*message));
  }
  return process_.wait_exit(remaining(deadline));
}

std::vector<std::string> serve_argv(const std::filesystem::path& config) {
  return {kAirlockBinary, "serve", "--config", config.string()};
}

std::vector<std::string> list_argv(const std::filesystem::path& config) {
  return {kAirlockBinary, "list", "--config", config.string()};
}

std::unique_ptr<McpStdioClient> serve(const std::filesystem::path& config) {
  return std::make_unique<McpStdioClient>(serve_argv(config));
}

RunResult run(std::vector<std::string> argv, std::chrono::milliseconds timeout) {
  Subprocess process(std::move(argv));
  process.close_stdin();
  const auto deadline = Clock::now() + timeout;
  RunResult result;
  while (!process.stdout_eof() && Clock::now() < deadline) {
    std::optional<std::string> line = process.read_line(remaining(deadline));
    if (line) result.out += *line + "\n";
  }
  result.exit_code = process.wait_exit(remaining(deadline));
  if (!result.exit_code) process.kill();
  result.err = process.stderr_text();
  return result;
}

}  // namespace airlock::test
