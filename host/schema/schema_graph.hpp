// The compiled form of a JSON Schema: a graph of Nodes, one per schema
// location, each holding the Checks of its keywords. schema_compiler.cpp
// builds it, schema_walker.cpp walks instances through it. Internal to
// host/schema/: it carries valijson's and RE2's types, which no caller of
// SchemaValidator should see.
#pragma once

// GCC 12 misreports std::regex, which valijson's visitor instantiates, at -O2
// with sanitizers (-Wmaybe-uninitialized, GCC PR 105562) and std::string in
// its JSON-pointer code at -O3 (-Wrestrict, PR 105329). Neither is in this
// code; set before every include, since the warnings point into std headers.
// Clang has neither warning and would report the pragmas as unknown.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

// Before any valijson header: otherwise valijson calls abort() on a bad schema.
#define VALIJSON_USE_EXCEPTIONS 1
#include <valijson/adapters/boost_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/validation_visitor.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <re2/re2.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace airlock::host::schema {

namespace json = boost::json;
using Adapter = valijson::adapters::BoostJsonAdapter;

struct Node;

enum class CheckKind {
  leaf,            // a keyword valijson checks (enum, const, minimum, maxLength, ...)
  type,            // "type" and "required", the keywords nearly every tool schema
  required,        // has, are checked here: a valijson call costs more than the call
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
  unsigned types = 0;                      // type: a bit per type name (type_bit)
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

struct SchemaGraph {
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

// The bit of a JSON Schema type name in Check::types; 0 for any other name.
unsigned type_bit(std::string_view name);
// Whether `instance` is of one of the types in `types`. An integral double
// (2.0) is an "integer", as every draft since 06 says.
bool has_type(const json::value& instance, unsigned types);

// A name as an RFC 6901 JSON-pointer token ("~" -> "~0", "/" -> "~1").
std::string escape_token(std::string_view s);

inline bool has_name(const json::object& o, std::string_view name) { return o.contains(name); }

// valijson's Boost.JSON adapter knows int64 and double only: a uint64 (an
// integer above 2^63-1) makes it throw, and 2.0 is not an "integer" to it
// although every draft since 06 says it is. Such numbers are rewritten: a
// uint64 becomes a double, an integral double an int64. has_awkward_number
// says whether a value holds one, so the rewrite copies only when it must.
bool has_awkward_number(const json::value& v);
void fix_numbers(json::value& v);

}  // namespace airlock::host::schema
