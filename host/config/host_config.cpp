// Reads airlock.toml into plain structs and checks everything that can be
// checked without loading a plugin.
//
// toml++ parses the text and records where every key and value was written;
// ConfigReader then walks the document once. Each reader of a value either
// returns it or records a problem at the value's place and returns nothing,
// so one walk finds every problem. Because toml++ tables are ordered by key,
// not by position, the walk meets problems out of file order; the reported
// one is the problem written earliest in the file, which is the one an
// operator reading top to bottom expects.
#include "config/host_config.hpp"

#include "egress/egress_url.hpp"
#include "util/sha256.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/json/serialize.hpp>
#include <openssl/crypto.h>
#include <boost/json/value.hpp>
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <limits>
#include <memory>
#include <sstream>
#include <system_error>
#include <tuple>
#include <utility>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

constexpr std::int64_t kNoUpperLimit = std::numeric_limits<std::int64_t>::max();

template <class T>
struct Choice {
  std::string_view name;
  T value;
};

constexpr std::array<Choice<std::string_view>, 6> kLogLevels{{{"trace", "trace"},
                                                              {"debug", "debug"},
                                                              {"info", "info"},
                                                              {"warn", "warn"},
                                                              {"error", "error"},
                                                              {"off", "off"}}};
constexpr std::array<Choice<Mirror>, 2> kMirrors{{{"text", Mirror::text}, {"none", Mirror::none}}};
constexpr std::array<Choice<OnPluginError>, 2> kOnPluginError{
    {{"fail", OnPluginError::fail}, {"skip", OnPluginError::skip}}};
constexpr std::array<Choice<IsolationMode>, 2> kIsolationMode{
    {{"process", IsolationMode::process}, {"in-process", IsolationMode::in_process}}};
constexpr std::array<Choice<OnDefinitionChange>, 2> kOnDefinitionChange{
    {{"refuse", OnDefinitionChange::refuse}, {"warn", OnDefinitionChange::warn}}};
constexpr std::array<Choice<HttpResponseMode>, 2> kResponseModes{
    {{"sse", HttpResponseMode::sse}, {"json", HttpResponseMode::json}}};
constexpr std::array<Choice<AuditSinkKind>, 3> kAuditSinks{{{"file", AuditSinkKind::file},
                                                            {"stderr", AuditSinkKind::stderr_stream},
                                                            {"syslog", AuditSinkKind::syslog}}};
constexpr std::array<Choice<AuditFormat>, 2> kAuditFormats{
    {{"ocsf", AuditFormat::ocsf}, {"cef", AuditFormat::cef}}};

// Chain names share TOML's bare-key alphabet, so a chain can always be named
// without quotes, and a key in that alphabet is shown without them.
bool is_plain_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
  });
}

// JSON string syntax is TOML basic-string syntax for everything a key can hold.
std::string quote(std::string_view text) { return json::serialize(json::string_view(text)); }

// A key as it would be written in a dotted path: acme, or "acme.search".
std::string key_text(std::string_view key) {
  return is_plain_name(key) ? std::string(key) : quote(key);
}

// A value as toml++ writes it: 4.5, true, 1979-05-27T07:32:00Z.
std::string toml_text(const toml::node& node) {
  std::ostringstream out;
  node.visit([&out](const auto& value) { out << value; });
  return out.str();
}

// The value that was found, for "expected ..., got <this>".
std::string value_text(const toml::node& node) {
  if (node.is_table()) return "a table";
  if (node.is_array()) return "an array";
  if (const auto* text = node.as_string()) return quote(text->get());
  return toml_text(node);
}

template <class T, std::size_t N>
std::string choices_text(const std::array<Choice<T>, N>& choices) {
  std::string text;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) text += (i + 1 == N) ? " or " : ", ";
    text += quote(choices[i].name);
  }
  return text;
}

std::string integer_range_text(std::int64_t min, std::int64_t max) {
  if (max == kNoUpperLimit) return "an integer of at least " + std::to_string(min);
  return "an integer from " + std::to_string(min) + " to " + std::to_string(max);
}

bool is_port(std::string_view port) {
  unsigned number = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
  return !port.empty() && ec == std::errc{} && end == port.data() + port.size() && number >= 1 &&
         number <= 65535;
}

std::string number_range_text(std::int64_t min, std::int64_t max) {
  return "a number from " + std::to_string(min) + " to " + std::to_string(max);
}

// "HOST:PORT" or "[v6]:PORT". The host itself is left to the resolver; an
// unbracketed host with a colon is refused because its port would be ambiguous.
bool is_listen_address(std::string_view address) {
  std::string_view host;
  std::string_view port;
  if (address.starts_with('[')) {
    const auto close = address.find("]:");
    if (close == std::string_view::npos) return false;
    host = address.substr(1, close - 1);
    port = address.substr(close + 2);
  } else {
    const auto colon = address.rfind(':');
    if (colon == std::string_view::npos) return false;
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return false;
  }
  return !host.empty() && is_port(port);
}

std::string lowercase(std::string_view text) {
  std::string lower(text);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return lower;
}

// A DNS name or IPv4 address as a Host header carries it (RFC 3986 reg-name
// narrowed to what names really use); IPv6 comes in brackets, handled apart.
bool is_host_name(std::string_view host) {
  return !host.empty() && host.size() <= 253 && std::all_of(host.begin(), host.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '-' || c == '_';
  });
}

bool is_ipv6_literal(std::string_view address) {
  return address.size() >= 2 && address.size() <= 45 &&
         address.find(':') != std::string_view::npos &&
         std::all_of(address.begin(), address.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ||
                  c == ':' || c == '.';
         });
}

