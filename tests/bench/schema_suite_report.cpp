// Times SchemaValidator on a typical MCP tool inputSchema: compile once, then
// validate a valid and an invalid call's arguments many times, beside
// valijson's own Validator on the same schema for scale. Prints figures only.
//
//   schema_suite_report [iterations]
// GCC 12 misreports std::regex and std::string as inlined from valijson
// (GCC PR 105562, 105329); see schema_validator.cpp.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include "schema/schema_validator.hpp"

#define VALIJSON_USE_EXCEPTIONS 1

#include <valijson/adapters/boost_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include <boost/json/parse.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string>

namespace {

namespace json = boost::json;
using airlock::host::SchemaValidator;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kSchema = R"({
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 500},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "mode": {"enum": ["fast", "thorough"]},
    "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
             "maxItems": 10, "uniqueItems": true},
    "filters": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
    "page": {"$ref": "#/definitions/page"}
  },
  "required": ["query"],
  "additionalProperties": false,
  "definitions": {"page": {"type": "object", "properties": {"cursor": {"type": "string"},
                  "size": {"type": "integer", "minimum": 1}}, "required": ["cursor"]}}
})";

constexpr std::string_view kValid = R"({"query": "open issues about the parser", "limit": 20,
  "mode": "fast", "tags": ["parser", "bug", "p1"], "filters": {"state": "open", "age": 30},
  "page": {"cursor": "abc", "size": 20}})";

constexpr std::string_view kInvalid = R"({"query": "open issues about the parser", "limit": 20,
  "mode": "fast", "tags": ["parser", "bug", "P1"], "filters": {"state": "open", "age": 30},
  "page": {"cursor": "abc", "size": 20}})";

template <class Fn>
double ns_per_call(int iterations, Fn&& fn) {
  const auto start = Clock::now();
  for (int i = 0; i < iterations; ++i) fn();
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / iterations;
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 200000;
  const json::object schema = json::parse(kSchema).as_object();
  const json::value valid = json::parse(kValid);
  const json::value invalid = json::parse(kInvalid);

  const double compile_ns = ns_per_call(1000, [&] { (void)SchemaValidator::compile(schema); });
  const auto v = SchemaValidator::compile(schema).value();
  bool sink = false;
  const double ours_valid = ns_per_call(iterations, [&] { sink ^= v->validate(valid).has_value(); });
  const double ours_invalid = ns_per_call(iterations, [&] { sink ^= v->validate(invalid).has_value(); });
  const auto failure = v->validate(invalid);

  valijson::Schema vj_schema;
  valijson::SchemaParser(valijson::SchemaParser::kDraft7)
      .populateSchema(valijson::adapters::BoostJsonAdapter(json::value(schema)), vj_schema);
  valijson::Validator validator;
  const double vj_valid = ns_per_call(iterations, [&] {
    sink ^= validator.validate(vj_schema, valijson::adapters::BoostJsonAdapter(valid), nullptr);
  });
  const double vj_invalid = ns_per_call(iterations, [&] {
    sink ^= validator.validate(vj_schema, valijson::adapters::BoostJsonAdapter(invalid), nullptr);
  });

  fmt::print("schema_suite_report: typical tool inputSchema, {} iterations\n", iterations);
  fmt::print("  compile                        {:>10.0f} ns\n", compile_ns);
  fmt::print("  validate, valid arguments      {:>10.0f} ns   (valijson Validator alone: {:.0f} ns)\n", ours_valid,
             vj_valid);
  fmt::print("  validate, invalid arguments    {:>10.0f} ns   (valijson Validator alone: {:.0f} ns)\n", ours_invalid,
             vj_invalid);
  fmt::print("  failure: {}\n", failure ? failure->describe() : "none");
  return sink ? 0 : 0;
}
