// URLs as the egress layer reads them.
//
// The policy, the resolver and curl must all see the same host and port, so
// the parser accepts only the one unambiguous spelling of each thing and
// refuses every form that some reader would rewrite: a host written
// "0x7f.1" is 127.0.0.1 to a browser or getaddrinfo but a name to a naive
// allowlist, so it is refused, never reinterpreted. Nothing is ever
// percent-decoded; percent escapes in path and query stay byte for byte.
#include "egress/egress_url.hpp"

#include "util/ascii.hpp"

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

namespace airlock::host {
namespace {

constexpr std::size_t kMaxUrlLength = 8192;
constexpr std::size_t kMaxEchoLength = 200;
constexpr std::size_t kMaxHostLength = 253;
constexpr std::size_t kMaxLabelLength = 63;

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Text for an error message: cut short, and every byte outside printable
// ASCII shown as \xNN so a message never carries control characters.
std::string echo(std::string_view text) {
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kMaxEchoLength; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f) {
      out += static_cast<char>(byte);
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  if (text.size() > kMaxEchoLength) out += "...";
  return out + "'";
}

// RFC 3986 characters allowed in path, query and fragment besides '%'.
bool is_uri_char(char c) {
  if (is_alpha(c) || is_digit(c)) return true;
  switch (c) {
    case '-': case '.': case '_': case '~':                          // unreserved
    case '!': case '$': case '&': case '\'': case '(': case ')':
    case '*': case '+': case ',': case ';': case '=':                // sub-delims
    case ':': case '@': case '/': case '?':
      return true;
    default:
      return false;
  }
}

// The first byte no URL may hold anywhere: the rule, and the byte described
// ("a space at offset 4"), or nullopt.
std::optional<UrlRefusal> forbidden_byte(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::string where = " at offset " + std::to_string(i);
    if (byte == ' ') return UrlRefusal{"space not allowed", "a space" + where};
    if (byte < 0x20 || byte == 0x7f) return UrlRefusal{"control character not allowed", "a control character" + where};
    if (byte >= 0x80)
      return UrlRefusal{"non-ASCII byte not allowed",
                        "a non-ASCII byte" + where + " (write the host in punycode and percent-encode the rest)"};
  }
  return std::nullopt;
}

// Path, query and fragment: RFC 3986 characters, and '%' only as the start
// of an escape (kept as written, never decoded).
std::optional<UrlRefusal> bad_target(std::string_view target, std::size_t offset) {
  for (std::size_t i = 0; i < target.size(); ++i) {
    const char c = target[i];
    if (c == '%') {
      if (i + 2 >= target.size() || !is_hex(target[i + 1]) || !is_hex(target[i + 2]))
        return UrlRefusal{"malformed percent escape", "'%' at offset " + std::to_string(offset + i) +
                                                          " does not start a percent escape (%XX)"};
      i += 2;
    } else if (!is_uri_char(c)) {
      return UrlRefusal{"character not allowed in url", std::string("character '") + c + "' at offset " +
                                                            std::to_string(offset + i) +
                                                            " is not allowed in a URL (percent-encode it)"};
    }
  }
  return std::nullopt;
}

bool is_canonical_octet(std::string_view label) {
  if (label.empty() || label.size() > 3 || !std::all_of(label.begin(), label.end(), is_digit)) return false;
  if (label.size() > 1 && label[0] == '0') return false;
  int value = 0;
  std::from_chars(label.data(), label.data() + label.size(), value);
  return value <= 255;
}

// WHATWG URL's "ends in a number": such a host is an IPv4 address to a
// browser (in decimal, octal or hex, with 1 to 4 parts), whatever it looks like.
bool ends_in_a_number(std::string_view host) {
  const std::size_t dot = host.rfind('.');
  const std::string_view last = dot == std::string_view::npos ? host : host.substr(dot + 1);
  if (!last.empty() && std::all_of(last.begin(), last.end(), is_digit)) return true;
  return last.size() >= 2 && last[0] == '0' && last[1] == 'x' &&
         std::all_of(last.begin() + 2, last.end(), is_hex);
}

UrlResult<ParsedHost> parse_ipv6_literal(std::string_view written) {
  const std::string_view inside = written.substr(1, written.size() - 2);
  if (inside.find('%') != std::string_view::npos)
    return UrlRefusal{"IPv6 zone id not allowed", "host " + echo(written) + " has a zone id, which a URL cannot use"};
  if (inside.empty() || !std::all_of(inside.begin(), inside.end(),
                                     [](char c) { return is_hex(c) || c == ':' || c == '.'; }))
    return UrlRefusal{"malformed IPv6 address", "host " + echo(written) + " is not an IPv6 address"};
  boost::system::error_code ec;
  boost::asio::ip::make_address_v6(std::string(inside), ec);
  if (ec) return UrlRefusal{"malformed IPv6 address", "host " + echo(written) + " is not an IPv6 address"};
  return ParsedHost{HostKind::ipv6, ascii_lowercase(inside)};
}

// A URI reference split as RFC 3986 appendix B does, without decoding.
struct Reference {
  std::optional<std::string_view> scheme, authority, query;
  std::string_view path;
};

Reference split_reference(std::string_view text) {
  Reference ref;
  text = text.substr(0, text.find('#'));  // a redirect's own fragment never reaches the wire
  const std::size_t colon = text.find_first_of(":/?");
  if (colon != std::string_view::npos && colon > 0 && text[colon] == ':') {
    ref.scheme = text.substr(0, colon);
    text.remove_prefix(colon + 1);
  }
  if (text.substr(0, 2) == "//") {
    const std::size_t end = std::min(text.find_first_of("/?", 2), text.size());
    ref.authority = text.substr(2, end - 2);
    text.remove_prefix(end);
  }
  const std::size_t question = text.find('?');
  ref.path = text.substr(0, question);
  if (question != std::string_view::npos) ref.query = text.substr(question + 1);
  return ref;
}

// RFC 3986 section 5.2.4. Only the literal segments "." and ".." count:
// "%2e%2e" is data, never decoded into a step up.
std::string remove_dot_segments(std::string_view input) {
  std::string output;
  while (!input.empty()) {
    if (input.starts_with("../")) {
      input.remove_prefix(3);
    } else if (input.starts_with("./")) {
      input.remove_prefix(2);
    } else if (input.starts_with("/./")) {
      input.remove_prefix(2);
    } else if (input == "/.") {
      input = "/";
    } else if (input.starts_with("/../") || input == "/..") {
      input = input.size() == 3 ? std::string_view("/") : input.substr(3);
      const std::size_t last = output.rfind('/');
      output.erase(last == std::string::npos ? 0 : last);
    } else if (input == "." || input == "..") {
      input = {};
    } else {
      const std::size_t next = input.find('/', input.front() == '/' ? 1 : 0);
      const std::string_view segment = input.substr(0, next);
      output += segment;
      input.remove_prefix(segment.size());
    }
  }
  return output;
}

}  // namespace

