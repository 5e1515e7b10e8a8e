// This file compiles a tool's JSON Schema once and validates instances
// against it. valijson 1.0 checks the simple keywords; the structure around
// them, regular expressions and multipleOf are ours, for the reasons below.
//
// compile() walks the schema and builds a graph of Nodes, one per schema
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
//
// validate() walks the graph with the instance. At each Node, valijson checks
// the simple keywords together (one compiled bundle); only when the bundle
// fails does the walk ask each keyword alone, to name it. The walk recurses
// through applicators itself because valijson cannot be used whole:
//   - its patternProperties builds a std::regex on every call, and std::regex
//     recurses once per input character: a long enough argument string
//     overflows the stack and kills the host, and nested quantifiers take
//     exponential time. Patterns here run on RE2, which is linear-time and
//     bounded, after translating ECMA-262's \s, \S, ".", \uXXXX and \cX;
//   - its multipleOf truncates 10.5 to 10 before an integer divisor and
//     checks numeric strings; its error text quotes instance values, and its
//     results name neither the keyword nor where it sits in the schema.
// json_schema_suite_test runs the official test suite through all of it.
//
// Instance paths name a property only when the schema declares that name;
// any other name is client text (and a client can put a secret in a key), so
// it is rendered "<additional property>" or "<pattern property>".
//
// Threads: the graph, valijson's compiled schemas and RE2 objects are only
// read after compile(); each validate() keeps its state on its own stack.

// GCC 12 misreports std::regex, which valijson's visitor instantiates, at -O2
// with sanitizers (-Wmaybe-uninitialized, GCC PR 105562) and std::string in
// its JSON-pointer code at -O3 (-Wrestrict, PR 105329). Neither is in this
// code; set before every include, since the warnings point into std headers.
// Clang has neither warning and would report the pragmas as unknown.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include "pipeline/schema_validator.hpp"

#include "pipeline/ecma_regex.hpp"

