// Speaks MCP over a child's stdio: newline-delimited JSON-RPC 2.0.
#pragma once

#include "subprocess.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::test {

using namespace std::chrono_literals;

// One line the server wrote, parsed, with the exact bytes it came as (tests
// search the raw line for bytes that must never leave the server).
struct Message {
  boost::json::value json;  // an object; null only for a Message that never arrived
  std::string line;
};

// The value at a JSON pointer ("/result/content/0/text"), or nullptr.
const boost::json::value* find(const Message& message, std::string_view pointer);
// The string at `pointer`, or "" when absent or not a string.
std::string string_at(const Message& message, std::string_view pointer);
// The integer at `pointer`, or `fallback` when absent or not an integer.
std::int64_t int_at(const Message& message, std::string_view pointer, std::int64_t fallback = 0);
// True when the message is a JSON-RPC response with an "error" member.
bool is_error(const Message& message);
// True when the message is a request from the server to the client
// (sampling/createMessage, elicitation/create, roots/list).
bool is_server_request(const Message& message);
// The message's method; "" for a response.
std::string method_of(const Message& message);
// result.isError == true.
bool is_tool_error(const Message& message);

// An MCP client on the stdio of a child process. Every line the child writes
// to stdout must be a JSON object; any other line is recorded as a GoogleTest
// failure. Messages that arrive while the test waits for another response are
// kept, in arrival order, for later waits. Requests from the server are not
// answered by themselves: a test waits for one (wait_request) and answers it
// (respond, respond_error).
class McpStdioClient {
 public:
  static constexpr std::chrono::milliseconds kTimeout = 5s;

  explicit McpStdioClient(std::vector<std::string> argv, Subprocess::Options options = {});

  Subprocess& process() { return process_; }

  // Sends one message as one line.
  void send(const boost::json::value& message);
  // Sends raw bytes followed by '\n' (for malformed input).
  void send_line(std::string_view line);
  // Sends a request with a fresh integer id and returns the id.
  boost::json::value request(std::string_view method, boost::json::object params = {});
  void notify(std::string_view method, boost::json::object params = {});

  // The response whose id equals `id` (null for id-less errors), or nullopt
  // after `timeout`.
  std::optional<Message> wait_response(const boost::json::value& id,
                                       std::chrono::milliseconds timeout = kTimeout);
  // The next message in arrival order (kept ones first), or nullopt.
  std::optional<Message> next_message(std::chrono::milliseconds timeout = kTimeout);
  // The first request from the server with `method` (kept ones first), or
  // nullopt after `timeout`; other messages are kept.
  std::optional<Message> wait_request(std::string_view method, std::chrono::milliseconds timeout = kTimeout);
  // Answers a request from the server.
  void respond(const boost::json::value& id, boost::json::value result);
  void respond_error(const boost::json::value& id, std::int64_t code, std::string_view message);
  // True when no response with `id` arrives within `window`.
  bool no_response_within(const boost::json::value& id, std::chrono::milliseconds window);

  // request() then wait_response(); a timeout is recorded as a failure and
  // yields an empty Message.
  Message call(std::string_view method, boost::json::object params = {},
               std::chrono::milliseconds timeout = kTimeout);
  // initialize (declaring `capabilities`), then notifications/initialized.
  // Returns the response.
  Message initialize(std::string_view protocol_version = "2025-11-25", boost::json::object capabilities = {});
  // tools/call; `arguments` is omitted when nullopt.
  Message call_tool(std::string_view name, std::optional<boost::json::value> arguments,
                    std::chrono::milliseconds timeout = kTimeout);

  // Closes stdin and waits for the exit status (nullopt after `timeout`).
  std::optional<int> finish(std::chrono::milliseconds timeout = 3s);

  // Every stdout line read so far, in order.
  const std::vector<std::string>& lines() const { return lines_; }
  std::string stderr_text() const { return process_.stderr_text(); }

 private:
  std::optional<Message> read_message(std::chrono::milliseconds timeout);

  Subprocess process_;
  std::int64_t next_id_ = 1;
  std::deque<Message> kept_;
  std::vector<std::string> lines_;
};

// Argument vectors for the airlock binary under test.
std::vector<std::string> serve_argv(const std::filesystem::path& config);
std::vector<std::string> list_argv(const std::filesystem::path& config);

// Starts `airlock serve --config <config>`.
std::unique_ptr<McpStdioClient> serve(const std::filesystem::path& config);

// What a short-lived command printed and how it ended.
struct RunResult {
  std::optional<int> exit_code;  // nullopt: still running at the timeout (then killed)
  std::string out;
  std::string err;
};

// Runs `argv` with stdin closed until it exits or `timeout` passes.
RunResult run(std::vector<std::string> argv, std::chrono::milliseconds timeout = 5s);

}  // namespace airlock::test
