// Shared by the HTTP integration tests: configs that serve the example echo
// tool and the fixtures over Streamable HTTP, and a started server.
#pragma once

#include "airlock_http_server.hpp"
#include "http_client.hpp"
#include "integration.hpp"
#include "mcp_http_client.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

namespace airlock::test {

// The fixture with tools that talk to the client during a call
// (interactive.progress, .log, .sample, .elicit, .reconnect).
inline const std::filesystem::path kInteractiveDir = fixture_dir("interactive");
// A config serving the first-party and example plugins and the canary and
// interactive fixtures (interactive when built), with `http`
// appended under [transport.http] and `rest` (more tables:
// [[transport.http.tokens]], chains) after it.
inline std::string http_config(std::string_view http = "", std::string_view rest = "",
                               std::string_view server_extra = "") {
  std::string toml = "[server]\n"
                     "name = \"http-test-server\"\n"
                     "max_message_bytes = 65536\n"
                     "workers = 4\n";
  toml += server_extra;
  toml += "\n[plugins]\n";
  // A fixture not built yet is left out; the tests of its tools then fail
  // with "unknown tool".
  toml += std::filesystem::exists(kInteractiveDir) ? toml_dirs({kPluginDir, fixture_dir("canary"), kInteractiveDir})
                                                   : toml_dirs({kPluginDir, fixture_dir("canary")});
  toml += "\non_error = \"fail\"\n\n[transport.http]\n";
  toml += http;
  toml += "\n";
  toml += rest;
  return toml;
}

// A config file and the server running on it, started on 127.0.0.1:0.
struct HttpServerUnderTest {
  explicit HttpServerUnderTest(std::string_view toml) : config(toml), server(config.path()) {}

  std::uint16_t port() const { return server.port(); }
  std::string host_header() const { return "127.0.0.1:" + std::to_string(server.port()); }

  TempConfig config;
  AirlockHttpServer server;
};

// Starts a server on `toml`; the test fails (fatally) if it does not listen.
#define AIRLOCK_START_HTTP(name, toml)                                                                  \
  HttpServerUnderTest name(toml);                                                                       \
  ASSERT_TRUE(name.server.ready()) << "airlock did not log \"listening on http://...\"; stderr:\n" \
                                   << name.server.stderr_text()

// The hex SHA-256 of `text`, as `sha256sum` prints it: what a
// [[transport.http.tokens]] sha256 holds.
inline std::string sha256_hex(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (const unsigned char byte : digest) {
    hex.push_back(kHex[byte >> 4]);
    hex.push_back(kHex[byte & 15]);
  }
  return hex;
}

// A GET of `target` on a fresh connection.
inline HttpResponse http_get(std::uint16_t port, std::string target, HttpHeaders headers = {}) {
  HttpConnection connection(port);
  return connection.request({.method = "GET", .target = std::move(target), .headers = std::move(headers), .body = {}});
}

// A JSON-RPC request message.
inline boost::json::object rpc_request(boost::json::value id, std::string_view method,
                                       boost::json::object params = {}) {
  return boost::json::object{{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"method", method}, {"params", std::move(params)}};
}

// The body of an initialize request.
inline std::string initialize_body(std::string_view protocol_version = "2025-11-25") {
  return boost::json::serialize(rpc_request(
      1, "initialize",
      {{"protocolVersion", protocol_version},
       {"capabilities", boost::json::object{}},
       {"clientInfo", {{"name", "airlock-http-test"}, {"version", "0"}}}}));
}

// The JSON-RPC error code in a body, or 0 when the body is no JSON-RPC error.
inline std::int64_t error_code_of(const std::string& body) {
  return int_at(parse_message(body), "/error/code", 0);
}

// The names tools/list returned (every page).
inline std::vector<std::string> tool_names(McpHttpClient& client) {
  std::vector<std::string> names;
  std::optional<std::string> cursor;
  for (int page = 0; page < 100; ++page) {
    boost::json::object params;
    if (cursor) params["cursor"] = *cursor;
    const McpReply reply = client.call("tools/list", params);
    const boost::json::value* tools = find(reply.response, "/result/tools");
    if (!tools || !tools->is_array()) {
      ADD_FAILURE() << "tools/list: " << reply.describe();
      break;
    }
    for (const boost::json::value& tool : tools->as_array())
      names.emplace_back(tool.as_object().at("name").as_string());
    const std::string next = string_at(reply.response, "/result/nextCursor");
    if (next.empty()) break;
    cursor = next;
  }
  return names;
}

// Room for bodies up to 1 MiB, and max_body_bytes_in_flight at its least
// (64 KiB): every counted body (over 64 KiB) is then read alone.
inline std::string one_large_body_at_a_time(std::string_view http = "") {
  std::string toml = http_config(std::string("max_body_bytes_in_flight = 65536\n") + std::string(http));
  const std::string limit = "max_message_bytes = 65536";
  toml.replace(toml.find(limit), limit.size(), "max_message_bytes = 1048576");
  return toml;
}

// A gauge or counter of GET /metrics without labels, or -1.
inline long metric(std::uint16_t port, std::string_view name) {
  const std::string body = http_get(port, "/metrics").body;
  const std::string line = "\n" + std::string(name) + " ";
  const auto at = body.find(line);
  if (at == std::string::npos) return -1;
  return std::stol(body.substr(at + line.size()));
}

// Polls metric() until it reads `value` (true), for at most 5 s (false).
inline bool wait_for_metric(std::uint16_t port, std::string_view name, long value) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (; std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(std::chrono::milliseconds(20)))
    if (metric(port, name) == value) return true;
  return false;
}

// An initialize request of exactly `size` bytes (white space after the JSON).
inline std::string padded_initialize(std::size_t size) {
  std::string body = initialize_body();
  body.resize(size, ' ');
  return body;
}

// The text of the first content block of a tools/call result.
inline std::string first_text(const McpReply& reply) { return string_at(reply.response, "/result/content/0/text"); }

}  // namespace airlock::test
