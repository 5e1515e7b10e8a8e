// The syntax of the values a section checks: names, hosts, origins,
// identities, URLs; and reading secret files.
#include "config/config_reader.hpp"

#include <boost/asio/ip/address.hpp>
#include <sodium.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <memory>
#include <sstream>
#include <system_error>

namespace airlock::host::config_reading {

bool is_plain_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
  });
}

// A key as it would be written in a dotted path: acme, or "acme.search".
std::string key_text(std::string_view key) {
  return is_plain_name(key) ? std::string(key) : quote(key);
}

std::string toml_text(const toml::node& node) {
  std::ostringstream out;
  node.visit([&out](const auto& value) { out << value; });
  return out.str();
}

std::string value_text(const toml::node& node) {
  if (node.is_table()) return "a table";
  if (node.is_array()) return "an array";
  if (const auto* text = node.as_string()) return quote(text->get());
  return toml_text(node);
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

bool is_identity(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '@' || c == '-';
  });
}


// stdio rather than iostreams because errno then holds the real reason
// (missing, not permitted, a directory) for the message.
struct FileCloser {
  void operator()(std::FILE* stream) const { std::fclose(stream); }
};

bool is_scope_token(std::string_view scope) {
  return !scope.empty() && std::all_of(scope.begin(), scope.end(), [](char c) {
    return c >= 0x21 && c <= 0x7e && c != '"' && c != '\\';
  });
}

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
  sodium_memzero(buffer.data(), buffer.size());  // it may have held a token
  if (too_large) {
    sodium_memzero(text.data(), text.size());
    return Error{file.string() + ": larger than " + std::to_string(kMaxReadFile >> 20) +
                 " MiB, so not a config, token or key file"};
  }
  if (std::ferror(stream.get())) return cannot_read(error);
  // Error is constructible from a string too, so the value needs naming.
  return Result<std::string>(boost::system::in_place_value, std::move(text));
}

void wipe(std::string& secret) {
  sodium_memzero(secret.data(), secret.size());
  secret.clear();
}

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

}  // namespace airlock::host::config_reading
