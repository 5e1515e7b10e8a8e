#include "util/json_canonical.hpp"

#include "util/json_text.hpp"

#include <boost/json/string.hpp>

#include <algorithm>
#include <vector>

namespace airlock::host {
namespace json = boost::json;

namespace {

void append_canonical(std::string& out, const json::value& value) {
  if (const auto* object = value.if_object()) {
    std::vector<const json::key_value_pair*> members;
    members.reserve(object->size());
    for (const auto& member : *object) members.push_back(&member);
    std::sort(members.begin(), members.end(),
              [](const auto* a, const auto* b) { return a->key() < b->key(); });
    out.push_back('{');
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i) out.push_back(',');
      append_json(out, json::string(members[i]->key()));
      out.push_back(':');
      append_canonical(out, members[i]->value());
    }
    out.push_back('}');
  } else if (const auto* array = value.if_array()) {
    out.push_back('[');
    for (std::size_t i = 0; i < array->size(); ++i) {
      if (i) out.push_back(',');
      append_canonical(out, (*array)[i]);
    }
    out.push_back(']');
  } else {
    append_json(out, value);
  }
}

}  // namespace

std::string canonical_json(const json::value& value) {
  std::string out;
  append_canonical(out, value);
  return out;
}

}  // namespace airlock::host
