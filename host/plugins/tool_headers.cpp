#include "plugins/tool_headers.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <fmt/format.h>

#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace airlock::host {
namespace {

constexpr std::string_view kAnnotation = "x-mcp-header";
// Deeper than any schema the host parses (plugin JSON is parsed with a
// smaller depth limit); only guards the recursion against a hand-built object.
constexpr std::size_t kMaxDepth = 256;

// Keywords whose members are schemas by name: a member called "const" or
// "x-mcp-header" there is a schema, not a keyword.
bool holds_named_schemas(std::string_view keyword) {
  return keyword == "properties" || keyword == "patternProperties" || keyword == "$defs" ||
         keyword == "definitions" || keyword == "dependentSchemas";
}

// Keywords whose values are instances, not schemas: an "x-mcp-header" key
// inside them is data the schema compares against, not an annotation.
bool holds_instances(std::string_view keyword) {
  return keyword == "const" || keyword == "enum" || keyword == "default" || keyword == "examples";
}

// RFC 9110 §5.6.2 tchar.
bool is_tchar(char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// A value for an error message: printable ASCII as is, other bytes as \xNN,
// so a hostile annotation cannot put control bytes or bad UTF-8 in a log line.
std::string quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f)
      out.push_back(c);
    else
      out += fmt::format("\\x{:02x}", byte);
  }
  out.push_back('\'');
  return out;
}

std::string_view kind_of(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_: return "a number";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::array: return "an array";
    case boost::json::kind::object: return "an object";
  }
  return "a value";
}

// One JSON pointer reference token (RFC 6901: '~' and '/' escaped).
void append_token(std::string& pointer, std::string_view name) {
  pointer.push_back('/');
  for (const char c : name) {
    if (c == '~')
      pointer += "~0";
    else if (c == '/')
      pointer += "~1";
    else
      pointer.push_back(c);
  }
}

class AnnotationWalk {
 public:
  std::optional<Error> root(const boost::json::object& schema) {
    const std::vector<std::string> no_path;
    return schema_object(schema, &no_path, /*is_root=*/true, {}, 0);
  }

  std::vector<HeaderParam> take() { return std::move(found_); }

 private:
  // `path` is set while the schema is reached from the root through
  // "properties" alone; otherwise `left_by` names the keyword that left that road.
  std::optional<Error> schema_object(const boost::json::object& schema, const std::vector<std::string>* path,
                                     bool is_root, std::string_view left_by, std::size_t depth) {
    if (depth > kMaxDepth) return Error{fmt::format("{}: the schema nests deeper than {} levels", pointer_, kMaxDepth)};
    for (const auto& [key, value] : schema) {
      const std::size_t mark = pointer_.size();
      append_token(pointer_, key);
      std::optional<Error> error;
      if (key == kAnnotation) {
        error = annotation(schema, value, path, is_root, left_by);
      } else if (holds_instances(key)) {
        // data, not schema
      } else if (key == "properties" && path && value.is_object()) {
        for (const auto& [name, member] : value.get_object()) {
          const std::size_t member_mark = pointer_.size();
          append_token(pointer_, name);
          std::vector<std::string> member_path = *path;
          member_path.emplace_back(name);
          error = member.is_object() ? schema_object(member.get_object(), &member_path, false, {}, depth + 1)
                                     : any_value(member, key, depth + 1);
          pointer_.resize(member_mark);
          if (error) break;
        }
      } else if (holds_named_schemas(key) && value.is_object()) {
        for (const auto& [name, member] : value.get_object()) {
          const std::size_t member_mark = pointer_.size();
          append_token(pointer_, name);
          error = any_value(member, left_by.empty() ? std::string_view(key) : left_by, depth + 1);
          pointer_.resize(member_mark);
          if (error) break;
        }
      } else {
        error = any_value(value, left_by.empty() ? std::string_view(key) : left_by, depth + 1);
      }
      pointer_.resize(mark);
      if (error) return error;
    }
    return std::nullopt;
  }

  // A value off the "properties" road: any annotation found in it is misplaced.
  std::optional<Error> any_value(const boost::json::value& value, std::string_view left_by, std::size_t depth) {
    if (value.is_object()) return schema_object(value.get_object(), nullptr, false, left_by, depth);
    if (!value.is_array()) return std::nullopt;
    if (depth > kMaxDepth) return Error{fmt::format("{}: the schema nests deeper than {} levels", pointer_, kMaxDepth)};
    std::size_t index = 0;
    for (const auto& element : value.get_array()) {
      const std::size_t mark = pointer_.size();
      pointer_ += fmt::format("/{}", index++);
      auto error = any_value(element, left_by, depth + 1);
      pointer_.resize(mark);
      if (error) return error;
    }
    return std::nullopt;
  }

  std::optional<Error> annotation(const boost::json::object& schema, const boost::json::value& value,
                                  const std::vector<std::string>* path, bool is_root, std::string_view left_by) {
    if (is_root)
      return Error{fmt::format("{}: x-mcp-header belongs on a property schema, not on the schema root", pointer_)};
    if (!path)
      return Error{fmt::format(
          "{}: x-mcp-header is only allowed on a property reached from the root through \"properties\" alone, "
          "not under \"{}\"",
          pointer_, left_by)};
    if (!value.is_string()) return Error{fmt::format("{}: x-mcp-header must be a string, not {}", pointer_, kind_of(value))};
    const std::string_view name = value.get_string();
    if (name.empty()) return Error{fmt::format("{}: x-mcp-header is empty", pointer_)};
    for (const char c : name)
      if (!is_tchar(c))
        return Error{fmt::format(
            "{}: x-mcp-header {} is not an HTTP token (RFC 9110: letters, digits and !#$%&'*+-.^_`|~ only)",
            pointer_, quoted(name))};

    const auto* type = schema.if_contains("type");
    std::optional<HeaderParam::Type> kind;
    if (type && type->is_string()) {
      const std::string_view t = type->get_string();
      if (t == "string") kind = HeaderParam::Type::string;
      if (t == "integer") kind = HeaderParam::Type::integer;
      if (t == "boolean") kind = HeaderParam::Type::boolean;
    }
    if (!kind)
      return Error{fmt::format(
          "{}: x-mcp-header needs the property's \"type\" to be exactly \"string\", \"integer\" or \"boolean\", not {}",
          pointer_, type ? boost::json::serialize(*type) : std::string("missing"))};

    const std::string property = pointer_.substr(0, pointer_.size() - kAnnotation.size() - 1);
    for (std::size_t i = 0; i < found_.size(); ++i)
      if (equal_ignoring_case(found_[i].name, name))
        return Error{fmt::format("{}: x-mcp-header {} repeats {} of {} (header names ignore case)", pointer_,
                                 quoted(name), quoted(found_[i].name), found_at_[i])};
    found_.push_back(HeaderParam{std::string(name), *path, *kind});
    found_at_.push_back(property);
    return std::nullopt;
  }

  std::string pointer_;
  std::vector<HeaderParam> found_;
  std::vector<std::string> found_at_;  // the property's pointer, for the duplicate message
};

}  // namespace

Result<std::vector<HeaderParam>> header_params(const boost::json::object& input_schema) {
  AnnotationWalk walk;
  if (auto error = walk.root(input_schema)) return std::move(*error);
  return walk.take();
}

}  // namespace airlock::host