// "host", "host:port", "[v6]" or "[v6]:port", the forms of a Host header
// (RFC 9110 7.2); lowercased, as names compare without case.
std::optional<std::string> host_and_port(std::string_view text) {
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos || !is_ipv6_literal(text.substr(1, close - 1)))
      return std::nullopt;
    const auto rest = text.substr(close + 1);
    if (!rest.empty() && (rest[0] != ':' || !is_port(rest.substr(1)))) return std::nullopt;
    return lowercase(text);
  }
  const auto colon = text.find(':');
  if (!is_host_name(text.substr(0, colon))) return std::nullopt;
  if (colon != std::string_view::npos && !is_port(text.substr(colon + 1))) return std::nullopt;
  return lowercase(text);
}

// "scheme://host[:port]" as a browser sends it in Origin (RFC 6454): no path,
// no trailing slash; lowercased.
std::optional<std::string> origin(std::string_view text) {
  const auto separator = text.find("://");
  if (separator == std::string_view::npos || separator == 0) return std::nullopt;
  const auto scheme = text.substr(0, separator);
  const bool scheme_ok =
      ((scheme[0] >= 'a' && scheme[0] <= 'z') || (scheme[0] >= 'A' && scheme[0] <= 'Z')) &&
      std::all_of(scheme.begin(), scheme.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '+' || c == '-' || c == '.';
      });
  if (!scheme_ok || !host_and_port(text.substr(separator + 3))) return std::nullopt;
  return lowercase(text);
}

// An identity names the caller in logs and metric labels, so it keeps to a
// small alphabet that needs no quoting anywhere.
bool is_identity(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '@' || c == '-';
  });
}

struct FileCloser {
  void operator()(std::FILE* stream) const { std::fclose(stream); }
};

constexpr std::size_t kMaxReadFile = std::size_t{1} << 20;

// stdio rather than iostreams because errno then holds the real reason
// (missing, not permitted, a directory) for the message.
// The asymmetric JWS algorithms an access token may be signed with (RFC 7518 3.1).
constexpr std::array<std::string_view, 9> kJwsAlgorithms = {"RS256", "RS384", "RS512", "PS256", "PS384",
                                                             "PS512", "ES256", "ES384", "ES512"};

// scope-token = 1*( %x21 / %x23-5B / %x5D-7E ) (RFC 6749 3.3).
bool is_scope_token(std::string_view scope) {
  return !scope.empty() && std::all_of(scope.begin(), scope.end(), [](char c) {
    return c >= 0x21 && c <= 0x7e && c != '"' && c != '\\';
  });
}

// "http(s)://authority[/path]" with no fragment; `query` says whether a query may follow.
bool is_web_url(std::string_view url, bool query) {
  std::string_view rest;
  if (url.starts_with("https://")) {
    rest = url.substr(8);
  } else if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else {
    return false;
  }
  const auto authority_end = rest.find_first_of("/?#");
  if (rest.substr(0, authority_end).empty()) return false;
  if (url.find('#') != std::string_view::npos) return false;
  if (!query && url.find('?') != std::string_view::npos) return false;
  return std::none_of(url.begin(), url.end(), [](char c) { return c <= 0x20 || c >= 0x7f; });
}

bool is_resource_url(std::string_view url) { return is_web_url(url, true); }

// An issuer (RFC 8414 2): https with no query or fragment; http only for a
// loopback host, which tests and a sidecar authorization server use.
bool is_issuer_url(std::string_view url) {
  if (!is_web_url(url, false)) return false;
  if (url.starts_with("https://")) return true;
  std::string_view authority = url.substr(7);
  authority = authority.substr(0, authority.find('/'));
  return authority == "localhost" || authority.starts_with("localhost:") || authority == "127.0.0.1" ||
         authority.starts_with("127.0.0.1:") || authority == "[::1]" || authority.starts_with("[::1]:");
}

Result<std::string> read_file(const fs::path& file) {
  const auto cannot_read = [&file](int error) {
    return Error{file.string() + ": cannot read: " + std::generic_category().message(error)};
  };
  errno = 0;
  const std::unique_ptr<std::FILE, FileCloser> stream(std::fopen(file.c_str(), "rb"));
  if (!stream) return cannot_read(errno);
  std::string text;
  std::array<char, 64 * 1024> buffer{};
  bool too_large = false;
  while (const auto count = std::fread(buffer.data(), 1, buffer.size(), stream.get())) {
    // A config, token or key file is a few KiB at most; a path that names a
    // device or a log by mistake must not grow the server without bound.
    if (text.size() + count > kMaxReadFile) {
      too_large = true;
      break;
    }
    text.append(buffer.data(), count);
  }
  const int error = errno;
  OPENSSL_cleanse(buffer.data(), buffer.size());  // it may have held a token
  if (too_large) {
    OPENSSL_cleanse(text.data(), text.size());
    return Error{file.string() + ": larger than " + std::to_string(kMaxReadFile >> 20) +
                 " MiB, so not a config, token or key file"};
  }
  if (std::ferror(stream.get())) return cannot_read(error);
  // Error is constructible from a string too, so the value needs naming.
  return Result<std::string>(boost::system::in_place_value, std::move(text));
}

// Leaves no copy of a secret in memory that is about to be freed.
void wipe(std::string& secret) {
  OPENSSL_cleanse(secret.data(), secret.size());
  secret.clear();
}

// Plugin tables reach plugins as JSON. Dates and times have no JSON form, so
// they travel as the text TOML would write for them.
json::value to_json(const toml::node& node);

json::object to_json_object(const toml::table& table) {
  json::object object;
  for (const auto& [key, value] : table) object.emplace(key.str(), to_json(value));
  return object;
}

