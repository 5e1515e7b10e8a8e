#include "mcp/request_headers.hpp"

#include "util/base64.hpp"
#include "util/utf8.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <variant>

namespace airlock::host {
namespace {

constexpr std::string_view kBase64Prefix = "=?base64?";
constexpr std::string_view kBase64Suffix = "?=";
// Longer than any integer a JSON double can hold (about 309 digits): a header
// naming a bigger one cannot match any argument, so it need not be spelled out.
constexpr std::size_t kMaxIntegerDigits = 400;
constexpr std::size_t kMaxQuoted = 120;

// RFC 9110 §5.6.3 OWS.
std::string_view trim_ows(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// A value for an error message: printable ASCII as is, other bytes as \xNN
// (header bytes need not be UTF-8, and the message goes into JSON and logs),
// cut short so a long header cannot bloat the error.
std::string quoted(std::string_view text) {
  std::string out = "'";
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == kMaxQuoted) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f)
      out.push_back(text[i]);
    else
      out += fmt::format("\\x{:02x}", byte);
  }
  out.push_back('\'');
  return out;
}

// decode_header_value with the reason it refused, for the error message.
std::variant<std::string, std::string_view> decode_or_reason(std::string_view raw) {
  const std::string_view value = trim_ows(raw);
  if (value.size() >= kBase64Prefix.size() + kBase64Suffix.size() && value.starts_with(kBase64Prefix) &&
      value.ends_with(kBase64Suffix)) {
    auto bytes = from_base64(value.substr(kBase64Prefix.size(), value.size() - kBase64Prefix.size() - kBase64Suffix.size()));
    if (!bytes) return std::string_view("is not padded standard base64 between =?base64? and ?=");
    if (!valid_utf8(*bytes)) return std::string_view("decodes to bytes that are not UTF-8");
    return std::move(*bytes);
  }
  for (const char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (!(byte == '\t' || (byte >= 0x20 && byte < 0x7f)))
      return std::string_view(
          "holds a byte other than visible ASCII, space or tab (such values are sent as =?base64?...?=)");
  }
  return std::string(value);
}

// The one line of `name`, or the message saying why there is not exactly one.
// `when_missing` words the end of that message; called only then, since
// nearly every request has the line (formatting it cost a tenth of a
// 2026-07-28 request's own handling).
template <class WhenMissing>
std::variant<std::string_view, std::string> single_line(const HeaderView& headers, std::string_view name,
                                                        WhenMissing&& when_missing) {
  const std::size_t lines = headers.count(name);
  if (lines > 1) return fmt::format("{} header is sent {} times; it must be sent once", name, lines);
  const auto value = lines == 1 ? headers.get(name) : std::nullopt;
  if (!value) return fmt::format("{} header is missing{}", name, when_missing());
  return *value;
}

// An integer as sign and decimal digits (no leading zeros; zero is "0" and
// never negative), so any two spellings of one value compare equal.
struct Integer {
  bool negative = false;
  std::string digits;
  bool operator==(const Integer&) const = default;
};

std::optional<Integer> integer_of(const boost::json::value& v) {
  if (v.is_int64()) {
    const std::int64_t i = v.get_int64();
    const std::uint64_t magnitude = i < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
    return Integer{i < 0, std::to_string(magnitude)};
  }
  if (v.is_uint64()) return Integer{false, std::to_string(v.get_uint64())};
  if (v.is_double()) {
    const double d = v.get_double();
    if (!std::isfinite(d) || std::trunc(d) != d) return std::nullopt;
    // Integral doubles print exactly with no fraction digits.
    std::string digits = fmt::format("{:.0f}", std::fabs(d));
    return Integer{d < 0 && digits != "0", std::move(digits)};
  }
  return std::nullopt;
}

// A number as JSON spells it (a leading '+' and leading zeros allowed too),
// when its value is an integer: "42", "42.0", "4.2e1" and "-0" all qualify.
std::optional<Integer> integer_of(std::string_view text) {
  std::size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  std::string mantissa;
  std::int64_t exponent = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') mantissa.push_back(text[i++]);
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      mantissa.push_back(text[i++]);
      --exponent;
    }
  }
  if (mantissa.empty()) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool exponent_negative = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    if (i == text.size()) return std::nullopt;
    std::int64_t written = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      // Saturate: anything past a million digits is out of reach either way.
      written = std::min<std::int64_t>(written * 10 + (text[i++] - '0'), 1'000'000);
    }
    exponent += exponent_negative ? -written : written;
  }
  if (i != text.size()) return std::nullopt;

  const std::size_t first = mantissa.find_first_not_of('0');
  if (first == std::string::npos) return Integer{false, "0"};
  mantissa.erase(0, first);
  while (mantissa.back() == '0') {
    mantissa.pop_back();
    ++exponent;
  }
  if (exponent < 0) return std::nullopt;
  if (mantissa.size() + static_cast<std::size_t>(exponent) > kMaxIntegerDigits) return std::nullopt;
  mantissa.append(static_cast<std::size_t>(exponent), '0');
  return Integer{negative, std::move(mantissa)};
}

