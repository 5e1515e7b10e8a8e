// A small instance generator for the JSON Schema keywords tools use in
// practice: type, properties, required, items, prefixItems, enum, const,
// numeric and length bounds, format, allOf, anyOf, oneOf and local $ref.
// It does not try to satisfy everything (a pattern, uniqueItems, not):
// whatever it makes is validated afterwards, and misses are dropped.
#include "check/schema_instances.hpp"

#include "util/utf8.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace airlock::host::check {
namespace {

namespace json = boost::json;

enum class Mode { minimal, full, random };

constexpr int kMaxDepth = 8;

// Strings a tool may be handed: ordinary and hostile, all valid UTF-8 (JSON
// text cannot carry anything else).
std::vector<std::string> argument_strings(std::uint64_t seed) {
  std::vector<std::string> out = {"x", "", "hello world", "../../etc/passwd", "' OR 1=1 --", "https://evil.example/"};
  for (auto& item : generate_text_corpus(seed, CorpusSize::fast))
    if (valid_utf8(item.text) && item.text.size() <= 512) out.push_back(std::move(item.text));
  return out;
}

std::size_t code_points(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

// The first `n` code points of a valid UTF-8 string.
std::string first_code_points(std::string_view s, std::size_t n) {
  std::size_t i = 0, seen = 0;
  while (i < s.size()) {
    if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) {
      if (seen == n) break;
      ++seen;
    }
    ++i;
  }
  return std::string(s.substr(0, i));
}

std::optional<double> number_of(const json::object& schema, std::string_view key) {
  const json::value* v = schema.if_contains(key);
  if (!v) return std::nullopt;
  if (v->is_int64()) return static_cast<double>(v->get_int64());
  if (v->is_uint64()) return static_cast<double>(v->get_uint64());
  if (v->is_double()) return v->get_double();
  return std::nullopt;
}

class Generator {
 public:
  Generator(const json::object& root, Prng& prng, Mode mode, const std::vector<std::string>& strings)
      : root_(root), prng_(prng), mode_(mode), strings_(strings) {}

  json::value instance(const json::value& schema, int depth) {
    if (!schema.is_object()) return json::value("x");  // true (anything) or false (nothing will do)
    const json::object& s = schema.get_object();
    if (depth > kMaxDepth) return json::value(nullptr);
    if (const json::value* ref = s.if_contains("$ref"); ref && ref->is_string()) {
      const std::string_view r = ref->get_string();
      if (r.starts_with("#")) {
        boost::system::error_code ec;
        const json::value root(root_);
        if (const json::value* target = root.find_pointer(r.substr(1), ec))
          return instance(json::value(*target), depth + 1);
      }
      return json::value("x");
    }
    if (const json::value* c = s.if_contains("const")) return *c;
    if (const json::value* e = s.if_contains("enum"); e && e->is_array() && !e->get_array().empty()) {
      const json::array& values = e->get_array();
      return mode_ == Mode::minimal ? values.front() : values[prng_.below(values.size())];
    }
    if (const json::value* all = s.if_contains("allOf"); all && all->is_array())
      return instance(merged(s, "allOf", all->get_array(), /*pick_one=*/false), depth + 1);
    for (const char* key : {"oneOf", "anyOf"})
      if (const json::value* any = s.if_contains(key); any && any->is_array() && !any->get_array().empty())
        return instance(merged(s, key, any->get_array(), /*pick_one=*/true), depth + 1);

    const std::string type = type_of(s);
    if (type == "object") return object(s, depth);
    if (type == "array") return array(s, depth);
    if (type == "integer") return integer(s);
    if (type == "number") return number(s);
    if (type == "boolean") return json::value(mode_ == Mode::random ? prng_.chance(50) : mode_ == Mode::full);
    if (type == "null") return json::value(nullptr);
    return string(s);
  }