json::value to_json(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return to_json_object(*node.as_table());
    case toml::node_type::array: {
      json::array array;
      for (const auto& element : *node.as_array()) array.push_back(to_json(element));
      return array;
    }
    case toml::node_type::string:
      return json::value(node.as_string()->get());
    case toml::node_type::integer:
      return json::value(node.as_integer()->get());
    case toml::node_type::floating_point:
      return json::value(node.as_floating_point()->get());
    case toml::node_type::boolean:
      return json::value(node.as_boolean()->get());
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time:
      return json::value(toml_text(node));
    case toml::node_type::none:
      break;
  }
  return nullptr;
}

// A problem found in the document; only the earliest one is reported.
struct Problem {
  std::uint32_t line;
  std::uint32_t column;
  std::string message;
};

// Walks one parsed document into a Config, recording every problem it meets.
class ConfigReader {
 public:
  explicit ConfigReader(const fs::path& file) : file_(file.string()) {
    std::error_code ec;
    config_.file = fs::absolute(file, ec).lexically_normal();
    if (ec) config_.file = file.lexically_normal();
  }

  // One use per reader: the Config is moved out.
  Result<Config> read(const toml::table& root) && {
    for (const auto& [key, node] : root) {
      const std::string name(key.str());
      if (name == "server") {
        if (const auto* table = table_value(node, name)) read_server(*table);
      } else if (name == "transport") {
        if (const auto* table = table_value(node, name)) read_transport(*table);
      } else if (name == "plugins") {
        if (const auto* table = table_value(node, name)) read_plugins(*table);
      } else if (name == "isolation") {
        if (const auto* table = table_value(node, name)) read_isolation(*table);
      } else if (name == "egress") {
        if (const auto* table = table_value(node, name)) read_egress(*table);
      } else if (name == "trust") {
        if (const auto* table = table_value(node, name)) read_trust(*table);
      } else if (name == "pinning") {
        if (const auto* table = table_value(node, name)) read_pinning(*table);
      } else if (name == "tasks") {
        if (const auto* table = table_value(node, name)) read_tasks(*table);
      } else if (name == "audit") {
        if (const auto* table = table_value(node, name)) read_audit(*table);
      } else if (name == "auth") {
        if (const auto* table = table_value(node, name)) read_auth(*table);
      } else if (name == "chains") {
        if (const auto* table = table_value(node, name)) read_chains(*table);
      } else if (name == "tools") {
        if (const auto* table = table_value(node, name)) read_tools(*table);
      } else if (name == "resources") {
        if (const auto* table = table_value(node, name)) read_content_bindings(*table, name, config_.resources);
      } else if (name == "prompts") {
        if (const auto* table = table_value(node, name)) read_content_bindings(*table, name, config_.prompts);
      } else if (name == "plugin") {
        if (const auto* table = table_value(node, name)) read_plugin_settings(*table);
      } else {
        report_unknown_key(key, "");
      }
    }
    check_chain_references(root);

    if (!problems_.empty()) {
      const auto first = std::min_element(
          problems_.begin(), problems_.end(), [](const Problem& a, const Problem& b) {
            return std::tie(a.line, a.column) < std::tie(b.line, b.column);
          });
      return Error{std::move(first->message)};
    }
    // The first matching binding wins, so bindings keep the order written;
    // toml++ hands them over sorted by name instead.
    const auto in_file_order = [](const auto& a, const auto& b) {
      return std::tie(a.place.line, a.place.column) < std::tie(b.place.line, b.place.column);
    };
    std::stable_sort(config_.tools.begin(), config_.tools.end(), in_file_order);
    std::stable_sort(config_.resources.begin(), config_.resources.end(), in_file_order);
    std::stable_sort(config_.prompts.begin(), config_.prompts.end(), in_file_order);
    return std::move(config_);
  }