// The argument at `path`, or null when it or an object on the way is absent.
const boost::json::value* argument_at(const boost::json::value& arguments, const std::vector<std::string>& path) {
  const boost::json::value* at = &arguments;
  for (const auto& name : path) {
    if (!at->is_object()) return nullptr;
    at = at->get_object().if_contains(name);
    if (!at) return nullptr;
  }
  return at;
}

std::string dotted(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& name : path) {
    if (!out.empty()) out.push_back('.');
    out += name;
  }
  return out;
}

// An argument as a person would write it (boost::json spells 42.5 "4.25E1").
std::string shown(const boost::json::value& argument) {
  if (argument.is_string()) return std::string(argument.get_string());
  if (argument.is_double()) return fmt::format("{}", argument.get_double());
  return boost::json::serialize(argument);
}

std::string_view type_name(HeaderParam::Type type) {
  switch (type) {
    case HeaderParam::Type::string: return "a string";
    case HeaderParam::Type::integer: return "an integer";
    case HeaderParam::Type::boolean: return "a boolean";
  }
  return "a value";
}

// One parameter's header against its present, non-null argument.
std::optional<std::string> check_param(const std::string& header, const HeaderParam& param, std::string_view raw,
                                       const boost::json::value& argument) {
  const std::string argument_name = quoted(dotted(param.path));
  auto decoded = decode_or_reason(raw);
  if (auto* reason = std::get_if<std::string_view>(&decoded))
    return fmt::format("{} header {} {}", header, quoted(trim_ows(raw)), *reason);
  const std::string& value = std::get<std::string>(decoded);
  const auto not_of_type = [&] {
    return fmt::format("{} header cannot match argument {}: it is {}, not {}", header, argument_name,
                       quoted(shown(argument)), type_name(param.type));
  };
  const auto mismatch = [&] {
    return fmt::format("{} header {} does not match argument {}, which is {}", header, quoted(value), argument_name,
                       quoted(shown(argument)));
  };
  switch (param.type) {
    case HeaderParam::Type::string:
      if (!argument.is_string()) return not_of_type();
      if (value != std::string_view(argument.get_string())) return mismatch();
      return std::nullopt;
    case HeaderParam::Type::integer: {
      const auto body = integer_of(argument);
      if (!body) return not_of_type();
      const auto sent = integer_of(std::string_view(value));
      if (!sent) return fmt::format("{} header {} is not an integer", header, quoted(value));
      if (*sent != *body) return mismatch();
      return std::nullopt;
    }
    case HeaderParam::Type::boolean:
      if (!argument.is_bool()) return not_of_type();
      if (value != (argument.get_bool() ? "true" : "false")) return mismatch();
      return std::nullopt;
  }
  return mismatch();
}

}  // namespace

std::optional<std::string> check_method_header(const HeaderView& headers, std::string_view method) {
  constexpr std::string_view kName = "Mcp-Method";
  auto line = single_line(headers, kName, [&] { return fmt::format(" (the body's method is {})", quoted(method)); });
  if (auto* error = std::get_if<std::string>(&line)) return std::move(*error);
  const std::string_view value = trim_ows(std::get<std::string_view>(line));
  if (value != method)
    return fmt::format("{} header {} does not match the body's method {}", kName, quoted(value), quoted(method));
  return std::nullopt;
}

std::optional<std::string> check_name_header(const HeaderView& headers, std::string_view body_value) {
  constexpr std::string_view kName = "Mcp-Name";
  auto line = single_line(headers, kName, [&] { return fmt::format(" (the body names {})", quoted(body_value)); });
  if (auto* error = std::get_if<std::string>(&line)) return std::move(*error);
  const std::string_view raw = std::get<std::string_view>(line);
  auto decoded = decode_or_reason(raw);
  if (auto* reason = std::get_if<std::string_view>(&decoded))
    return fmt::format("{} header {} {}", kName, quoted(trim_ows(raw)), *reason);
  const std::string& value = std::get<std::string>(decoded);
  if (value != body_value)
    return fmt::format("{} header {} does not match the body's {}", kName, quoted(value), quoted(body_value));
  return std::nullopt;
}

std::optional<std::string> check_param_headers(const HeaderView& headers, const std::vector<HeaderParam>& params,
                                               const boost::json::value& arguments) {
  for (const auto& param : params) {
    const std::string header = "Mcp-Param-" + param.name;
    const boost::json::value* argument = argument_at(arguments, param.path);
    if (!argument || argument->is_null()) {
      if (const std::size_t lines = headers.count(header); lines > 0)
        return fmt::format("{} header is sent but argument {} is absent or null", header, quoted(dotted(param.path)));
      continue;
    }
    auto line = single_line(headers, header,
                            [&] { return fmt::format(" but argument {} is in the body", quoted(dotted(param.path))); });
    if (auto* error = std::get_if<std::string>(&line)) return std::move(*error);
    if (auto error = check_param(header, param, std::get<std::string_view>(line), *argument)) return error;
  }
  return std::nullopt;
}

std::string quoted_header_value(std::string_view raw) { return quoted(raw); }

std::optional<std::string> decode_header_value(std::string_view raw) {
  auto decoded = decode_or_reason(raw);
  if (auto* value = std::get_if<std::string>(&decoded)) return std::move(*value);
  return std::nullopt;
}

}  // namespace airlock::host
