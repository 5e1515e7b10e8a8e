#include "pins/tool_definition.hpp"

#include "util/json_canonical.hpp"
#include "util/sha256.hpp"

namespace airlock::host {
namespace json = boost::json;

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

std::string definition_digest(const json::object& definition) {
  return sha256_hex(sha256(canonical_json(definition)));
}

}  // namespace airlock::host