 private:
  void read_server(const toml::table& table) {
    auto& server = config_.server;
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string path = "server." + key_text(name);
      if (name == "name") {
        if (auto value = string_value(node, path)) server.name = std::move(*value);
      } else if (name == "log_level") {
        if (auto value = choice_value(node, path, kLogLevels)) server.log_level = *value;
      } else if (name == "max_message_bytes") {
        if (auto value = integer_value(node, path, 1024, kNoUpperLimit))
          server.max_message_bytes = static_cast<std::size_t>(*value);
      } else if (name == "workers") {
        if (auto value = integer_value(node, path, 1, 256))
          server.workers = static_cast<std::uint32_t>(*value);
      } else if (name == "queue_capacity") {
        if (auto value = integer_value(node, path, 1, 1'000'000))
          server.queue_capacity = static_cast<std::uint32_t>(*value);
      } else if (name == "page_size") {
        if (auto value = integer_value(node, path, 1, 10'000))
          server.page_size = static_cast<std::uint32_t>(*value);
      } else if (name == "mirror") {
        if (auto value = choice_value(node, path, kMirrors)) server.mirror = *value;
      } else if (name == "max_result_bytes") {
        if (auto value = integer_value(node, path, 1024, kNoUpperLimit))
          server.max_result_bytes = static_cast<std::size_t>(*value);
      } else if (name == "sanitizer_timeout_ms") {
        if (auto value = integer_value(node, path, 1, 600'000))
          server.sanitizer_timeout_ms = static_cast<std::uint32_t>(*value);
      } else if (name == "list_ttl_ms") {
        if (auto value = integer_value(node, path, 0, 86'400'000)) server.list_ttl_ms = static_cast<std::uint32_t>(*value);
      } else if (name == "request_state_key_file") {
        if (auto value = string_value(node, path)) server.request_state_key_file = resolve(*value);
      } else if (name == "request_state_ttl_s") {
        if (auto value = integer_value(node, path, 1, 86'400'000 / 1000))
          server.request_state_ttl_s = static_cast<std::uint32_t>(*value);
      } else {
        report_unknown_key(key, "server");
      }
    }
  }

  void read_transport(const toml::table& table) {
    for (const auto& [key, node] : table) {
      if (key.str() == "http") {
        if (const auto* http = table_value(node, "transport.http")) read_http(*http);
      } else {
        report_unknown_key(key, "transport");
      }
    }
  }

  void read_http(const toml::table& table) {
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

  // Each element of `node` through `normalize`, which returns the stored form
  // or nothing when the text is not the `expected` kind of address.
  template <class Normalize>
  std::vector<std::string> address_list(const toml::node& node, const std::string& path,
                                        Normalize normalize, std::string_view expected) {
    std::vector<std::string> list;
    for (auto& [text, where] : string_list(node, path)) {
      if (auto normalized = normalize(text)) {
        list.push_back(std::move(*normalized));
      } else {
        report(where, "expected " + std::string(expected) + ", got " + quote(text));
      }
    }
    return list;
  }

  // [[transport.http.tokens]]: an array of tables, one per bearer token.
  void read_tokens(const toml::node& node) {
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

  // False when the token is unusable; its problems are reported.
  bool read_token(const toml::table& table, const std::string& path, TokenConfig& token) {
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

  // Reads a token file (relative to the config file) and keeps only the
  // digest; the plaintext is wiped before it is freed.
  std::optional<Sha256Digest> token_file_digest(const std::string& name, const SourcePlace& where) {
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

  // Identities and tokens are both unique: an identity names one caller in
  // logs and limits, and a token must say which caller presented it.
  void add_token(TokenConfig token) {
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

  void read_plugins(const toml::table& table) {
    auto& plugins = config_.plugins;
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string path = "plugins." + key_text(name);
      if (name == "dirs") {
        for (const auto& dir : string_list(node, path)) plugins.dirs.push_back(resolve(dir.first));
      } else if (name == "on_error") {
        if (auto value = choice_value(node, path, kOnPluginError)) plugins.on_error = *value;
      } else if (name == "require_check") {
        if (auto value = bool_value(node, path)) plugins.require_check = *value;
      } else {
        report_unknown_key(key, "plugins");
      }
    }
  }

  // [isolation]. An in_process entry is a directory when it holds a '/',
  // else the name of a pack.
  void read_isolation(const toml::table& table) {
    auto& isolation = config_.isolation;
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string path = "isolation." + key_text(name);
      if (name == "mode") {
        if (auto value = choice_value(node, path, kIsolationMode)) isolation.mode = *value;
      } else if (name == "in_process") {
        for (const auto& entry : string_list(node, path)) {
          if (entry.first.find('/') != std::string::npos)
            isolation.in_process_dirs.push_back(resolve(entry.first));
          else
            isolation.in_process_packs.push_back(entry.first);
        }
      } else if (name == "memory_mb") {
        if (auto value = integer_value(node, path, 64, 1'048'576))
          isolation.memory_mb = static_cast<std::uint32_t>(*value);
      } else if (name == "max_workers") {
        if (auto value = integer_value(node, path, 1, 64)) isolation.max_workers = static_cast<std::uint32_t>(*value);
      } else if (name == "cancel_grace_ms") {
        if (auto value = integer_value(node, path, 10, 600'000))
          isolation.cancel_grace_ms = static_cast<std::uint32_t>(*value);
      } else if (name == "max_backoff_ms") {
        if (auto value = integer_value(node, path, 10, 3'600'000))
          isolation.max_backoff_ms = static_cast<std::uint32_t>(*value);
      } else if (name == "plugins") {
        const auto* files = table_value(node, path);
        if (!files) continue;
        for (const auto& [file, limits_node] : *files) {
          const std::string file_path = path + "." + key_text(file.str());
          const auto* limits = table_value(limits_node, file_path);
          if (!limits) continue;
          auto& entry = isolation.plugins[std::string(file.str())];
          for (const auto& [limit, value] : *limits) {
            const std::string limit_path = file_path + "." + key_text(limit.str());
            if (limit.str() == "memory_mb") {
              if (auto v = integer_value(value, limit_path, 64, 1'048'576)) entry.memory_mb = static_cast<std::uint32_t>(*v);
            } else if (limit.str() == "max_workers") {
              if (auto v = integer_value(value, limit_path, 1, 64)) entry.max_workers = static_cast<std::uint32_t>(*v);
            } else {
              report_unknown_key(limit, file_path);
            }
          }
        }
      } else {
        report_unknown_key(key, "isolation");
      }
    }
  }

  // [trust]. A key is checked where packs decode it (host/packs), which
  // names this place; here only a file it names must be readable.
  void read_trust(const toml::table& table) {
    auto& trust = config_.trust;
    trust.place = place(table, "trust");
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string path = "trust." + key_text(name);
      if (name == "keys") {
        for (auto& [text, where] : string_list(node, path)) {
          // Every minisign public key is 56 base64 characters starting "RW"
          // (the "Ed" algorithm tag); anything else names a .pub file.
          const bool is_inline = text.size() == 56 && text.starts_with("RW");
          if (is_inline) {
            trust.keys.push_back({std::move(text), std::move(where)});
            continue;
          }
          const fs::path file = resolve(text);
          auto content = read_file(file);
          if (!content) {
            report(where, content.error().message);
            continue;
          }
          where.key += " (" + file.string() + ")";
          trust.keys.push_back({std::move(*content), std::move(where)});
        }
      } else if (name == "require_signed") {
        if (auto value = bool_value(node, path)) trust.require_signed = *value;
      } else if (name == "unsigned_dirs") {
        for (const auto& dir : string_list(node, path)) trust.unsigned_dirs.push_back(resolve(dir.first));
      } else {
        report_unknown_key(key, "trust");
      }
    }
  }

  void read_tasks(const toml::table& table) {
    auto& tasks = config_.tasks;
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string path = "tasks." + key_text(name);
      if (name == "enabled") {
        if (auto value = bool_value(node, path)) tasks.enabled = *value;
      } else if (name == "store") {
        if (auto value = string_value(node, path); value && value->empty()) {
          report(place(node, path), "expected a SQLite file or a postgresql:// URI, got \"\"");
        } else if (value) {
          const bool uri = value->starts_with("postgresql://") || value->starts_with("postgres://");
          tasks.store = uri ? *value : resolve(*value).string();
        }
      } else if (name == "ttl_ms") {
        if (auto value = integer_value(node, path, 1000, 30LL * 86'400'000)) tasks.ttl_ms = *value;
      } else if (name == "poll_interval_ms") {
        if (auto value = integer_value(node, path, 50, 60'000)) tasks.poll_interval_ms = *value;
      } else if (name == "node_id") {
        if (auto value = string_value(node, path)) tasks.node_id = *value;
      } else {
        report_unknown_key(key, "tasks");
      }
    }
  }

  void read_audit(const toml::table& table) {
    auto& audit = config_.audit;
    audit.enabled = true;
    bool sink_read = true;  // a bad sink is the problem to name, not the file it would have needed
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string path = "audit." + key_text(name);
      if (name == "sink") {
        if (auto value = choice_value(node, path, kAuditSinks)) {
          audit.sink = *value;
        } else {
          sink_read = false;
        }
      } else if (name == "file") {
        if (auto value = string_value(node, path); value && value->empty()) {
          report(place(node, path), "expected a file name, got \"\"");
        } else if (value) {
          audit.file = resolve(*value);
        }
      } else if (name == "syslog_socket") {
        if (auto value = string_value(node, path); value && value->empty()) {
          report(place(node, path), "expected a socket path, got \"\"");
        } else if (value) {
          audit.syslog_socket = resolve(*value);
        }
      } else if (name == "format") {
        if (auto value = choice_value(node, path, kAuditFormats)) audit.format = *value;
      } else if (name == "queue") {
        if (auto value = integer_value(node, path, 16, 1'048'576)) audit.queue = *value;
      } else if (name == "checkpoint_interval_s") {
        if (auto value = integer_value(node, path, 1, 86'400)) audit.checkpoint_interval_s = *value;
      } else if (name == "signing_key_file") {
        if (auto value = string_value(node, path); value && value->empty()) {
          report(place(node, path), "expected a key file, got \"\"");
        } else if (value) {
          audit.signing_key_file = resolve(*value);
        }
      } else if (name == "record_arguments") {
        if (auto value = bool_value(node, path)) audit.record_arguments = *value;
      } else if (name == "replica") {
        if (auto value = string_value(node, path); value && !is_identity(*value)) {
          report(place(node, path), "expected 1 to 64 of [A-Za-z0-9._@-], got " + quote(*value));
        } else if (value) {
          audit.replica = *value;
        }
      } else {
        report_unknown_key(key, "audit");
      }
    }
    if (sink_read && audit.sink == AuditSinkKind::file && audit.file.empty())
      report(place(table, "audit"), "missing key 'file': sink = \"file\" needs the file to write records to");
  }

  void read_auth(const toml::table& table) {
    for (const auto& [key, node] : table) {
      if (key.str() == "oauth") {
        if (const auto* oauth = table_value(node, "auth.oauth")) read_oauth(*oauth);
      } else {
        report_unknown_key(key, "auth");
      }
    }
  }

  void read_oauth(const toml::table& table) {
    auto& oauth = config_.oauth;
    oauth.enabled = true;
    oauth.place = place(table, "auth.oauth");
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string path = "auth.oauth." + key_text(name);
      if (name == "resource") {
        auto value = string_value(node, path);
        if (value && !is_resource_url(*value)) {
          report(place(node, path), "expected an absolute http or https URL without a fragment, got " + quote(*value));
        } else if (value) {
          oauth.resource = std::move(*value);
        }
      } else if (name == "authorization_servers") {
        for (auto& [text, where] : string_list(node, path)) {
          if (!is_issuer_url(text)) {
            report(where, "expected an issuer URL, https (or http on a loopback host) without a query or "
                          "fragment, got " + quote(text));
          } else if (std::find(oauth.authorization_servers.begin(), oauth.authorization_servers.end(), text) !=
                     oauth.authorization_servers.end()) {
            report(where, quote(text) + " is listed twice");
          } else {
            oauth.authorization_servers.push_back(std::move(text));
          }
        }
      } else if (name == "algorithms") {
        for (auto& [text, where] : string_list(node, path)) {
          if (std::find(kJwsAlgorithms.begin(), kJwsAlgorithms.end(), text) == kJwsAlgorithms.end()) {
            report(where, "expected one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512 (symmetric "
                          "and unsigned tokens are never accepted), got " + quote(text));
          } else {
            oauth.algorithms.push_back(std::move(text));
          }
        }
      } else if (name == "leeway_s") {
        set_integer(node, path, 0, 300, oauth.leeway_s);
      } else if (name == "jwks_refresh_min_s") {
        set_integer(node, path, 0, 86'400, oauth.jwks_refresh_min_s);
      } else if (name == "fetch_timeout_ms") {
        set_integer(node, path, 100, 60'000, oauth.fetch_timeout_ms);
      } else if (name == "fetch_addresses") {
        for (auto& [text, where] : string_list(node, path)) {
          if (auto range = parse_address_range(text)) {
            oauth.fetch_addresses.push_back(std::move(*range));
          } else {
            report(where, range.error().message);
          }
        }
      } else if (name == "scopes") {
        if (const auto* scopes = table_value(node, path)) {
          for (const auto& [scope_key, globs] : *scopes) {
            const std::string scope(scope_key.str());
            const std::string scope_path = path + "." + key_text(scope);
            if (!is_scope_token(scope)) {
              report(place(scope_key.source(), scope_path),
                     "a scope is 1 or more printable ASCII characters other than space, '\"' and '\\' "
                     "(RFC 6749 3.3), got " + quote(scope));
              continue;
            }
            auto& granted = oauth.scopes[scope];
            const auto* kinds = globs.as_table();
            if (!kinds) {
              for (auto& glob : string_list(globs, scope_path)) granted.tools.push_back(std::move(glob.first));
              continue;
            }
            for (const auto& [kind, list] : *kinds) {
              const std::string kind_path = scope_path + "." + key_text(kind.str());
              auto* into = kind.str() == "tools"       ? &granted.tools
                           : kind.str() == "resources" ? &granted.resources
                           : kind.str() == "prompts"   ? &granted.prompts
                                                       : nullptr;
              if (!into) {
                report_unknown_key(kind, scope_path, " (a scope grants tools, resources and prompts)");
                continue;
              }
              for (auto& glob : string_list(list, kind_path)) into->push_back(std::move(glob.first));
            }
          }
        }
      } else {
        report_unknown_key(key, "auth.oauth");
      }
    }
    if (!table.contains("authorization_servers"))
      report(oauth.place, "missing key 'authorization_servers': a resource server needs the issuers whose tokens it "
                          "accepts");
    if (oauth.algorithms.empty()) oauth.algorithms.assign(kJwsAlgorithms.begin(), kJwsAlgorithms.end());
  }

  void read_pinning(const toml::table& table) {
    auto& pinning = config_.pinning;
    pinning.place = place(table, "pinning");
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string path = "pinning." + key_text(name);
      if (name == "file") {
        if (auto value = string_value(node, path); value && value->empty()) {
          report(place(node, path), "expected a file name, got \"\"");
        } else if (value) {
          pinning.file = resolve(*value);
        }
      } else if (name == "on_definition_change") {
        if (auto value = choice_value(node, path, kOnDefinitionChange)) pinning.on_definition_change = *value;
      } else {
        report_unknown_key(key, "pinning");
      }
    }
    if (!pinning.file && table.contains("on_definition_change"))
      report(pinning.place, "missing key 'file': on_definition_change needs a pin file to compare with");
  }

  void read_chains(const toml::table& chains) {
    for (const auto& [key, node] : chains) {
      const std::string name(key.str());
      const std::string path = "chains." + key_text(name);
      const auto* table = table_value(node, path);
      if (!table) continue;
      if (name == "none") {
        report(place(key.source(), path), "\"none\" is reserved for opting a tool out of every "
                                          "chain and cannot name a chain");
        continue;
      }
      if (!is_plain_name(name)) {
        report(place(key.source(), path),
               "a chain name may hold only letters, digits, '_' and '-'");
        continue;
      }
      read_chain(name, *table, path);
    }
  }

  void read_chain(const std::string& name, const toml::table& table, const std::string& path) {
    ChainConfig chain;
    chain.name = name;
    chain.place = place(table, path);
    if (!table.contains("steps")) report(chain.place, "missing key 'steps'");
    for (const auto& [key, node] : table) {
      if (key.str() != "steps") {
        report_unknown_key(key, path);
        continue;
      }
      for (auto& [step, where] : string_list(node, path + ".steps")) {
        chain.steps.push_back(std::move(step));
        chain.step_places.push_back(std::move(where));
      }
    }
    config_.chains.emplace(name, std::move(chain));
  }

  void read_tools(const toml::table& tools) {
    for (const auto& [key, node] : tools) {
      const std::string pattern(key.str());
      const std::string path = "tools." + key_text(pattern);
      const auto* table = table_value(node, path);
      if (!table) continue;
      if (pattern.empty()) {
        report(place(key.source(), path), "a tool name or glob cannot be empty");
        continue;
      }
      read_binding(pattern, *table, path);
    }
  }

  void read_binding(const std::string& pattern, const toml::table& table,
                    const std::string& path) {
    ToolBinding binding;
    binding.pattern = pattern;
    binding.place = place(table, path);
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string field = path + "." + key_text(name);
      if (name == "chain") {
        binding.chain = string_value(node, field);
        binding.chain_place = place(node, field);
      } else if (name == "timeout_ms") {
        if (auto value = integer_value(node, field, 1, 86'400'000))
          binding.timeout_ms = static_cast<std::uint32_t>(*value);
      } else if (name == "mirror") {
        binding.mirror = choice_value(node, field, kMirrors);
      } else if (name == "max_result_bytes") {
        if (auto value = integer_value(node, field, 1024, kNoUpperLimit))
          binding.max_result_bytes = static_cast<std::size_t>(*value);
      } else if (name == "egress") {
        binding.egress.emplace();
        for (auto& [text, where] : string_list(node, field)) {
          if (auto rule = parse_egress_rule(text)) {
            binding.egress->push_back(std::move(*rule));
          } else {
            report(where, rule.error().message);
          }
        }
      } else if (name == "egress_addresses") {
        if (!table.contains("egress"))
          report(place(node, field), "egress_addresses grants special ranges to the destinations in "
                                     "'egress', which this table does not have");
        for (auto& [text, where] : string_list(node, field)) {
          if (auto range = parse_address_range(text)) {
            binding.egress_addresses.push_back(std::move(*range));
          } else {
            report(where, range.error().message);
          }
        }
      } else if (node.is_table()) {
        // [tools.acme.search] reads as tool "acme" with a key "search".
        report_unknown_key(key, path,
                           " (quote a tool name that holds a dot: [tools." +
                               quote(pattern + "." + name) + "])");
      } else {
        report_unknown_key(key, path);
      }
    }
    config_.tools.push_back(std::move(binding));
  }

  // [egress] and its [egress.hosts] resolver table.
  void read_egress(const toml::table& table) {
    auto& egress = config_.egress;
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string path = "egress." + key_text(name);
      if (name == "timeout_ms") {
        set_integer(node, path, 1, 3'600'000, egress.timeout_ms);
      } else if (name == "max_response_bytes") {
        set_integer(node, path, 1, std::int64_t{1} << 30, egress.max_response_bytes);
      } else if (name == "max_redirects") {
        set_integer(node, path, 0, 20, egress.max_redirects);
      } else if (name == "hosts") {
        const auto* hosts = table_value(node, path);
        if (!hosts) continue;
        for (const auto& [host_key, addresses] : *hosts) {
          const std::string host = lowercase(host_key.str());
          const std::string host_path = path + "." + key_text(host);
          auto parsed = parse_url("http://" + host + "/");
          if (!parsed || parsed->host_kind != HostKind::name || parsed->host != host) {
            report(place(host_key.source(), host_path), "expected a host name, got " + quote(host));
            continue;
          }
          auto& list = egress.hosts[host];
          for (auto& [text, where] : string_list(addresses, host_path)) {
            boost::system::error_code ec;
            const auto address = boost::asio::ip::make_address(text, ec);
            if (ec) {
              report(where, "expected an IPv4 or IPv6 address, got " + quote(text));
            } else {
              list.push_back(address);
            }
          }
        }
      } else {
        report_unknown_key(key, "egress");
      }
    }
  }

  // [resources."<uri glob>"] or [prompts."<name glob>"]: `chain` only.
  void read_content_bindings(const toml::table& bindings, const std::string& kind,
                             std::vector<ContentBinding>& out) {
    const char* what = kind == "resources" ? "a resource URI or glob" : "a prompt name or glob";
    for (const auto& [key, node] : bindings) {
      const std::string pattern(key.str());
      const std::string path = kind + "." + key_text(pattern);
      const auto* table = table_value(node, path);
      if (!table) continue;
      if (pattern.empty()) {
        report(place(key.source(), path), std::string(what) + " cannot be empty");
        continue;
      }
      ContentBinding binding;
      binding.pattern = pattern;
      binding.place = place(*table, path);
      for (const auto& [field_key, field] : *table) {
        const std::string name(field_key.str());
        const std::string field_path = path + "." + key_text(name);
        if (name == "chain") {
          binding.chain = string_value(field, field_path);
          binding.chain_place = place(field, field_path);
        } else if (field.is_table()) {
          // [prompts.acme.summary] reads as prompt "acme" with a key "summary".
          report_unknown_key(field_key, path,
                             " (quote a name that holds a dot: [" + kind + "." + quote(pattern + "." + name) + "])");
        } else {
          report_unknown_key(field_key, path);
        }
      }
      out.push_back(std::move(binding));
    }
  }

  void read_plugin_settings(const toml::table& plugins) {
    for (const auto& [key, node] : plugins) {
      const std::string path = "plugin." + key_text(key.str());
      const auto* table = table_value(node, path);
      if (!table) continue;
      config_.plugin_settings.emplace(key.str(), to_json_object(*table));
      config_.plugin_setting_places.emplace(key.str(), place(*table, path));
    }
  }

  // Checked against the document rather than config_.chains, so a chain that
  // is declared but invalid is reported once, for what is wrong with it.
  void check_chain_references(const toml::table& root) {
    const auto* chains = root["chains"].as_table();
    auto check = [&](const std::optional<std::string>& chain, const SourcePlace& where) {
      if (!chain || *chain == "none") return;
      if (chains && chains->contains(*chain)) return;
      report(where, "chain " + quote(*chain) + " is not declared");
    };
    for (const auto& binding : config_.tools) check(binding.chain, binding.chain_place);
    for (const auto& binding : config_.resources) check(binding.chain, binding.chain_place);
    for (const auto& binding : config_.prompts) check(binding.chain, binding.chain_place);
  }

  // --- values: each returns the value, or records why not and returns nothing

  const toml::table* table_value(const toml::node& node, const std::string& path) {
    if (const auto* table = node.as_table()) return table;
    report(place(node, path), "expected a table, got " + value_text(node));
    return nullptr;
  }

  std::optional<std::string> string_value(const toml::node& node, const std::string& path) {
    if (const auto* text = node.as_string()) return text->get();
    report(place(node, path), "expected a string, got " + value_text(node));
    return std::nullopt;
  }

  std::optional<std::int64_t> integer_value(const toml::node& node, const std::string& path,
                                            std::int64_t min, std::int64_t max) {
    const auto* integer = node.as_integer();
    if (integer && integer->get() >= min && integer->get() <= max) return integer->get();
    report(place(node, path),
           "expected " + integer_range_text(min, max) + ", got " + value_text(node));
    return std::nullopt;
  }

  template <class T>
  void set_integer(const toml::node& node, const std::string& path, std::int64_t min,
                   std::int64_t max, T& field) {
    if (auto value = integer_value(node, path, min, max)) field = static_cast<T>(*value);
  }

  // An integer or a float; written so that NaN fails the range check too.
  std::optional<double> number_value(const toml::node& node, const std::string& path,
                                     std::int64_t min, std::int64_t max) {
    std::optional<double> number;
    if (const auto* integer = node.as_integer()) number = static_cast<double>(integer->get());
    if (const auto* floating = node.as_floating_point()) number = floating->get();
    if (number && *number >= static_cast<double>(min) && *number <= static_cast<double>(max))
      return number;
    report(place(node, path),
           "expected " + number_range_text(min, max) + ", got " + value_text(node));
    return std::nullopt;
  }

  std::optional<bool> bool_value(const toml::node& node, const std::string& path) {
    if (const auto* flag = node.as_boolean()) return flag->get();
    report(place(node, path), "expected true or false, got " + value_text(node));
    return std::nullopt;
  }

  template <class T, std::size_t N>
  std::optional<T> choice_value(const toml::node& node, const std::string& path,
                                const std::array<Choice<T>, N>& choices) {
    if (const auto* text = node.as_string()) {
      for (const auto& choice : choices)
        if (choice.name == text->get()) return choice.value;
    }
    report(place(node, path), "expected " + choices_text(choices) + ", got " + value_text(node));
    return std::nullopt;
  }

  // An array of non-empty strings, each with where it was written. Problems
  // drop the offending elements; the result is discarded anyway.
  std::vector<std::pair<std::string, SourcePlace>> string_list(const toml::node& node,
                                                               const std::string& path) {
    std::vector<std::pair<std::string, SourcePlace>> list;
    const auto* array = node.as_array();
    if (!array) {
      report(place(node, path), "expected an array of strings, got " + value_text(node));
      return list;
    }
    for (std::size_t i = 0; i < array->size(); ++i) {
      const auto& element = *array->get(i);
      SourcePlace where = place(element, path + "[" + std::to_string(i) + "]");
      const auto* text = element.as_string();
      if (!text || text->get().empty()) {
        report(where, "expected a non-empty string, got " + value_text(element));
        continue;
      }
      list.emplace_back(text->get(), std::move(where));
    }
    return list;
  }

  // --- places and problems

  fs::path resolve(const std::string& dir) const {
    const fs::path path(dir);
    if (path.is_absolute()) return path.lexically_normal();
    return (config_.file.parent_path() / path).lexically_normal();
  }

  SourcePlace place(const toml::source_region& region, std::string path) const {
    return SourcePlace{file_, region.begin.line, region.begin.column, std::move(path)};
  }
  SourcePlace place(const toml::node& node, std::string path) const {
    return place(node.source(), std::move(path));
  }

  // "<file>:<line>:<column>: <key>: <what>"
  void report(const SourcePlace& where, std::string_view what) {
    problems_.push_back(Problem{where.line, where.column,
                                where.describe() + ": " + where.key + ": " + std::string(what)});
  }

  // "<file>:<line>:<column>: unknown key '<key>' in [<table>]"; the root has no table.
  void report_unknown_key(const toml::key& key, std::string_view table,
                          std::string_view hint = {}) {
    const auto& at = key.source().begin;
    std::string message = SourcePlace{file_, at.line, at.column, {}}.describe() +
                          ": unknown key '" + std::string(key.str()) + "'";
    if (!table.empty()) message += " in [" + std::string(table) + "]";
    message += hint;
    problems_.push_back(Problem{at.line, at.column, std::move(message)});
  }

  std::string file_;  // as given, for messages
  Config config_;
  std::vector<Problem> problems_;
};

// toml++ describes problems as sentences ("Error while parsing ..."); the house
// form is lowercase, so only a leading capital that starts a word is lowered.
std::string house_form(std::string_view description) {
  std::string text(description);
  if (text.size() > 1 && text[0] >= 'A' && text[0] <= 'Z' && text[1] >= 'a' && text[1] <= 'z')
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  while (!text.empty() && (text.back() == '.' || text.back() == '\n')) text.pop_back();
  return text;
}

}  // namespace

std::string SourcePlace::describe() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

Result<Config> load_config(const std::filesystem::path& file) {
  auto text = read_file(file);
  if (!text) return text.error();
  return parse_config(*text, file);
}

Result<Config> parse_config(std::string_view text, const std::filesystem::path& file) {
  const std::string name = file.string();
  toml::table root;
  try {
    root = toml::parse(text, std::string_view(name));
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    return Error{SourcePlace{name, at.line, at.column, {}}.describe() + ": " +
                 house_form(e.description())};
  }
  return ConfigReader(file).read(root);
}

// Greedy matching with one backtrack point: on a mismatch only the most recent
// '*' needs to absorb one more byte, because any earlier '*' could only make
// the same choices again. Worst case O(pattern * name), no recursion.
bool glob_match(std::string_view pattern, std::string_view name) {
  constexpr auto kNone = std::string_view::npos;
  std::size_t p = 0;
  std::size_t n = 0;
  std::size_t star = kNone;  // position of the last '*' seen in pattern
  std::size_t resume = 0;    // where in name that '*' stopped absorbing
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (star != kNone) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool is_bearer_token(std::string_view token) {
  const auto is_b64token_char = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
  };
  const auto body_end = token.find_last_not_of('=');
  if (body_end == std::string_view::npos) return false;  // empty, or only padding
  const auto body = token.substr(0, body_end + 1);
  return std::all_of(body.begin(), body.end(), is_b64token_char);
}

}  // namespace airlock::host