std::string_view scheme_name(Scheme scheme) { return scheme == Scheme::http ? "http" : "https"; }

std::uint16_t default_port(Scheme scheme) { return scheme == Scheme::http ? 80 : 443; }

namespace {

UrlResult<ParsedHost> read_host(std::string_view written) {
  if (written.empty()) return UrlRefusal{"no host", "host is empty"};
  if (written.front() == '[') {
    if (written.back() != ']')
      return UrlRefusal{"unclosed IPv6 literal", "host " + echo(written) + " has no closing ']'"};
    return parse_ipv6_literal(written);
  }
  if (auto problem = forbidden_byte(written))
    return UrlRefusal{problem->rule, "host " + echo(written) + " has " + problem->message};
  if (written.find('%') != std::string_view::npos)
    return UrlRefusal{"percent-encoded host not allowed",
                      "host " + echo(written) + " is percent-encoded, which the host never decodes"};
  if (written.find(':') != std::string_view::npos)
    return UrlRefusal{"colon in host", "host " + echo(written) + " holds ':' (write an IPv6 address in brackets)"};
  if (written.size() > kMaxHostLength)
    return UrlRefusal{"host too long",
                      "host " + echo(written) + " is longer than " + std::to_string(kMaxHostLength) + " bytes"};

  const std::string host = ascii_lowercase(written);
  std::size_t labels = 0;
  bool all_octets = true;
  for (std::size_t start = 0;; ++labels) {
    const std::size_t dot = host.find('.', start);
    const std::string_view label =
        std::string_view(host).substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (label.empty()) return UrlRefusal{"empty host label", "host " + echo(written) + " has an empty label"};
    if (label.size() > kMaxLabelLength)
      return UrlRefusal{"host label too long", "host " + echo(written) + " has a label longer than " +
                                                   std::to_string(kMaxLabelLength) + " bytes"};
    for (const char c : label) {
      if (!is_alpha(c) && !is_digit(c) && c != '-' && c != '_')
        return UrlRefusal{"character not allowed in host", "host " + echo(written) + " holds '" +
                                                               std::string(1, c) + "', which no host name may hold"};
    }
    all_octets = all_octets && is_canonical_octet(label);
    if (dot == std::string::npos) {
      ++labels;
      break;
    }
    start = dot + 1;
  }
  if (ends_in_a_number(host)) {
    if (labels == 4 && all_octets) return ParsedHost{HostKind::ipv4, host};
    return UrlRefusal{"ambiguous IPv4 address",
                      "host " + echo(written) +
                          " is an ambiguous IPv4 address (write the four decimal parts, without leading zeros)"};
  }
  return ParsedHost{HostKind::name, host};
}

UrlResult<std::uint16_t> read_port(std::string_view written) {
  if (written.empty()) return UrlRefusal{"empty port", "port is empty"};
  if (!std::all_of(written.begin(), written.end(), is_digit))
    return UrlRefusal{"port not a number", "port " + echo(written) + " is not a number"};
  if (written.size() > 1 && written[0] == '0')
    return UrlRefusal{"port with leading zero", "port " + echo(written) + " has a leading zero"};
  if (written.size() > 5) return UrlRefusal{"port out of range", "port " + echo(written) + " is not in 1..65535"};
  unsigned value = 0;
  std::from_chars(written.data(), written.data() + written.size(), value);
  if (value == 0 || value > 65535)
    return UrlRefusal{"port out of range", "port " + echo(written) + " is not in 1..65535"};
  return static_cast<std::uint16_t>(value);
}

}  // namespace