// Before any valijson header: otherwise valijson calls abort() on a bad schema.
#define VALIJSON_USE_EXCEPTIONS 1
#include <valijson/adapters/boost_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_visitor.hpp>

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace airlock::host {

namespace json = boost::json;

namespace {

using Adapter = valijson::adapters::BoostJsonAdapter;

// Deep enough for any real tool schema; shallow enough that the recursive
// walks cannot exhaust the stack.
constexpr int kMaxDepth = 128;

enum class Dialect { unspecified, draft7, draft2019, draft2020 };

struct Node;

enum class CheckKind {
  leaf,            // a keyword valijson checks (type, enum, minimum, required, ...)
  pattern,         // RE2
  multiple_of,
  members,         // properties + patternProperties + additionalProperties
  items,           // prefixItems/items/additionalItems
  contains,
  property_names,
  all_of,
  any_of,
  one_of,
  negation,        // not
  conditional,     // if/then/else
  dependencies,    // dependencies, dependentRequired or dependentSchemas
  ref,
};

// One entry of properties, patternProperties, dependencies,
// dependentRequired or dependentSchemas.
struct Member {
  std::string name;                       // property name or pattern, as the schema writes it
  std::string escaped;                    // properties: the name as a JSON-pointer token
  std::string path;                       // JSON pointer to the entry
  const Node* schema = nullptr;           // null when the entry is a list of names
  std::vector<std::string> names;         // that list (dependency on other properties)
  std::shared_ptr<const re2::RE2> regex;  // patternProperties only
};

struct Check {
  CheckKind kind = CheckKind::leaf;
  std::string keyword;  // as written; a group's first keyword
  std::string path;     // JSON pointer to the keyword

  // leaf: the keyword's value as valijson gets it, and {keyword: value} compiled alone
  json::value value;
  std::unique_ptr<valijson::Schema> alone;

  std::shared_ptr<const re2::RE2> regex;   // pattern
  double divisor = 1;                      // multiple_of
  std::optional<std::int64_t> int_divisor;

  // allOf/anyOf/oneOf branches; not, contains, propertyNames: one;
  // if/then/else: three, then and else may be null; items: the prefix
  std::vector<const Node*> subs;
  std::string prefix_keyword;  // "prefixItems" or "items"

  // members: properties, then patternProperties; dependencies: entries
  std::vector<Member> members;
  std::set<std::string, std::less<>> declared;  // names under "properties"

  // members: additionalProperties; items: what follows the prefix
  const Node* rest = nullptr;
  std::string rest_keyword;
};

struct Node {
  std::string path;              // JSON pointer into the schema
  std::optional<bool> constant;  // a boolean schema
  std::vector<Check> checks;     // in schema order, "type" first; the walk runs the leaves before the rest
  std::unique_ptr<valijson::Schema> leaves;  // every leaf at once; null when there are fewer than two
};

// Thrown inside compile() only, caught at its edge.
struct Refusal {
  std::string message;
};

[[noreturn]] void refuse(std::string message) { throw Refusal{std::move(message)}; }

std::string at(std::string_view path) {
  return path.empty() ? std::string(" (at root)") : fmt::format(" (at {})", path);
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

bool is_type_name(std::string_view t) {
  return is_one_of(t, {"null", "boolean", "object", "array", "number", "string", "integer"});
}

bool integral_in_int64(double d) {
  return std::trunc(d) == d && d >= -9223372036854775808.0 && d < 9223372036854775808.0;
}

// valijson's Boost.JSON adapter knows int64 and double only: a uint64 (an
// integer above 2^63-1) makes it throw, and 2.0 is not an "integer" to it
// although every draft since 06 says it is. Such numbers are rewritten: a
// uint64 becomes a double, an integral double an int64.
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

bool has_name(const json::object& o, std::string_view name) { return o.contains(name); }

// ---------------------------------------------------------------------------
// compile: schema -> Node graph

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
                        [](const Check& c) { return c.kind == CheckKind::leaf && c.keyword == "type"; });
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
      if (!is_type_name(v.get_string())) malformed("a JSON Schema type name");
    } else if (v.is_array() && !v.get_array().empty()) {
      std::set<std::string_view> seen;
      for (const auto& t : v.get_array())
        if (!t.is_string() || !is_type_name(t.get_string()) || !seen.insert(t.get_string()).second)
          malformed("a type name or an array of distinct type names");
    } else {
      malformed("a type name or an array of distinct type names");
    }
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

bool is_multiple(const json::value& v, const Check& c) {
  if (!v.is_number()) return true;
  if (v.is_int64() && c.int_divisor) return v.get_int64() % *c.int_divisor == 0;
  const double x = v.to_number<double>();
  if (x == 0) return true;
  const double q = x / c.divisor;
  if (std::isinf(q)) return std::fmod(x, c.divisor) == 0;  // fmod is exact
  // A decimal divisor (0.01) is inexact in binary, so allow the quotient a
  // few ulps of rounding; the tolerance scales with the quotient, so neither
  // huge nor tiny numbers slip through.
  return std::fabs(q - std::nearbyint(q)) <= 4 * std::numeric_limits<double>::epsilon() * std::fabs(q);
}

}  // namespace

// ---------------------------------------------------------------------------

struct SchemaValidator::Compiled {
  std::deque<Node> nodes;
  const Node* root = nullptr;
  // valijson's visitor takes a regex cache by non-const reference. No pattern
  // ever reaches valijson (they run on RE2), so this stays empty and unread.
  mutable std::unordered_map<std::string, std::regex> no_regexes;

  bool holds(const valijson::Subschema& s, const json::value& instance) const {
    valijson::ValidationVisitor<Adapter> visitor(Adapter(instance), {}, true, nullptr, no_regexes);
    return visitor.validateSchema(s);
  }
};

namespace {

// One walk of an instance through the graph. With `out`, the first failure is
// written there (building the instance path as it goes); without, it only
// answers valid or not, as anyOf, oneOf, not, contains and if need.
class Walker {
 public:
  Walker(const SchemaValidator::Compiled& c, SchemaFailure* out) : c_(c), out_(out) {}

