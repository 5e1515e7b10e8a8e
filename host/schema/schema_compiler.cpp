// Compiling a tool's JSON Schema, once, when its plugin registers.
// valijson 1.0 checks the simple keywords; the structure around them,
// regular expressions and multipleOf are ours (schema_walker.cpp says why),
// and so are "type" and "required", which nearly every tool schema has at
// every level: checked in place, they cost a few compares where a valijson
// call costs more than the rest of a small tool call.
//
// compile_graph() walks the schema and builds a graph of Nodes, one per schema
// location. Each Node holds Checks: one keyword, or a group of keywords that
// only mean something together (properties + patternProperties +
// additionalProperties; prefixItems/items/additionalItems; if/then/else).
// Every keyword falls into one of three sets:
//
//   checked     type enum const multipleOf maximum exclusiveMaximum minimum
//               exclusiveMinimum maxLength minLength pattern maxItems minItems
//               uniqueItems maxProperties minProperties required properties
//               patternProperties additionalProperties propertyNames items
//               prefixItems additionalItems contains allOf anyOf oneOf not
//               if/then/else dependencies dependentRequired dependentSchemas
//               $ref (a JSON pointer into this schema only)
//   annotation  title description default examples deprecated readOnly
//               writeOnly $comment format contentEncoding contentMediaType
//               contentSchema $anchor $dynamicAnchor $recursiveAnchor
//               $vocabulary $schema (root) $id (root, or "#name" form),
//               $defs/definitions (walked, so their schemas are refused or
//               accepted like any other), and every keyword no draft defines:
//               MCP tools carry such extensions, and no draft gives them a
//               meaning to check
//   refused     unevaluatedProperties unevaluatedItems minContains maxContains
//               $dynamicRef $recursiveRef divisibleBy disallow extends, a $ref
//               to another document or to an anchor, an $id that starts a new
//               resource below the root, a keyword of another draft than the
//               one $schema declares (prefixItems in draft-07, dependencies or
//               additionalItems in 2020-12), and a regular expression RE2
//               cannot run with ECMA-262's meaning (lookaround, backreferences)
//
// "format" is an annotation, as 2020-12 makes it by default. valijson would
// assert three formats (date, time, date-time) and silently pass the rest;
// half-checking it would be worse than saying plainly that it is not checked.
//
// With no $schema the dialect is MCP's default, 2020-12, and the draft-07
// spellings that 2020-12 has no use for (an array "items", additionalItems,
// dependencies) keep their draft-07 meaning: whatever an author wrote is
// checked. $ref beside other keywords applies both, as in 2019-09 and later;
// only a schema that declares draft-07 gets draft-07's "$ref hides its
// siblings".
#include "schema/schema_compiler.hpp"

#include "schema/ecma_regex.hpp"
#include "schema/schema_graph.hpp"

#include <valijson/schema_parser.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

namespace airlock::host::schema {
namespace {

// Deep enough for any real tool schema; shallow enough that the recursive
// walks cannot exhaust the stack.
constexpr int kMaxDepth = 128;

enum class Dialect { unspecified, draft7, draft2019, draft2020 };

// Thrown inside compile_graph() only, caught at its edge.
struct Refusal {
  std::string message;
};

[[noreturn]] void refuse(std::string message) { throw Refusal{std::move(message)}; }

std::string at(std::string_view path) {
  return path.empty() ? std::string(" (at root)") : fmt::format(" (at {})", path);
}

std::string child(std::string_view base, std::string_view token) {
  std::string out(base);
  out += '/';
  out += escape_token(token);
  return out;
}

const char* dialect_name(Dialect d) {
  switch (d) {
    case Dialect::draft7: return "draft-07";
    case Dialect::draft2019: return "2019-09";
    case Dialect::draft2020: return "2020-12";
    case Dialect::unspecified: break;
  }
  return "2020-12 (the MCP default)";
}

Dialect dialect_of(const json::object& schema) {
  const json::value* s = schema.if_contains("$schema");
  if (!s) return Dialect::unspecified;
  if (!s->is_string()) refuse("'$schema' must be a string (at root)");
  std::string_view uri = s->get_string();
  if (uri.ends_with('#')) uri.remove_suffix(1);
  if (uri.starts_with("https://")) uri.remove_prefix(8);
  else if (uri.starts_with("http://")) uri.remove_prefix(7);
  if (uri == "json-schema.org/draft-07/schema") return Dialect::draft7;
  if (uri == "json-schema.org/draft/2019-09/schema") return Dialect::draft2019;
  if (uri == "json-schema.org/draft/2020-12/schema") return Dialect::draft2020;
  refuse(fmt::format("$schema '{}' is not a dialect airlock supports (draft-07, 2019-09 or 2020-12)",
                     s->get_string().c_str()));
}

bool is_one_of(std::string_view key, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), key) != set.end();
}