Result<ParsedHost> parse_host(std::string_view written) {
  auto host = read_host(written);
  if (!host) return Error{host.error().message};
  return *host;
}

Result<std::uint16_t> parse_port(std::string_view written) {
  auto port = read_port(written);
  if (!port) return Error{port.error().message};
  return *port;
}

UrlResult<Url> parse_url(std::string_view text) {
  // Every refusal's message starts with the URL, shown safely.
  const auto refuse = [&](std::string rule, std::string_view what) {
    return UrlRefusal{std::move(rule), "url " + echo(text) + std::string(what)};
  };
  if (text.empty()) return UrlRefusal{"empty url", "url is empty"};
  if (text.size() > kMaxUrlLength)
    return refuse("url too long", " is longer than " + std::to_string(kMaxUrlLength) + " bytes");
  if (auto problem = forbidden_byte(text)) return refuse(problem->rule, " has " + problem->message);
  if (text.find('\\') != std::string_view::npos)
    return refuse("backslash not allowed", " holds a backslash, which readers disagree about");

  const std::size_t colon = text.find(':');
  const std::string_view scheme_text = colon == std::string_view::npos ? std::string_view{} : text.substr(0, colon);
  const bool has_scheme = !scheme_text.empty() && is_alpha(scheme_text[0]) &&
                          std::all_of(scheme_text.begin(), scheme_text.end(), [](char c) {
                            return is_alpha(c) || is_digit(c) || c == '+' || c == '-' || c == '.';
                          });
  if (!has_scheme) return refuse("not an absolute url", " is not an absolute http or https URL");
  Url url;
  const std::string scheme = ascii_lowercase(scheme_text);
  if (scheme == "http") {
    url.scheme = Scheme::http;
  } else if (scheme == "https") {
    url.scheme = Scheme::https;
  } else {
    // The scheme holds only letters, digits, '+', '-' and '.', so the rule
    // may show it; cut short, as a rule is a few words.
    return refuse("scheme " + scheme.substr(0, 32) + " not allowed",
                  ": scheme " + echo(scheme_text) + " is not http or https");
  }
  if (text.substr(colon + 1, 2) != "//") return refuse("no host", " has no '//' and host after the scheme");

  const std::size_t authority_start = colon + 3;
  const std::size_t authority_end = std::min(text.find_first_of("/?#", authority_start), text.size());
  const std::string_view authority = text.substr(authority_start, authority_end - authority_start);
  if (authority.find('@') != std::string_view::npos)
    return refuse("userinfo not allowed", " has userinfo ('@' before the host), which the host refuses");
  if (authority.empty()) return refuse("no host", " has no host");

  std::string_view host_text = authority;
  std::optional<std::string_view> port_text;
  if (authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return refuse("unclosed IPv6 literal", ": host has no closing ']'");
    host_text = authority.substr(0, close + 1);
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return refuse("text after IPv6 literal", ": unexpected text after ']'");
      port_text = after.substr(1);
    }
  } else if (const std::size_t port_colon = authority.rfind(':'); port_colon != std::string_view::npos) {
    host_text = authority.substr(0, port_colon);
    port_text = authority.substr(port_colon + 1);
  }
  if (host_text.empty()) return refuse("no host", " has no host");
  auto host = read_host(host_text);
  if (!host) return refuse(host.error().rule, ": " + host.error().message);
  url.host_kind = host->kind;
  url.host = std::move(host->text);
  url.port = default_port(url.scheme);
  if (port_text) {
    auto port = read_port(*port_text);
    if (!port) return refuse(port.error().rule, ": " + port.error().message);
    url.port = *port;
  }

  const std::string_view rest = text.substr(authority_end);
  const std::size_t hash = rest.find('#');
  const std::string_view target = rest.substr(0, hash);
  if (auto problem = bad_target(target, authority_end)) return refuse(problem->rule, ": " + problem->message);
  if (hash != std::string_view::npos) {
    const std::string_view fragment = rest.substr(hash + 1);
    if (fragment.find('#') != std::string_view::npos)
      return refuse("second fragment", " has a second '#' in its fragment");
    if (auto problem = bad_target(fragment, authority_end + hash + 1))
      return refuse(problem->rule, ": " + problem->message);
  }
  url.target = target.empty() || target.front() == '?' ? "/" + std::string(target) : std::string(target);

  url.text = std::string(scheme_name(url.scheme)) + "://";
  url.text += url.host_kind == HostKind::ipv6 ? "[" + url.host + "]" : url.host;
  if (port_text) url.text += ":" + std::string(*port_text);
  url.text += url.target;
  return url;
}

