#include "schema/schema_graph.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace airlock::host::schema {
namespace {

bool integral_in_int64(double d) {
  return std::trunc(d) == d && d >= -9223372036854775808.0 && d < 9223372036854775808.0;
}

constexpr std::string_view kTypeNames[] = {"null", "boolean", "object", "array", "number", "string", "integer"};
constexpr unsigned bit(std::string_view name) {
  for (unsigned i = 0; i < std::size(kTypeNames); ++i)
    if (kTypeNames[i] == name) return 1u << i;
  return 0;
}

}  // namespace

unsigned type_bit(std::string_view name) { return bit(name); }

bool has_type(const json::value& v, unsigned types) {
  switch (v.kind()) {
    case json::kind::null: return types & bit("null");
    case json::kind::bool_: return types & bit("boolean");
    case json::kind::object: return types & bit("object");
    case json::kind::array: return types & bit("array");
    case json::kind::string: return types & bit("string");
    case json::kind::int64:
    case json::kind::uint64: return types & (bit("number") | bit("integer"));
    case json::kind::double_: {
      if (types & bit("number")) return true;
      const double d = v.get_double();
      return (types & bit("integer")) && std::isfinite(d) && std::trunc(d) == d;
    }
  }
  return false;
}

std::string escape_token(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    if (ch == '~') out += "~0";
    else if (ch == '/') out += "~1";
    else out += ch;
  }
  return out;
}

bool has_awkward_number(const json::value& v) {
  switch (v.kind()) {
    case json::kind::uint64: return true;
    case json::kind::double_: return integral_in_int64(v.get_double());
    case json::kind::array:
      return std::any_of(v.get_array().begin(), v.get_array().end(), has_awkward_number);
    case json::kind::object:
      for (const auto& kv : v.get_object())
        if (has_awkward_number(kv.value())) return true;
      return false;
    default: return false;
  }
}

void fix_numbers(json::value& v) {
  switch (v.kind()) {
    case json::kind::uint64: v = static_cast<double>(v.get_uint64()); break;
    case json::kind::double_:
      if (integral_in_int64(v.get_double())) v = static_cast<std::int64_t>(v.get_double());
      break;
    case json::kind::array:
      for (auto& e : v.get_array()) fix_numbers(e);
      break;
    case json::kind::object:
      for (auto& kv : v.get_object()) fix_numbers(kv.value());
      break;
    default: break;
  }
}

}  // namespace airlock::host::schema
