// [transport.http] and its [[transport.http.tokens]].
#include "config/config_reader.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace airlock::host::config_reading {

void ConfigReader::read_transport(const toml::table& table) {
  for (const auto& [key, node] : table) {
    if (key.str() == "http") {
      if (const auto* http = table_value(node, "transport.http")) read_http(*http);
    } else {
      report_unknown_key(key, "transport");
    }
  }
}

void ConfigReader::read_http(const toml::table& table) {
  auto& http = config_.http;
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const std::string path = "transport.http." + key_text(name);
    if (name == "listen") {
      auto value = string_value(node, path);
      if (value && !is_listen_address(*value)) {
        report(place(node, path), "expected \"HOST:PORT\" or \"[IPV6]:PORT\" with a port from 1 "
                                  "to 65535, got " + quote(*value));
      } else if (value) {
        http.listen = std::move(*value);
      }
    } else if (name == "path") {
      auto value = string_value(node, path);
      if (value && !value->starts_with('/')) {
        report(place(node, path), "expected a path starting with '/', got " + quote(*value));
      } else if (value) {
        http.path = std::move(*value);
      }
    } else if (name == "response") {
      if (auto value = choice_value(node, path, kResponseModes)) http.response = *value;
    } else if (name == "standalone_stream") {
      if (auto value = bool_value(node, path)) http.standalone_stream = *value;
    } else if (name == "io_threads") {
      set_integer(node, path, 1, 64, http.io_threads);
    } else if (name == "allowed_hosts") {
      http.allowed_hosts = address_list(node, path, host_and_port,
                                        "\"HOST\", \"HOST:PORT\", \"[IPV6]\" or \"[IPV6]:PORT\"");
    } else if (name == "allowed_origins") {
      http.allowed_origins = address_list(
          node, path, origin, "an origin \"SCHEME://HOST\" or \"SCHEME://HOST:PORT\"");
    } else if (name == "allow_unauthenticated_remote") {
      if (auto value = bool_value(node, path)) http.allow_unauthenticated_remote = *value;
    } else if (name == "max_sessions") {
      set_integer(node, path, 1, 1'000'000, http.max_sessions);
    } else if (name == "session_idle_timeout_s") {
      set_integer(node, path, 1, 7 * 86'400, http.session_idle_timeout_s);
    } else if (name == "max_connections") {
      set_integer(node, path, 1, 1'000'000, http.max_connections);
    } else if (name == "max_header_bytes") {
      set_integer(node, path, 1024, 1 << 20, http.max_header_bytes);
    } else if (name == "read_timeout_ms") {
      set_integer(node, path, 100, 3'600'000, http.read_timeout_ms);
    } else if (name == "idle_timeout_ms") {
      set_integer(node, path, 100, 3'600'000, http.idle_timeout_ms);
    } else if (name == "max_body_bytes_in_flight") {
      set_integer(node, path, 65'536, std::int64_t{1} << 40, http.max_body_bytes_in_flight);
    } else if (name == "rate_limit") {
      if (auto value = number_value(node, path, 0, 1'000'000)) http.rate_limit = *value;
    } else if (name == "rate_burst") {
      set_integer(node, path, 0, 1'000'000, http.rate_burst);
    } else if (name == "replay_bytes") {
      set_integer(node, path, 1024, std::int64_t{1} << 30, http.replay_bytes);
    } else if (name == "sse_retry_ms") {
      set_integer(node, path, 0, 600'000, http.sse_retry_ms);
    } else if (name == "shutdown_grace_ms") {
      set_integer(node, path, 0, 600'000, http.shutdown_grace_ms);
    } else if (name == "access_log") {
      if (auto value = bool_value(node, path)) http.access_log = *value;
    } else if (name == "tokens") {
      read_tokens(node);
    } else {
      report_unknown_key(key, "transport.http");
    }
  }
}

void ConfigReader::read_tokens(const toml::node& node) {
  const std::string path = "transport.http.tokens";
  const auto* array = node.as_array();
  // An empty array is allowed: it declares no tokens.
  if (!array || (!array->empty() && !array->is_array_of_tables())) {
    report(place(node, path),
           "expected an array of tables ([[transport.http.tokens]]), got " + value_text(node));
    return;
  }
  for (std::size_t i = 0; i < array->size(); ++i) {
    TokenConfig token;
    if (read_token(*array->get(i)->as_table(), path + "[" + std::to_string(i) + "]", token))
      add_token(std::move(token));
  }
}

bool ConfigReader::read_token(const toml::table& table, const std::string& path, TokenConfig& token) {
  token.place = place(table, path);
  bool usable = true;
  bool has_identity = false;
  bool has_sha256 = false;
  bool has_file = false;
  bool has_plain_token = false;
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const std::string field = path + "." + key_text(name);
    if (name == "identity") {
      has_identity = true;
      auto value = string_value(node, field);
      if (value && !is_identity(*value)) {
        report(place(node, field),
               "expected 1 to 64 of A-Z a-z 0-9 . _ @ -, got " + quote(*value));
        usable = false;
      } else if (value) {
        token.identity = std::move(*value);
      } else {
        usable = false;
      }
    } else if (name == "sha256") {
      has_sha256 = true;
      // The value is not echoed: an operator may have pasted the token here.
      const auto* text = node.as_string();
      const auto digest = text ? parse_sha256_hex(text->get()) : std::nullopt;
      if (digest) {
        token.sha256 = *digest;
      } else {
        report(place(node, field), "expected the token's SHA-256 as 64 hex digits (sha256sum "
                                   "prints it)");
        usable = false;
      }
    } else if (name == "file") {
      has_file = true;
      if (auto value = string_value(node, field)) {
        if (auto digest = token_file_digest(*value, place(node, field))) {
          token.sha256 = *digest;
        } else {
          usable = false;
        }
      } else {
        usable = false;
      }
    } else if (name == "tools") {
      for (auto& glob : string_list(node, field)) token.tools.push_back(std::move(glob.first));
    } else if (name == "token") {
      has_plain_token = true;
      report(place(node, field), "a token is never written in the config: give its SHA-256 "
                                 "(sha256 = \"<64 hex digits>\") or a file that holds it "
                                 "(file = \"<path>\")");
      usable = false;
    } else {
      report_unknown_key(key, path);
    }
  }
  if (!has_identity) {
    report(token.place, "missing key 'identity'");
    usable = false;
  }
  if (has_sha256 && has_file) {
    report(token.place, "give either 'sha256' or 'file', not both");
    usable = false;
  } else if (!has_sha256 && !has_file && !has_plain_token) {
    report(token.place, "missing key 'sha256' or 'file'");
    usable = false;
  }
  return usable;
}

std::optional<Sha256Digest> ConfigReader::token_file_digest(const std::string& name, const SourcePlace& where) {
  const fs::path file = resolve(name);
  auto text = read_file(file);
  if (!text) {
    report(where, text.error().message);
    return std::nullopt;
  }
  std::string& token = *text;
  // Editors and `echo` end the file with a newline no client sends.
  const auto end = token.find_last_not_of(" \t\r\n\v\f");
  token.resize(end == std::string::npos ? 0 : end + 1);
  std::optional<Sha256Digest> digest;
  if (token.empty()) {
    report(where, file.string() + ": the token file is empty");
  } else if (!is_bearer_token(token)) {
    // Which character is not said: that would put part of the token in a log.
    report(where, file.string() +
                      ": the token holds a character an Authorization: Bearer header cannot "
                      "carry (allowed: A-Z a-z 0-9 - . _ ~ + / and trailing =)");
  } else {
    digest = sha256(token);
  }
  wipe(token);
  return digest;
}

void ConfigReader::add_token(TokenConfig token) {
  for (const auto& other : config_.http.tokens) {
    if (other.identity == token.identity) {
      report(token.place, "identity " + quote(token.identity) + " is already declared at " +
                              other.place.describe());
      return;
    }
    if (other.sha256 == token.sha256) {
      report(token.place, "identity " + quote(token.identity) + " has the same token as " +
                              quote(other.identity) + " (" + other.place.describe() + ")");
      return;
    }
  }
  config_.http.tokens.push_back(std::move(token));
}

}  // namespace airlock::host::config_reading