  // `via` is the keyword that led here: what a `false` schema fails.
  bool node(const Node& n, const json::value& inst, std::string_view via) {
    if (n.constant) return *n.constant || fail(n.path, via);
    if (!leaves(n, inst)) return false;
    for (const Check& c : n.checks)
      if (c.kind != CheckKind::leaf && !check(c, inst)) return false;
    return true;
  }

 private:
  bool fail(std::string_view schema_path, std::string_view keyword) {
    if (out_) *out_ = SchemaFailure{ipath_, std::string(schema_path), std::string(keyword)};
    return false;
  }
  bool fail(const Check& c) { return fail(c.path, c.keyword); }

  bool valid(const Node& n, const json::value& inst) { return Walker(c_, nullptr).node(n, inst, ""); }

  // Runs `body` with `segment` appended to the instance path.
  template <class Fn>
  bool below(std::string_view segment, Fn&& body) {
    if (!out_) return body();
    const std::size_t len = ipath_.size();
    ipath_ += '/';
    ipath_ += segment;
    const bool ok = body();
    ipath_.resize(len);
    return ok;
  }

  bool leaves(const Node& n, const json::value& inst) {
    if (n.leaves && c_.holds(*n.leaves, inst)) return true;
    if (n.leaves && !out_) return false;
    for (const Check& c : n.checks) {
      if (c.kind != CheckKind::leaf || c_.holds(*c.alone, inst)) continue;
      if (c.keyword == "required" && out_) {  // point at the missing name in the schema
        const auto& names = c.value.get_array();
        for (std::size_t i = 0; i < names.size(); ++i)
          if (!has_name(inst.get_object(), names[i].get_string()))
            return fail(c.path + '/' + std::to_string(i), c.keyword);
      }
      return fail(c);
    }
    return !n.leaves || fail(n.path, "");  // the bundle failed, yet no leaf alone did: cannot happen
  }

  bool check(const Check& c, const json::value& inst) {
    switch (c.kind) {
      case CheckKind::leaf: return true;  // done in leaves()
      case CheckKind::pattern:
        return !inst.is_string() || RE2::PartialMatch(std::string_view(inst.get_string()), *c.regex) || fail(c);
      case CheckKind::multiple_of: return is_multiple(inst, c) || fail(c);
      case CheckKind::members: return members(c, inst);
      case CheckKind::items: {
        if (!inst.is_array()) return true;
        const auto& arr = inst.get_array();
        for (std::size_t i = 0; i < arr.size(); ++i) {
          const bool in_prefix = i < c.subs.size();
          if (!in_prefix && !c.rest) break;
          const Node& s = in_prefix ? *c.subs[i] : *c.rest;
          const std::string_view via = in_prefix ? c.prefix_keyword : c.rest_keyword;
          if (!below(out_ ? std::to_string(i) : std::string(), [&] { return node(s, arr[i], via); }))
            return false;
        }
        return true;
      }
      case CheckKind::contains:
        if (!inst.is_array()) return true;
        for (const auto& e : inst.get_array())
          if (valid(*c.subs[0], e)) return true;
        return fail(c);
      case CheckKind::property_names: {
        if (!inst.is_object()) return true;
        // A failure names the object and the keyword inside propertyNames,
        // never the offending name.
        for (const auto& kv : inst.get_object()) {
          SchemaFailure inner;
          if (Walker(c_, out_ ? &inner : nullptr).node(*c.subs[0], json::value(kv.key()), "propertyNames"))
            continue;
          if (out_) *out_ = SchemaFailure{ipath_, std::move(inner.schema_path), std::move(inner.keyword)};
          return false;
        }
        return true;
      }
      case CheckKind::all_of:
        for (const Node* s : c.subs)
          if (!node(*s, inst, "allOf")) return false;
        return true;
      case CheckKind::any_of:
        for (const Node* s : c.subs)
          if (valid(*s, inst)) return true;
        return fail(c);
      case CheckKind::one_of: {
        int passing = 0;
        for (const Node* s : c.subs)
          if (valid(*s, inst) && ++passing > 1) break;
        return passing == 1 || fail(c);
      }
      case CheckKind::negation: return !valid(*c.subs[0], inst) || fail(c);
      case CheckKind::conditional:
        if (valid(*c.subs[0], inst)) return !c.subs[1] || node(*c.subs[1], inst, "then");
        return !c.subs[2] || node(*c.subs[2], inst, "else");
      case CheckKind::dependencies: {
        if (!inst.is_object()) return true;
        const auto& obj = inst.get_object();
        for (const Member& m : c.members) {
          if (!has_name(obj, m.name)) continue;
          if (m.schema) {
            if (!node(*m.schema, inst, c.keyword)) return false;
            continue;
          }
          for (std::size_t i = 0; i < m.names.size(); ++i)
            if (!has_name(obj, m.names[i])) return fail(m.path + '/' + std::to_string(i), c.keyword);
        }
        return true;
      }
      case CheckKind::ref: return node(*c.subs[0], inst, "$ref");
    }
    return true;
  }

