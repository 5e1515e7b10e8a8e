// egress_redirect_fuzz — host/egress/egress_url's resolve_redirect: the input
// is "<base URL>\n<Location>" (without a newline, all of it is the Location
// against http://127.0.0.1:8080/a/b?q). Asserts, for every location accepted:
//   - a location without an authority ("//host" after an optional scheme)
//     keeps the base's host and port, and one with a scheme but no
//     authority ("http:/x") is refused: a path never becomes a host;
//   - the result is a URL parse_url accepts as it is, and curl reads it as
//     the same scheme, host and port (curl_reading.hpp).
#include "curl_reading.hpp"

#include <cstddef>
#include <cstdint>

namespace {

bool is_scheme_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
         c == '.';
}

struct Shape {
  bool scheme = false;
  bool authority = false;
};

// RFC 3986 appendix B, written again here on purpose (not shared with the
// code under test): whether the location has a scheme and an authority.
Shape shape_of(std::string_view location) {
  location = location.substr(0, location.find('#'));
  Shape shape;
  const std::size_t colon = location.find_first_of(":/?");
  if (colon != std::string_view::npos && colon > 0 && location[colon] == ':') {
    bool all = true;
    for (std::size_t i = 0; i < colon; ++i) all = all && is_scheme_char(location[i]);
    if (all) {
      shape.scheme = true;
      location.remove_prefix(colon + 1);
    }
  }
  shape.authority = location.substr(0, 2) == "//";
  return shape;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace airlock;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string_view base_text = "http://127.0.0.1:8080/a/b?q";
  std::string_view location = input;
  if (const std::size_t newline = input.find('\n'); newline != std::string_view::npos) {
    base_text = input.substr(0, newline);
    location = input.substr(newline + 1);
  }
  const auto base = host::parse_url(base_text);
  if (!base) return 0;
  const auto url = host::resolve_redirect(*base, location);
  if (!url) return 0;

  const Shape shape = shape_of(location);
  if (shape.scheme && !shape.authority) fuzz::disagree("a location with a scheme and no authority was accepted", input, *url, {});
  if (!shape.authority && (url->host != base->host || url->port != base->port))
    fuzz::disagree("a location without an authority moved to another host", input, *url, {});
  const auto again = host::parse_url(url->text);
  if (!again || again->host != url->host || again->port != url->port || again->target != url->target)
    fuzz::disagree("the resolved URL does not parse back to itself", input, *url, {});
  fuzz::expect_curl_agrees(input, url->text, *url);
  return 0;
}