 private:
  // The schema without `key`, with the keywords of one branch (pick_one) or
  // of every branch merged in: properties and required are unioned, other
  // keywords are taken where the schema has none.
  json::value merged(const json::object& s, const char* key, const json::array& branches, bool pick_one) {
    json::object out = s;
    out.erase(key);
    auto merge = [&](const json::value& branch) {
      if (!branch.is_object()) return;
      for (const auto& kv : branch.get_object()) {
        if (kv.key() == "properties" && kv.value().is_object()) {
          json::object& props = out["properties"].is_object() ? out["properties"].get_object()
                                                              : out["properties"].emplace_object();
          for (const auto& p : kv.value().get_object())
            if (!props.contains(p.key())) props[p.key()] = p.value();
        } else if (kv.key() == "required" && kv.value().is_array()) {
          json::array& req = out["required"].is_array() ? out["required"].get_array() : out["required"].emplace_array();
          for (const auto& r : kv.value().get_array())
            if (std::find(req.begin(), req.end(), r) == req.end()) req.push_back(r);
        } else if (!out.contains(kv.key())) {
          out[kv.key()] = kv.value();
        }
      }
    };
    if (pick_one) {
      merge(branches[mode_ == Mode::minimal ? 0 : prng_.below(branches.size())]);
    } else {
      for (const auto& b : branches) merge(b);
    }
    return out;
  }

  std::string type_of(const json::object& s) {
    if (const json::value* t = s.if_contains("type")) {
      if (t->is_string()) return std::string(t->get_string());
      if (t->is_array() && !t->get_array().empty()) {
        std::vector<std::string> types;
        for (const auto& v : t->get_array())
          if (v.is_string()) types.emplace_back(v.get_string());
        if (types.empty()) return "string";
        if (mode_ == Mode::random) return types[prng_.below(types.size())];
        for (const auto& type : types)
          if (type != "null") return type;
        return types.front();
      }
    }
    if (s.contains("properties") || s.contains("required") || s.contains("additionalProperties")) return "object";
    if (s.contains("items") || s.contains("prefixItems")) return "array";
    if (s.contains("minimum") || s.contains("maximum") || s.contains("multipleOf")) return "number";
    return "string";
  }

  json::value object(const json::object& s, int depth) {
    json::object out;
    const json::object empty;
    const json::value* p = s.if_contains("properties");
    const json::object& props = p && p->is_object() ? p->get_object() : empty;
    std::set<std::string> required;
    if (const json::value* r = s.if_contains("required"); r && r->is_array())
      for (const auto& name : r->get_array())
        if (name.is_string()) required.emplace(name.get_string());
    for (const auto& kv : props) {
      const bool needed = required.contains(std::string(kv.key()));
      const bool take = needed || mode_ == Mode::full || (mode_ == Mode::random && prng_.chance(50));
      if (take) out[kv.key()] = instance(kv.value(), depth + 1);
    }
    for (const auto& name : required) {
      if (out.contains(name)) continue;
      const json::value* extra = s.if_contains("additionalProperties");
      out[name] = extra && extra->is_object() ? instance(*extra, depth + 1) : json::value("x");
    }
    return out;
  }

  json::value array(const json::object& s, int depth) {
    const std::size_t min_items = static_cast<std::size_t>(std::max(0.0, number_of(s, "minItems").value_or(0)));
    const std::size_t max_items =
        static_cast<std::size_t>(std::max(0.0, number_of(s, "maxItems").value_or(static_cast<double>(min_items + 3))));
    std::size_t n = min_items;
    if (mode_ == Mode::full) n = std::max<std::size_t>(min_items, std::min<std::size_t>(2, max_items));
    if (mode_ == Mode::random && max_items > min_items) n = min_items + prng_.below(max_items - min_items + 1);
    json::array out;
    const json::value* prefix = s.if_contains("prefixItems");
    const json::value* items = s.if_contains("items");
    for (std::size_t i = 0; i < n; ++i) {
      if (prefix && prefix->is_array() && i < prefix->get_array().size()) {
        out.push_back(instance(prefix->get_array()[i], depth + 1));
      } else if (items && items->is_array() && i < items->get_array().size()) {  // draft-07 tuple form
        out.push_back(instance(items->get_array()[i], depth + 1));
      } else if (items && items->is_object()) {
        out.push_back(instance(*items, depth + 1));
      } else {
        out.push_back(json::value("x"));
      }
    }
    return out;
  }