  bool members(const Check& c, const json::value& inst) {
    if (!inst.is_object()) return true;
    const auto& obj = inst.get_object();
    for (const Member& m : c.members) {
      if (m.regex) continue;
      if (const json::value* v = obj.if_contains(m.name))
        if (!below(m.escaped, [&] { return node(*m.schema, *v, "properties"); })) return false;
    }
    const bool has_patterns = !c.members.empty() && c.members.back().regex;
    if (!has_patterns && !c.rest) return true;
    for (const auto& kv : obj) {
      const std::string_view key = kv.key();
      const auto declared = c.declared.find(key);
      bool matched = declared != c.declared.end();
      for (const Member& m : c.members) {
        if (!m.regex || !RE2::PartialMatch(key, *m.regex)) continue;
        matched = true;
        // A declared name is schema text; any other name is the client's.
        const std::string segment = !out_                        ? std::string()
                                    : declared != c.declared.end() ? escape_token(*declared)
                                                                   : "<pattern property>";
        if (!below(segment, [&] { return node(*m.schema, kv.value(), "patternProperties"); })) return false;
      }
      if (!matched && c.rest &&
          !below("<additional property>", [&] { return node(*c.rest, kv.value(), "additionalProperties"); }))
        return false;
    }
    return true;
  }

  const SchemaValidator::Compiled& c_;
  SchemaFailure* out_;
  std::string ipath_;
};

std::string shown(const std::string& pointer) { return pointer.empty() ? "(root)" : pointer; }

}  // namespace

std::string SchemaFailure::describe() const {
  if (keyword.empty()) return "instance does not match the schema";
  return fmt::format("{}: fails '{}' (schema {})", shown(instance_path), keyword, shown(schema_path));
}

SchemaValidator::SchemaValidator(std::unique_ptr<Compiled> compiled) : compiled_(std::move(compiled)) {}
SchemaValidator::~SchemaValidator() = default;

Result<std::shared_ptr<const SchemaValidator>> SchemaValidator::compile(const json::object& schema) {
  auto c = std::make_unique<Compiled>();
  try {
    Compiler compiler(schema, c->nodes);
    c->root = compiler.run();
    refuse_in_place_cycles(c->nodes);
    compile_leaves(c->nodes);
  } catch (const Refusal& r) {
    return Error{r.message};
  } catch (const std::exception& e) {
    // valijson refusing a leaf the checks above let through.
    return Error{fmt::format("schema cannot be compiled: {}", e.what())};
  }
  return std::shared_ptr<const SchemaValidator>(new SchemaValidator(std::move(c)));
}

std::optional<SchemaFailure> SchemaValidator::validate(const json::value& instance) const {
  auto run = [&](const json::value& inst) -> std::optional<SchemaFailure> {
    SchemaFailure failure;
    try {
      if (Walker(*compiled_, &failure).node(*compiled_->root, inst, "")) return std::nullopt;
      return failure;
    } catch (const std::exception&) {
      return SchemaFailure{};  // fail closed, with nothing located
    }
  };
  if (!has_awkward_number(instance)) return run(instance);
  json::value fixed = instance;
  fix_numbers(fixed);
  return run(fixed);
}

}  // namespace airlock::host