bool is_annotation(std::string_view k) {
  return is_one_of(k, {"title", "description", "default", "examples", "deprecated", "readOnly",
                       "writeOnly", "$comment", "format", "contentEncoding", "contentMediaType",
                       "contentSchema", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary"});
}

bool is_uncheckable(std::string_view k) {
  return is_one_of(k, {"unevaluatedProperties", "unevaluatedItems", "minContains", "maxContains",
                       "$dynamicRef", "$recursiveRef", "divisibleBy", "disallow", "extends"});
}

bool is_number_leaf(std::string_view k) {
  return is_one_of(k, {"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"});
}

bool is_count_leaf(std::string_view k) {
  return is_one_of(k, {"maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"});
}

class Compiler {
 public:
  Compiler(const json::object& schema, std::deque<Node>& nodes)
      : root_(schema), nodes_(nodes), dialect_(dialect_of(schema)) {
    if (const json::value* id = schema.if_contains("$id")) {
      if (!id->is_string()) refuse("'$id' must be a string (at root)");
      root_base_ = id->get_string();
      if (auto hash = root_base_.find('#'); hash != std::string::npos) root_base_.resize(hash);
    }
  }

  const Node* run() { return schema(root_, "", 0); }

 private:
  const Node* schema(const json::value& v, const std::string& path, int depth);
  void fill(Node& n, const json::object& o, int depth);
  Check ref_check(const json::value& v, const std::string& path, int depth);
  Check leaf(std::string_view key, const json::value& v, const std::string& path);
  Check members(const json::object& o, const std::string& path, int depth);
  std::optional<Check> items(const json::object& o, const std::string& path, int depth);
  Check dependencies(std::string_view key, const json::value& v, const std::string& path, int depth);
  std::vector<const Node*> schema_array(std::string_view key, const json::value& v,
                                        const std::string& path, int depth);
  std::pair<const json::value*, std::string> resolve(std::string_view ref, const std::string& path);
  void wrong_dialect(std::string_view key, const std::string& path) const {
    refuse(fmt::format("uses keyword '{}', which is not part of {} as declared by $schema{}", key,
                       dialect_name(dialect_), at(path)));
  }
  std::shared_ptr<const re2::RE2> checked_regex(std::string_view key, std::string_view pattern,
                                                const std::string& path);

  json::value root_;
  std::deque<Node>& nodes_;
  Dialect dialect_;
  std::string root_base_;                    // root $id without its fragment
  std::map<std::string, Node*, std::less<>> by_path_;
};

const Node* Compiler::schema(const json::value& v, const std::string& path, int depth) {
  if (auto it = by_path_.find(path); it != by_path_.end()) return it->second;
  if (depth > kMaxDepth) refuse(fmt::format("schema nests deeper than {} levels{}", kMaxDepth, at(path)));
  Node& n = nodes_.emplace_back();
  n.path = path;
  by_path_.emplace(path, &n);  // before filling: a $ref below may lead back here
  if (v.is_bool()) {
    n.constant = v.get_bool();
  } else if (v.is_object()) {
    fill(n, v.get_object(), depth);
  } else {
    refuse(fmt::format("a schema must be an object or a boolean{}", at(path)));
  }
  return &n;
}

void Compiler::fill(Node& n, const json::object& o, int depth) {
  const std::string& p = n.path;
  // Identity first: a refusal should name the $id, not something under it.
  if (const json::value* schema_uri = o.if_contains("$schema"); schema_uri && !p.empty())
    refuse(fmt::format("'$schema' is only supported at the root{}", at(p)));
  if (const json::value* id = o.if_contains("$id")) {
    if (!id->is_string()) refuse(fmt::format("'$id' must be a string{}", at(p)));
    // "#name" (draft-07's anchor form) names a location and changes nothing else.
    if (!p.empty() && !id->get_string().starts_with("#"))
      refuse(fmt::format("$id '{}' below the root starts a new schema resource, which airlock does not "
                         "support{}", id->get_string().c_str(), at(p)));
  }
  for (std::string_view container : {"$defs", "definitions"}) {
    const json::value* defs = o.if_contains(container);
    if (!defs) continue;
    if (!defs->is_object()) refuse(fmt::format("'{}' must be an object{}", container, at(p)));
    for (const auto& kv : defs->get_object())
      schema(kv.value(), child(child(p, container), kv.key()), depth + 1);
  }
  const json::value* ref = o.if_contains("$ref");
  if (ref) n.checks.push_back(ref_check(*ref, p, depth));
  // draft-07: "All other properties in a "$ref" object MUST be ignored."
  if (ref && dialect_ == Dialect::draft7) return;

  bool members_done = false, items_done = false;
  for (const auto& kv : o) {
    const std::string_view k = kv.key();
    const json::value& v = kv.value();
    if (is_one_of(k, {"$ref", "$defs", "definitions", "then", "else", "$schema", "$id"})) continue;
    if (is_annotation(k)) {
      if ((k == "title" || k == "description" || k == "$comment") && !v.is_string())
        refuse(fmt::format("'{}' must be a string{}", k, at(p)));
      continue;
    }
    if (is_uncheckable(k))
      refuse(fmt::format("uses keyword '{}', which airlock cannot check{}", k, at(p)));

    if (k == "properties" || k == "patternProperties" || k == "additionalProperties") {
      if (!members_done) n.checks.push_back(members(o, p, depth));
      members_done = true;
    } else if (k == "prefixItems" || k == "items" || k == "additionalItems") {
      if (!items_done)
        if (auto c = items(o, p, depth)) n.checks.push_back(std::move(*c));
      items_done = true;
    } else if (k == "contains" || k == "propertyNames" || k == "not") {
      Check c;
      c.kind = k == "contains" ? CheckKind::contains
               : k == "not"    ? CheckKind::negation
                               : CheckKind::property_names;
      c.keyword = k;
      c.path = child(p, k);
      c.subs.push_back(schema(v, c.path, depth + 1));
      n.checks.push_back(std::move(c));
    } else if (k == "allOf" || k == "anyOf" || k == "oneOf") {
      Check c;
      c.kind = k == "allOf" ? CheckKind::all_of : k == "anyOf" ? CheckKind::any_of : CheckKind::one_of;
      c.keyword = k;
      c.path = child(p, k);
      c.subs = schema_array(k, v, p, depth);
      n.checks.push_back(std::move(c));
    } else if (k == "if") {
      Check c;
      c.kind = CheckKind::conditional;
      c.keyword = "if";
      c.path = child(p, "if");
      c.subs.push_back(schema(v, c.path, depth + 1));
      for (std::string_view branch : {"then", "else"}) {
        const json::value* b = o.if_contains(branch);
        c.subs.push_back(b ? schema(*b, child(p, branch), depth + 1) : nullptr);
      }
      // "if" alone changes nothing; its schema was still walked for refusals.
      if (c.subs[1] || c.subs[2]) n.checks.push_back(std::move(c));
    } else if (k == "dependencies" || k == "dependentRequired" || k == "dependentSchemas") {
      if (k == "dependencies" && (dialect_ == Dialect::draft2019 || dialect_ == Dialect::draft2020))
        wrong_dialect(k, p);
      if (k != "dependencies" && dialect_ == Dialect::draft7) wrong_dialect(k, p);
      n.checks.push_back(dependencies(k, v, p, depth));
    } else if (k == "type" || k == "enum" || k == "const" || k == "pattern" || k == "uniqueItems" ||
               k == "required" || is_number_leaf(k) || is_count_leaf(k)) {
      n.checks.push_back(leaf(k, v, p));
    }
    // Anything else is no keyword of any draft: an annotation.
  }
  // "type" first: when the type is wrong, that is the failure worth naming.
  std::stable_partition(n.checks.begin(), n.checks.end(),
                        [](const Check& c) { return c.kind == CheckKind::type; });
}

std::shared_ptr<const re2::RE2> Compiler::checked_regex(std::string_view key, std::string_view pattern,
                                                         const std::string& path) {
  std::optional<std::string> translated = ecma_to_re2(pattern);
  if (!translated) refuse(fmt::format("'{}' holds a regular expression airlock cannot check{}", key, at(path)));
  RE2::Options options;
  options.set_log_errors(false);
  options.set_never_capture(true);
  auto re = std::make_shared<const re2::RE2>(*translated, options);
  if (!re->ok()) refuse(fmt::format("'{}' holds a regular expression airlock cannot check{}", key, at(path)));
  return re;
}

Check Compiler::leaf(std::string_view key, const json::value& v, const std::string& p) {
  Check c;
  c.keyword = key;
  c.path = child(p, key);
  c.value = v;
  auto malformed = [&](std::string_view what) {
    refuse(fmt::format("'{}' must be {}{}", key, what, at(p)));
  };
  if (key == "type") {
    if (v.is_string()) {
      c.types = type_bit(v.get_string());
      if (c.types == 0) malformed("a JSON Schema type name");
    } else if (v.is_array() && !v.get_array().empty()) {
      for (const auto& t : v.get_array()) {
        const unsigned b = t.is_string() ? type_bit(t.get_string()) : 0;
        if (b == 0 || (c.types & b)) malformed("a type name or an array of distinct type names");
        c.types |= b;
      }
    } else {
      malformed("a type name or an array of distinct type names");
    }
    c.kind = CheckKind::type;
  } else if (key == "enum") {
    if (!v.is_array()) malformed("an array");
  } else if (key == "pattern") {
    if (!v.is_string()) malformed("a string");
    c.kind = CheckKind::pattern;
    c.regex = checked_regex(key, v.get_string(), p);
  } else if (key == "uniqueItems") {
    if (!v.is_bool()) malformed("a boolean");
  } else if (key == "required") {
    if (!v.is_array()) malformed("an array of strings");
    for (const auto& name : v.get_array())
      if (!name.is_string()) malformed("an array of strings");
    c.kind = CheckKind::required;
  } else if (is_number_leaf(key)) {
    if (!v.is_number()) malformed("a number");
    if (key == "multipleOf") {
      if (v.to_number<double>() <= 0) malformed("a number above 0");
      c.kind = CheckKind::multiple_of;
      c.divisor = v.to_number<double>();
      if (v.is_int64()) c.int_divisor = v.get_int64();
    }
  } else if (is_count_leaf(key)) {
    // valijson wants an int64; a count past it changes nothing.
    constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
    if (v.is_int64() && v.get_int64() >= 0) c.value = v.get_int64();
    else if (v.is_uint64()) c.value = kMax;
    else if (v.is_double() && v.get_double() >= 0 && std::trunc(v.get_double()) == v.get_double())
      c.value = v.get_double() >= 9223372036854775807.0 ? kMax : static_cast<std::int64_t>(v.get_double());
    else malformed("a non-negative integer");
  }
  fix_numbers(c.value);
  return c;
}

std::vector<const Node*> Compiler::schema_array(std::string_view key, const json::value& v,
                                                const std::string& p, int depth) {
  if (!v.is_array() || v.get_array().empty())
    refuse(fmt::format("'{}' must be a non-empty array of schemas{}", key, at(p)));
  std::vector<const Node*> out;
  const std::string base = child(p, key);
  for (std::size_t i = 0; i < v.get_array().size(); ++i)
    out.push_back(schema(v.get_array()[i], child(base, std::to_string(i)), depth + 1));
  return out;
}

Check Compiler::members(const json::object& o, const std::string& p, int depth) {
  Check c;
  c.kind = CheckKind::members;
  for (const auto& kv : o)
    if (is_one_of(kv.key(), {"properties", "patternProperties", "additionalProperties"})) {
      c.keyword = kv.key();
      break;
    }
  c.path = child(p, c.keyword);
  if (const json::value* props = o.if_contains("properties")) {
    if (!props->is_object()) refuse(fmt::format("'properties' must be an object{}", at(p)));
    for (const auto& kv : props->get_object()) {
      Member m;
      m.name = kv.key();
      m.escaped = escape_token(kv.key());
      m.path = child(child(p, "properties"), kv.key());
      m.schema = schema(kv.value(), m.path, depth + 1);
      c.declared.insert(m.name);
      c.members.push_back(std::move(m));
    }
  }
  if (const json::value* pats = o.if_contains("patternProperties")) {
    if (!pats->is_object()) refuse(fmt::format("'patternProperties' must be an object{}", at(p)));
    for (const auto& kv : pats->get_object()) {
      Member m;
      m.name = kv.key();
      m.path = child(child(p, "patternProperties"), kv.key());
      m.regex = checked_regex("patternProperties", kv.key(), p);
      m.schema = schema(kv.value(), m.path, depth + 1);
      c.members.push_back(std::move(m));
    }
  }
  if (const json::value* extra = o.if_contains("additionalProperties")) {
    c.rest = schema(*extra, child(p, "additionalProperties"), depth + 1);
    c.rest_keyword = "additionalProperties";
  }
  return c;
}

std::optional<Check> Compiler::items(const json::object& o, const std::string& p, int depth) {
  const json::value* prefix = o.if_contains("prefixItems");
  const json::value* items = o.if_contains("items");
  const json::value* additional = o.if_contains("additionalItems");
  const bool tuple_items = items && items->is_array();
  if (prefix && (dialect_ == Dialect::draft7 || dialect_ == Dialect::draft2019)) wrong_dialect("prefixItems", p);
  if (additional && dialect_ == Dialect::draft2020) wrong_dialect("additionalItems", p);
  if (tuple_items && dialect_ == Dialect::draft2020)
    refuse(fmt::format("'items' must be a schema in 2020-12; a tuple is 'prefixItems'{}", at(p)));
  if (prefix && tuple_items) refuse(fmt::format("'prefixItems' and an array 'items' conflict{}", at(p)));
  if (prefix && additional)
    refuse(fmt::format("'additionalItems' beside 'prefixItems' mixes draft-07 and 2020-12{}", at(p)));

  Check c;
  c.kind = CheckKind::items;
  if (prefix) {
    c.keyword = c.prefix_keyword = "prefixItems";
    c.subs = schema_array("prefixItems", *prefix, p, depth);
    if (items) {
      c.rest = schema(*items, child(p, "items"), depth + 1);
      c.rest_keyword = "items";
    }
  } else if (tuple_items) {
    c.keyword = c.prefix_keyword = "items";
    c.subs = schema_array("items", *items, p, depth);
    if (additional) {
      c.rest = schema(*additional, child(p, "additionalItems"), depth + 1);
      c.rest_keyword = "additionalItems";
    }
  } else if (items) {
    c.keyword = c.rest_keyword = "items";
    c.rest = schema(*items, child(p, "items"), depth + 1);
  } else {
    return std::nullopt;  // additionalItems without an array "items" applies to nothing
  }
  c.path = child(p, c.keyword);
  return c;
}

Check Compiler::dependencies(std::string_view key, const json::value& v, const std::string& p, int depth) {
  if (!v.is_object()) refuse(fmt::format("'{}' must be an object{}", key, at(p)));
  Check c;
  c.kind = CheckKind::dependencies;
  c.keyword = key;
  c.path = child(p, key);
  for (const auto& kv : v.get_object()) {
    Member m;
    m.name = kv.key();
    m.path = child(c.path, kv.key());
    const bool list_allowed = key != "dependentSchemas";
    const bool schema_allowed = key != "dependentRequired";
    if (kv.value().is_array() && list_allowed) {
      for (const auto& name : kv.value().get_array()) {
        if (!name.is_string()) refuse(fmt::format("'{}' lists must hold strings{}", key, at(p)));
        m.names.emplace_back(name.get_string());
      }
    } else if ((kv.value().is_object() || kv.value().is_bool()) && schema_allowed) {
      m.schema = schema(kv.value(), m.path, depth + 1);
    } else {
      refuse(fmt::format("'{}' entries must be {}{}", key,
                         !schema_allowed ? "arrays of strings"
                         : list_allowed  ? "arrays of strings or schemas"
                                         : "schemas",
                         at(p)));
    }
    c.members.push_back(std::move(m));
  }
  return c;
}

Check Compiler::ref_check(const json::value& v, const std::string& p, int depth) {
  if (!v.is_string()) refuse(fmt::format("'$ref' must be a string{}", at(p)));
  auto [target, pointer] = resolve(v.get_string(), p);
  Check c;
  c.kind = CheckKind::ref;
  c.keyword = "$ref";
  c.path = child(p, "$ref");
  c.subs.push_back(schema(*target, pointer, depth + 1));
  return c;
}

// Resolves a $ref to a location in this schema: "#", "#/json/pointer", or
// either after the root's own $id. Returns the target and its canonical pointer.
std::pair<const json::value*, std::string> Compiler::resolve(std::string_view ref, const std::string& p) {
  std::string_view r = ref;
  if (!root_base_.empty() && r.starts_with(root_base_)) r.remove_prefix(root_base_.size());
  if (r.empty()) r = "#";
  if (r.front() != '#')
    refuse(fmt::format("$ref '{}' points outside this schema, and airlock never fetches schemas{}", ref, at(p)));
  // The fragment is URI-encoded: "%25" is "%", "%22" is '"'.
  std::string fragment;
  for (std::size_t i = 1; i < r.size(); ++i) {
    if (r[i] == '%' && i + 2 < r.size() && std::isxdigit(static_cast<unsigned char>(r[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(r[i + 2]))) {
      fragment += static_cast<char>(std::stoi(std::string(r.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      fragment += r[i];
    }
  }
  if (fragment.empty()) return {&root_, ""};
  if (fragment.front() != '/')
    refuse(fmt::format("$ref '{}' names an anchor; airlock resolves only JSON pointers such as "
                       "'#/$defs/name'{}", ref, at(p)));
  const json::value* cur = &root_;
  std::string canonical;
  std::size_t pos = 1;
  while (true) {
    const std::size_t slash = fragment.find('/', pos);
    std::string token = fragment.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    std::string name;
    for (std::size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
        name += token[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        name += token[i];
      }
    }
    const json::value* next = nullptr;
    if (cur->is_object()) {
      next = cur->get_object().if_contains(name);
    } else if (cur->is_array() && !name.empty() && name.size() < 10 &&
               std::all_of(name.begin(), name.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) &&
               (name == "0" || name.front() != '0')) {
      const std::size_t index = std::stoul(name);
      if (index < cur->get_array().size()) next = &cur->get_array()[index];
    }
    if (!next) refuse(fmt::format("$ref '{}' points to nothing in this schema{}", ref, at(p)));
    cur = next;
    canonical = child(canonical, name);
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  return {cur, canonical};
}

// A loop through $ref and the applicators that stay on the same instance
// (allOf, not, if, dependentSchemas, ...) never ends, in valijson or here.
void refuse_in_place_cycles(const std::deque<Node>& nodes) {
  enum class Mark { none, open, done };
  std::map<const Node*, Mark> marks;
  std::function<void(const Node*)> visit = [&](const Node* n) {
    Mark& m = marks[n];
    if (m == Mark::done) return;
    if (m == Mark::open)
      refuse(fmt::format("$ref loops back to {} without descending into the instance",
                         n->path.empty() ? std::string("the root") : n->path));
    m = Mark::open;
    for (const Check& c : n->checks) {
      switch (c.kind) {
        case CheckKind::all_of:
        case CheckKind::any_of:
        case CheckKind::one_of:
        case CheckKind::negation:
        case CheckKind::conditional:
        case CheckKind::ref:
          for (const Node* s : c.subs)
            if (s) visit(s);
          break;
        case CheckKind::dependencies:
          for (const Member& mem : c.members)
            if (mem.schema) visit(mem.schema);
          break;
        default: break;
      }
    }
    marks[n] = Mark::done;
  };
  for (const Node& n : nodes) visit(&n);
}

std::unique_ptr<valijson::Schema> valijson_compile(const json::value& document) {
  auto schema = std::make_unique<valijson::Schema>();
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  parser.populateSchema(Adapter(document), *schema);
  return schema;
}

// Compiles each leaf alone, and each Node's leaves together for the walk's
// first question ("do all of them hold?"), which is one valijson call.
void compile_leaves(std::deque<Node>& nodes) {
  for (Node& n : nodes) {
    json::object bundle;
    for (Check& c : n.checks) {
      if (c.kind != CheckKind::leaf) continue;
      c.alone = valijson_compile(json::object{{c.keyword, c.value}});
      bundle[c.keyword] = c.value;
    }
    if (bundle.size() > 1) n.leaves = valijson_compile(bundle);
  }
}

}  // namespace

Result<std::unique_ptr<const SchemaGraph>> compile_graph(const json::object& schema) {
  auto graph = std::make_unique<SchemaGraph>();
  try {
    Compiler compiler(schema, graph->nodes);
    graph->root = compiler.run();
    refuse_in_place_cycles(graph->nodes);
    compile_leaves(graph->nodes);
  } catch (const Refusal& r) {
    return Error{r.message};
  } catch (const std::exception& e) {
    // valijson refusing a leaf the checks above let through.
    return Error{fmt::format("schema cannot be compiled: {}", e.what())};
  }
  return std::unique_ptr<const SchemaGraph>(std::move(graph));
}

}  // namespace airlock::host::schema
