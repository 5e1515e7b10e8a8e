// The request metadata headers of MCP 2026-07-28 (SEP-2243): Mcp-Method,
// Mcp-Name and Mcp-Param-*, which let HTTP intermediaries route on what a
// request does without reading its body. The server must hold them to the
// body, or a proxy could route one call while the host runs another.
// Each check returns nothing when the headers agree with the body, else the
// message of the -32020 (HeaderMismatch, HTTP 400) error, naming the header
// and what is wrong.
#pragma once

#include "plugins/tool_headers.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host {

// What the HTTP transport gives: header lookup by case-insensitive name.
// stdio has no headers, so nothing there calls these checks.
class HeaderView {
 public:
  virtual ~HeaderView() = default;
  virtual std::size_t count(std::string_view name) const = 0;                    // lines with this name
  virtual std::optional<std::string_view> get(std::string_view name) const = 0;  // first line's raw value
};

// Mcp-Method is required on every request; its value, trimmed of OWS, must
// equal `method` exactly (values are case-sensitive; names are not).
std::optional<std::string> check_method_header(const HeaderView& headers, std::string_view method);

// Mcp-Name against the body's params.name (tools/call, prompts/get) or
// params.uri (resources/read). Call it only when the body has that value:
// then the header is required, and compared after decode_header_value.
std::optional<std::string> check_name_header(const HeaderView& headers, std::string_view body_value);

// Mcp-Param-{name} for each x-mcp-header parameter of the called tool. An
// argument present and not null requires its header, compared by type:
// string bytes; integers numerically ("42.0" matches 42); booleans "true" or
// "false". An absent or null argument requires the header to be absent.
std::optional<std::string> check_param_headers(const HeaderView& headers, const std::vector<HeaderParam>& params,
                                               const boost::json::value& arguments);

// A header value as the client meant it: OWS (SP, HTAB) trimmed; then a value
// that starts with "=?base64?" and ends with "?=" is strict padded standard
// base64 of UTF-8 between the two, and any other value must be visible ASCII,
// SP and HTAB only and is taken literally. Nothing when the value is invalid.
std::optional<std::string> decode_header_value(std::string_view raw);

// A raw header value for an error message, in single quotes: printable ASCII
// as it is, every other byte as \xNN, cut short. Header bytes need not be
// UTF-8, and the message goes into JSON (which must be) and into logs.
std::string quoted_header_value(std::string_view raw);

}  // namespace airlock::host
