// Validating an instance: first_failure() walks the graph (schema_graph.hpp)
// with the instance. At each Node, "type" and "required" are checked in
// place and valijson checks the other simple keywords together (one compiled
// bundle); only when one fails does the walk ask each keyword alone, to name
// it. The walk recurses through applicators itself because valijson cannot
// be used whole:
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
// read once compiled; each walk keeps its state on its own stack.
#include "schema/schema_walker.hpp"

#include "schema/schema_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace airlock::host::schema {
namespace {

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

// One walk of an instance through the graph. With `out`, the first failure is
// written there (building the instance path as it goes); without, it only
// answers valid or not, as anyOf, oneOf, not, contains and if need.
class Walker {
 public:
  Walker(const SchemaGraph& c, SchemaFailure* out) : c_(c), out_(out) {}

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

  // The keywords checked in place, and those valijson checks: when they all
  // hold, which is nearly always, one valijson call at most says so.
  bool leaves(const Node& n, const json::value& inst) {
    if (n.leaves) {
      if (own_leaves_hold(n, inst) && c_.holds(*n.leaves, inst)) return true;
      if (!out_) return false;
    }
    for (const Check& c : n.checks) {
      if (c.kind == CheckKind::required) {  // point at the missing name in the schema
        if (auto missing = first_missing(c, inst)) return fail(c.path + '/' + std::to_string(*missing), c.keyword);
      } else if (!holds_in_place(c, inst) || (c.kind == CheckKind::leaf && !c_.holds(*c.alone, inst))) {
        return fail(c);
      }
    }
    return !n.leaves || fail(n.path, "");  // the bundle failed, yet no leaf alone did: cannot happen
  }

  // "type" and "required"; true for any other check.
  static bool holds_in_place(const Check& c, const json::value& inst) {
    if (c.kind == CheckKind::type) return has_type(inst, c.types);
    if (c.kind == CheckKind::required) return !first_missing(c, inst);
    return true;
  }

  static bool own_leaves_hold(const Node& n, const json::value& inst) {
    return std::all_of(n.checks.begin(), n.checks.end(), [&](const Check& c) { return holds_in_place(c, inst); });
  }

  // The index in "required" of the first name `inst` lacks; none when it is
  // not an object (then "required" says nothing).
  static std::optional<std::size_t> first_missing(const Check& c, const json::value& inst) {
    if (!inst.is_object()) return std::nullopt;
    const auto& names = c.value.get_array();
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!has_name(inst.get_object(), names[i].get_string())) return i;
    return std::nullopt;
  }

  bool check(const Check& c, const json::value& inst) {
    switch (c.kind) {
      case CheckKind::leaf:
      case CheckKind::type:
      case CheckKind::required: return true;  // done in leaves()
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

  const SchemaGraph& c_;
  SchemaFailure* out_;
  std::string ipath_;
};

std::string shown(const std::string& pointer) { return pointer.empty() ? "(root)" : pointer; }

}  // namespace

std::optional<SchemaFailure> first_failure(const SchemaGraph& graph, const json::value& instance) {
  auto run = [&](const json::value& inst) -> std::optional<SchemaFailure> {
    SchemaFailure failure;
    try {
      if (Walker(graph, &failure).node(*graph.root, inst, "")) return std::nullopt;
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

}  // namespace airlock::host::schema

namespace airlock::host {

std::string SchemaFailure::describe() const {
  if (keyword.empty()) return "instance does not match the schema";
  return fmt::format("{}: fails '{}' (schema {})", schema::shown(instance_path), keyword,
                     schema::shown(schema_path));
}

}  // namespace airlock::host
