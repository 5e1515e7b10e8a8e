#include "pipeline/tool_result_shape.hpp"

#include <boost/json/array.hpp>
#include <fmt/format.h>

#include <array>

namespace airlock::host {
namespace {

std::optional<std::string> content_block_error(const boost::json::value& v, std::size_t i) {
  const auto* block = v.if_object();
  if (!block) return fmt::format("content[{}] is not an object", i);
  const auto* type = block->if_contains("type");
  if (!type || !type->is_string()) return fmt::format("content[{}].type is not a string", i);
  const auto& t = type->get_string();
  auto needs_string = [&](const char* field) -> std::optional<std::string> {
    const auto* f = block->if_contains(field);
    if (!f || !f->is_string()) return fmt::format("content[{}].{} is not a string", i, field);
    return std::nullopt;
  };
  if (t == "text") return needs_string("text");
  if (t == "image" || t == "audio") {
    if (auto e = needs_string("data")) return e;
    return needs_string("mimeType");
  }
  if (t == "resource_link") {
    if (auto e = needs_string("uri")) return e;
    return needs_string("name");
  }
  if (t == "resource") {
    const auto* r = block->if_contains("resource");
    if (!r || !r->is_object()) return fmt::format("content[{}].resource is not an object", i);
    const auto* uri = r->as_object().if_contains("uri");
    if (!uri || !uri->is_string()) return fmt::format("content[{}].resource.uri is not a string", i);
    return std::nullopt;
  }
  return fmt::format("content[{}].type is not a known content type", i);
}

}  // namespace

std::optional<std::string> tool_result_shape_error(const boost::json::object& result) {
  const auto* content = result.if_contains("content");
  if (!content) return "content is missing";
  if (!content->is_array()) return "content is not an array";
  const auto& blocks = content->get_array();
  for (std::size_t i = 0; i < blocks.size(); ++i)
    if (auto e = content_block_error(blocks[i], i)) return e;
  if (const auto* s = result.if_contains("structuredContent"); s && !s->is_object())
    return "structuredContent is not an object";
  if (const auto* e = result.if_contains("isError"); e && !e->is_bool()) return "isError is not a boolean";
  if (const auto* m = result.if_contains("_meta"); m && !m->is_object()) return "_meta is not an object";
  return std::nullopt;
}

}  // namespace airlock::host
