// JSON-RPC 2.0 framing for MCP: one message in, classified and checked; one
// response or error out, as text.
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace airlock::host::jsonrpc {

inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// Server-defined range: the call queue is full; the client may retry.
inline constexpr int kServerBusy = -32000;

struct Message {
  enum class Kind { request, notification, response };
  Kind kind = Kind::request;
  boost::json::value id;      // null for notifications
  std::string method;         // empty for responses
  boost::json::value params;  // null when absent
  // Responses only (to the session's own requests): the "result" member, or
  // the "error" member with is_error set.
  boost::json::value outcome;
  bool is_error = false;
  std::size_t bytes = 0;  // the length of the text it was read from
};

// Why a line is not a message we can act on, with the id to answer with
// (null when the id itself could not be read).
struct Failure {
  int code;
  std::string message;
  boost::json::value id;
};

std::variant<Message, Failure> parse(std::string_view text);

// {"jsonrpc":"2.0","id":<id>,"result":<result_json>}; result_json is
// already-serialized JSON, so a large result is not copied into a tree again.
std::string result(const boost::json::value& id, std::string_view result_json);

// A response written in place: append_result_prefix(out, id), then the
// result's JSON appended by its producer, then kResultSuffix.
void append_result_prefix(std::string& out, const boost::json::value& id);
inline constexpr char kResultSuffix = '}';
std::string error(const boost::json::value& id, int code, std::string_view message);
// With error.data (a JSON value); a null id is left out rather than written
// as null, as 2026-07-28 asks of a server that cannot read the id.
std::string error(const boost::json::value& id, int code, std::string_view message, const boost::json::value& data);

}  // namespace airlock::host::jsonrpc