UrlResult<Url> resolve_redirect(const Url& base, std::string_view location) {
  if (auto problem = forbidden_byte(location))
    return UrlRefusal{problem->rule, "redirect location " + echo(location) + " has " + problem->message};
  const Reference ref = split_reference(location);

  // The base's authority exactly as it was written (port included only then).
  const std::size_t authority_start = scheme_name(base.scheme).size() + 3;
  const std::string_view base_authority = std::string_view(base.text).substr(
      authority_start, base.text.size() - base.target.size() - authority_start);
  const std::size_t base_question = base.target.find('?');
  const std::string_view base_path = std::string_view(base.target).substr(0, base_question);

  std::string scheme(scheme_name(base.scheme));
  std::optional<std::string> authority(base_authority);
  std::string path;
  std::optional<std::string_view> query = ref.query;
  if (ref.scheme) {
    // An absolute location without "//" ("g:h", "http:g") stays without
    // one, so parse_url refuses it by its scheme or its missing host.
    scheme = std::string(*ref.scheme);
    authority = ref.authority ? std::optional<std::string>(*ref.authority) : std::nullopt;
    path = remove_dot_segments(ref.path);
  } else if (ref.authority) {
    authority = std::string(*ref.authority);
    path = remove_dot_segments(ref.path);
  } else if (ref.path.empty()) {
    path = std::string(base_path);
    if (!query && base_question != std::string::npos)
      query = std::string_view(base.target).substr(base_question + 1);
  } else if (ref.path.front() == '/') {
    path = remove_dot_segments(ref.path);
  } else {
    // Merge (section 5.2.3): the base path up to its last '/', then the reference.
    const std::size_t slash = base_path.rfind('/');
    const std::string merged =
        (slash == std::string_view::npos ? std::string("/") : std::string(base_path.substr(0, slash + 1))) +
        std::string(ref.path);
    path = remove_dot_segments(merged);
  }

  // Without an authority a path must not start with "//", or the text
  // would read back with its first segment as a host: "http:/./..//evil"
  // removes its dot segments to "//evil". RFC 3986 section 5.2.4's output
  // keeps such a path a path by prefixing "/.", which parse_url then refuses
  // with the rest of the authority-less locations.
  if (!authority && path.starts_with("//")) path.insert(0, "/.");
  std::string target = scheme + ":" + (authority ? "//" + *authority : std::string()) + path;
  if (query) target += "?" + std::string(*query);
  auto url = parse_url(target);
  if (!url) return UrlRefusal{url.error().rule, "redirect location " + echo(location) + ": " + url.error().message};
  return url;
}

}  // namespace airlock::host
