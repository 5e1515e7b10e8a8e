#include "pins/tool_definition.hpp"

#include "util/json_text.hpp"
#include "util/sha256.hpp"

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

json::object tool_definition(const Tool& tool) {
  json::object definition;
  definition["name"] = tool.name;
  if (!tool.title.empty()) definition["title"] = tool.title;
  definition["description"] = tool.description;
  definition["inputSchema"] = tool.input_schema;
  if (tool.output_schema) definition["outputSchema"] = *tool.output_schema;
  if (tool.annotations) definition["annotations"] = *tool.annotations;
  return definition;
}

std::string canonical_json(const json::value& value) {
  std::string out;
  append_canonical(out, value);
  return out;
}

std::string definition_digest(const json::object& definition) {
  return sha256_hex(sha256(canonical_json(definition)));
}

}  // namespace airlock::host
