#include "schema/schema_graph.hpp"

#include <algorithm>
#include <cmath>

namespace airlock::host::schema {
namespace {

bool integral_in_int64(double d) {
  return std::trunc(d) == d && d >= -9223372036854775808.0 && d < 9223372036854775808.0;
}

}  // namespace

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
