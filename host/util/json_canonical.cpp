#include "util/json_canonical.hpp"

#include "util/json_writer.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace airlock::host {
namespace json = boost::json;

namespace {

void append_canonical(std::string& out, const json::value& value);

void append_canonical(std::string& out, const json::object& object) {
  // The members in key order. Most objects have a few, so their order is
  // kept on the stack; a larger one takes a vector.
  constexpr std::size_t kOnStack = 16;
  std::array<const json::key_value_pair*, kOnStack> few;
  std::vector<const json::key_value_pair*> many;
  const json::key_value_pair** members = few.data();
  if (object.size() > kOnStack) {
    many.resize(object.size());
    members = many.data();
  }
  std::size_t count = 0;
  for (const auto& member : object) members[count++] = &member;
  std::sort(members, members + count, [](const auto* a, const auto* b) { return a->key() < b->key(); });
  out.push_back('{');
  for (std::size_t i = 0; i < count; ++i) {
    if (i) out.push_back(',');
    append_json_string(out, members[i]->key());
    out.push_back(':');
    append_canonical(out, members[i]->value());
  }
  out.push_back('}');
}

void append_canonical(std::string& out, const json::value& value) {
  if (const auto* object = value.if_object()) {
    append_canonical(out, *object);
  } else if (const auto* array = value.if_array()) {
    out.push_back('[');
    for (std::size_t i = 0; i < array->size(); ++i) {
      if (i) out.push_back(',');
      append_canonical(out, (*array)[i]);
    }
    out.push_back(']');
  } else if (const auto* string = value.if_string()) {
    append_json_string(out, *string);  // escaped as Boost.JSON escapes, without its serializer's set-up
  } else {
    append_json(out, value);
  }
}

}  // namespace

bool serializes_canonically(const json::value& value) noexcept {
  if (const auto* object = value.if_object()) {
    std::string_view previous;
    bool first = true;
    for (const auto& member : *object) {
      if (!first && !(previous < std::string_view(member.key()))) return false;
      if (!serializes_canonically(member.value())) return false;
      previous = member.key();
      first = false;
    }
    return true;
  }
  if (const auto* array = value.if_array()) {
    for (const auto& item : *array)
      if (!serializes_canonically(item)) return false;
  }
  return true;
}

std::string canonical_json(const json::object& object) {
  std::string out;
  append_canonical(out, object);
  return out;
}

std::string canonical_json(const json::value& value) {
  std::string out;
  append_canonical(out, value);
  return out;
}

}  // namespace airlock::host