  // [low, high] of a numeric schema, with exclusive bounds moved inwards.
  std::pair<double, double> bounds(const json::object& s, double step) {
    double low = number_of(s, "minimum").value_or(-1e6);
    double high = number_of(s, "maximum").value_or(1e6);
    if (auto e = number_of(s, "exclusiveMinimum")) low = std::max(low, *e + step);
    if (auto e = number_of(s, "exclusiveMaximum")) high = std::min(high, *e - step);
    return {low, std::max(low, high)};
  }

  json::value integer(const json::object& s) {
    auto [low, high] = bounds(s, 1);
    low = std::ceil(low);
    high = std::floor(high);
    double v = std::clamp(0.0, low, high);
    if (mode_ == Mode::full) v = std::clamp(1.0, low, high);
    if (mode_ == Mode::random) {
      static constexpr double kPicks[] = {0, 1, -1, 7, 42, 65535, -2147483648.0, 2147483647.0};
      v = std::clamp(kPicks[prng_.below(std::size(kPicks))], low, high);
    }
    if (auto m = number_of(s, "multipleOf"); m && *m > 0) v = std::ceil(v / *m) * *m;
    // Within int64 whatever the schema's bounds say (the cast is undefined past them).
    return json::value(static_cast<std::int64_t>(std::clamp(v, -9.0e18, 9.0e18)));
  }

  json::value number(const json::object& s) {
    auto [low, high] = bounds(s, 1e-6);
    double v = std::clamp(0.0, low, high);
    if (mode_ != Mode::minimal) v = std::clamp(mode_ == Mode::full ? 1.5 : -0.25 + prng_.below(1000) * 0.5, low, high);
    if (auto m = number_of(s, "multipleOf"); m && *m > 0) v = std::ceil(v / *m) * *m;
    return json::value(v);
  }

  json::value string(const json::object& s) {
    if (const json::value* f = s.if_contains("format"); f && f->is_string()) {
      const std::string_view format = f->get_string();
      if (format == "email") return json::value("someone@example.com");
      if (format == "uri" || format == "url" || format == "iri") return json::value("https://example.com/a");
      if (format == "date-time") return json::value("2025-01-01T00:00:00Z");
      if (format == "date") return json::value("2025-01-01");
      if (format == "time") return json::value("12:00:00Z");
      if (format == "uuid") return json::value("123e4567-e89b-12d3-a456-426614174000");
      if (format == "ipv4") return json::value("127.0.0.1");
      if (format == "ipv6") return json::value("::1");
      if (format == "hostname") return json::value("host.example");
    }
    std::string text = mode_ == Mode::minimal ? "x" : strings_[prng_.below(strings_.size())];
    if (mode_ == Mode::full) text = "hello world";
    const std::size_t min_length = static_cast<std::size_t>(std::max(0.0, number_of(s, "minLength").value_or(0)));
    if (auto max_length = number_of(s, "maxLength"); max_length && *max_length >= 0)
      if (code_points(text) > static_cast<std::size_t>(*max_length))
        text = first_code_points(text, static_cast<std::size_t>(*max_length));
    while (code_points(text) < min_length) text.push_back('x');
    return json::value(text);
  }

  const json::object& root_;
  Prng& prng_;
  Mode mode_;
  const std::vector<std::string>& strings_;
};

}  // namespace

std::vector<GeneratedArguments> generate_arguments(const json::object& input_schema, const SchemaValidator& validator,
                                                   Prng& prng, std::size_t count) {
  const std::vector<std::string> strings = argument_strings(prng.next());
  std::vector<GeneratedArguments> out;
  std::set<std::string> seen;
  auto add = [&](const json::value& v) {
    if (!v.is_object() || out.size() >= count) return;
    std::string text = json::serialize(v);
    if (!seen.insert(text).second) return;
    const bool valid = !validator.validate(v);
    if (!valid && !out.empty()) return;  // only "{}" is sent whether or not it validates
    out.push_back({std::move(text), valid});
  };
  add(json::object{});
  const json::value schema(input_schema);
  add(Generator(input_schema, prng, Mode::minimal, strings).instance(schema, 0));
  add(Generator(input_schema, prng, Mode::full, strings).instance(schema, 0));
  for (std::size_t attempt = 0; attempt < count * 4 && out.size() < count; ++attempt)
    add(Generator(input_schema, prng, Mode::random, strings).instance(schema, 0));
  return out;
}

}  // namespace airlock::host::check
