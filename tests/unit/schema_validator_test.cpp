// Tests for SchemaValidator: what compile() refuses and why, what validate()
// accepts, where a failure points, that no failure text carries instance
// text, and that one compiled validator serves many threads.
#include "schema/schema_validator.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace airlock::host {
namespace {

namespace json = boost::json;
using testing::HasSubstr;
using testing::Not;

constexpr std::string_view kCanary = "CANARY-7f3a9c";

std::shared_ptr<const SchemaValidator> compiled(std::string_view schema) {
  auto r = SchemaValidator::compile(json::parse(schema).as_object());
  if (!r) throw std::runtime_error("unexpected refusal: " + r.error().message);
  return *r;
}

// The refusal message, or "<accepted>".
std::string refusal(std::string_view schema) {
  auto r = SchemaValidator::compile(json::parse(schema).as_object());
  return r ? std::string("<accepted>") : r.error().message;
}

std::optional<SchemaFailure> check(std::string_view schema, std::string_view instance) {
  return compiled(schema)->validate(json::parse(instance));
}

bool valid(std::string_view schema, std::string_view instance) { return !check(schema, instance); }

// The failure, which the test expects there to be.
SchemaFailure failure(std::string_view schema, std::string_view instance) {
  auto f = check(schema, instance);
  if (!f) throw std::runtime_error("expected a failure for " + std::string(instance));
  return *f;
}

// ---- compile: refusals -------------------------------------------------------

TEST(SchemaValidator, RefusesMalformedKeywordValues) {
  EXPECT_THAT(refusal(R"({"type": "strnig"})"), HasSubstr("'type' must be a JSON Schema type name (at root)"));
  EXPECT_THAT(refusal(R"({"properties": {"age": {"minimum": "5"}}})"),
              HasSubstr("'minimum' must be a number (at /properties/age)"));
  EXPECT_THAT(refusal(R"({"properties": []})"), HasSubstr("'properties' must be an object"));
  EXPECT_THAT(refusal(R"({"required": "name"})"), HasSubstr("'required' must be an array of strings"));
  EXPECT_THAT(refusal(R"({"maxLength": -1})"), HasSubstr("'maxLength' must be a non-negative integer"));
  EXPECT_THAT(refusal(R"({"multipleOf": 0})"), HasSubstr("'multipleOf' must be a number above 0"));
  EXPECT_THAT(refusal(R"({"anyOf": []})"), HasSubstr("'anyOf' must be a non-empty array of schemas"));
  EXPECT_THAT(refusal(R"({"items": 5})"), HasSubstr("a schema must be an object or a boolean (at /items)"));
  EXPECT_THAT(refusal(R"({"exclusiveMinimum": true, "minimum": 1})"),
              HasSubstr("'exclusiveMinimum' must be a number"));
  EXPECT_THAT(refusal(R"({"pattern": "(unclosed"})"),
              HasSubstr("'pattern' holds a regular expression airlock cannot check"));
}

TEST(SchemaValidator, RefusesUnsupportedKeywordNamingItsPath) {
  EXPECT_EQ(refusal(R"({"properties": {"x": {"unevaluatedProperties": false}}})"),
            "uses keyword 'unevaluatedProperties', which airlock cannot check (at /properties/x)");
  EXPECT_EQ(refusal(R"({"anyOf": [{"type": "array", "minContains": 2}]})"),
            "uses keyword 'minContains', which airlock cannot check (at /anyOf/0)");
  EXPECT_EQ(refusal(R"({"$defs": {"tree": {"$dynamicRef": "#node"}}})"),
            "uses keyword '$dynamicRef', which airlock cannot check (at /$defs/tree)");
}

TEST(SchemaValidator, RefusesRefToAnotherDocument) {
  EXPECT_THAT(refusal(R"({"properties": {"a": {"$ref": "https://example.com/schema.json"}}})"),
              HasSubstr("$ref 'https://example.com/schema.json' points outside this schema, and airlock never "
                        "fetches schemas (at /properties/a)"));
  EXPECT_THAT(refusal(R"({"$ref": "other.json#/$defs/a"})"), HasSubstr("points outside this schema"));
}

TEST(SchemaValidator, RefusesRefToAnAnchorOrToNothing) {
  EXPECT_THAT(refusal(R"({"$ref": "#node", "$defs": {"n": {"$anchor": "node"}}})"), HasSubstr("names an anchor"));
  EXPECT_THAT(refusal(R"({"$ref": "#/$defs/missing"})"),
              HasSubstr("$ref '#/$defs/missing' points to nothing in this schema (at root)"));
}

TEST(SchemaValidator, RefusesIdThatStartsANewResourceBelowTheRoot) {
  EXPECT_THAT(refusal(R"({"properties": {"a": {"$id": "https://example.com/a", "type": "string"}}})"),
              HasSubstr("below the root starts a new schema resource"));
  EXPECT_EQ(refusal(R"({"$id": "https://example.com/root", "type": "object"})"), "<accepted>");
}

TEST(SchemaValidator, RefusesUnknownSchemaDialect) {
  EXPECT_EQ(refusal(R"({"$schema": "http://json-schema.org/draft-04/schema#"})"),
            "$schema 'http://json-schema.org/draft-04/schema#' is not a dialect airlock supports (draft-07, 2019-09 "
            "or 2020-12)");
  EXPECT_THAT(refusal(R"({"$schema": 7})"), HasSubstr("'$schema' must be a string"));
}

TEST(SchemaValidator, AcceptsDraft07And201909And202012AndNoSchema) {
  for (std::string_view uri :
       {"http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft/2019-09/schema", "https://json-schema.org/draft/2020-12/schema"})
    EXPECT_EQ(refusal(R"({"$schema": ")" + std::string(uri) + R"(", "type": "object"})"), "<accepted>") << uri;
  EXPECT_EQ(refusal(R"({"type": "object"})"), "<accepted>");
}

TEST(SchemaValidator, RefusesKeywordOfAnotherDraftThanDeclared) {
  EXPECT_THAT(refusal(R"({"$schema": "http://json-schema.org/draft-07/schema#", "prefixItems": [true]})"),
              HasSubstr("uses keyword 'prefixItems', which is not part of draft-07 as declared by $schema"));
  EXPECT_THAT(refusal(R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
                          "dependencies": {"a": ["b"]}})"),
              HasSubstr("uses keyword 'dependencies', which is not part of 2020-12"));
  EXPECT_THAT(refusal(R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "items": [true]})"),
              HasSubstr("'items' must be a schema in 2020-12"));
}

TEST(SchemaValidator, RefusesRefLoopThatNeverDescendsIntoTheInstance) {
  EXPECT_THAT(refusal(R"({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}})"),
              HasSubstr("$ref loops back to"));
  EXPECT_THAT(refusal(R"({"allOf": [{"$ref": "#"}]})"), HasSubstr("$ref loops back to the root"));
}

TEST(SchemaValidator, RefusesPatternsRe2CannotRunWithEcmaMeaning) {
  EXPECT_THAT(refusal(R"({"pattern": "^(?=.*[A-Z]).+$"})"), HasSubstr("'pattern' holds a regular expression"));
  EXPECT_THAT(refusal(R"({"pattern": "(a)\\1"})"), HasSubstr("'pattern' holds a regular expression"));
  EXPECT_THAT(refusal(R"({"pattern": "\\Aabc"})"), HasSubstr("'pattern' holds a regular expression"));
  EXPECT_THAT(refusal(R"({"patternProperties": {"[]": true}})"),
              HasSubstr("'patternProperties' holds a regular expression airlock cannot check (at root)"));
}

TEST(SchemaValidator, MatchesPatternsByCharacterWithEcmaClasses) {
  EXPECT_TRUE(valid(R"({"pattern": "^.$"})", R"("é")"));
  EXPECT_FALSE(valid(R"({"pattern": "^.$"})", R"("\u2028")"));  // "." stops at every line terminator
  EXPECT_TRUE(valid(R"({"pattern": "^🐲*$"})", R"("🐲🐲")"));
  EXPECT_TRUE(valid(R"({"pattern": "^\\s$"})", R"("\u00a0")"));  // no-break space is \s in ECMA-262
  EXPECT_FALSE(valid(R"({"pattern": "^\\S+$"})", R"("a\u3000b")"));
  EXPECT_TRUE(valid(R"({"pattern": "^\\u00e9$"})", R"("é")"));
  EXPECT_TRUE(valid(R"({"pattern": "^\\cC$"})", R"("\u0003")"));
  EXPECT_FALSE(valid(R"({"patternProperties": {"^🐲*$": {"type": "integer"}}})", R"({"🐲🐲": "x"})"));
}

// std::regex recurses once per character: a 200k-character argument against
// "(a|b)*" overflowed the stack and killed the process, and "(a+)+b" took
// seconds for 22 characters. RE2 runs both in linear time.
TEST(SchemaValidator, RunsPatternsInLinearTimeOnHostileInput) {
  const std::string longest = R"(")" + std::string(200000, 'a') + R"(")";
  EXPECT_TRUE(valid(R"({"pattern": "^(a|b)*$"})", longest));
  EXPECT_TRUE(valid(R"({"patternProperties": {"^(a|b)*$": {"type": "string"}}})",
                    R"({)" + longest + R"(: "x"})"));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(valid(R"({"pattern": "^(a+)+b$"})", R"(")" + std::string(5000, 'a') + R"(")"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(SchemaValidator, TreatsUnknownKeywordsAndFormatAsAnnotations) {
  const auto schema = R"({"type": "object", "x-ui-order": ["a"], "properties": {
      "when": {"type": "string", "format": "date", "x-widget": {"minimum": 5}}}})";
  EXPECT_TRUE(valid(schema, R"({"when": "not a date"})"));
  EXPECT_FALSE(valid(schema, R"({"when": 5})"));
}

// ---- validate: what passes and where a failure points -------------------------

TEST(SchemaValidator, ChecksTypes) {
  EXPECT_TRUE(valid(R"({"type": "integer"})", "5"));
  EXPECT_TRUE(valid(R"({"type": "integer"})", "2.0"));  // every draft since 06: 2.0 is an integer
  EXPECT_FALSE(valid(R"({"type": "integer"})", "2.5"));
  EXPECT_TRUE(valid(R"({"type": "number"})", "18446744073709551615"));  // a uint64 valijson cannot read
  EXPECT_FALSE(valid(R"({"type": "string"})", "5"));
  EXPECT_TRUE(valid(R"({"type": ["string", "null"]})", "null"));
  EXPECT_FALSE(valid(R"({"type": ["string", "null"]})", "false"));
  EXPECT_FALSE(valid(R"({"type": "object"})", "[]"));
  EXPECT_FALSE(valid(R"({"type": "array"})", "{}"));
  EXPECT_FALSE(valid(R"({"type": "boolean"})", "0"));
  const SchemaFailure f = failure(R"({"type": "object"})", "[]");
  EXPECT_EQ(f.keyword, "type");
  EXPECT_EQ(f.schema_path, "/type");
  EXPECT_EQ(f.instance_path, "");
  EXPECT_EQ(f.describe(), "(root): fails 'type' (schema /type)");
}

TEST(SchemaValidator, NamesTheMissingRequiredProperty) {
  const auto schema = R"({"type": "object", "required": ["name", "age"]})";
  EXPECT_TRUE(valid(schema, R"({"name": "a", "age": 1})"));
  const SchemaFailure f = failure(schema, R"({"name": "a"})");
  EXPECT_EQ(f.keyword, "required");
  EXPECT_EQ(f.schema_path, "/required/1");  // "age": the schema's text, not the instance's
  EXPECT_EQ(f.instance_path, "");
}

TEST(SchemaValidator, DescribesAFailureByPathsAndKeyword) {
  const auto schema = R"({"type": "object", "properties": {"age": {"type": "integer", "minimum": 18}}})";
  EXPECT_TRUE(valid(schema, R"({"age": 18})"));
  EXPECT_EQ(failure(schema, R"({"age": 5})").describe(), "/age: fails 'minimum' (schema /properties/age/minimum)");
}

TEST(SchemaValidator, ChecksNumberBounds) {
  EXPECT_FALSE(valid(R"({"maximum": 10})", "10.5"));
  EXPECT_TRUE(valid(R"({"maximum": 10})", "10"));
  EXPECT_FALSE(valid(R"({"exclusiveMaximum": 10})", "10"));
  EXPECT_FALSE(valid(R"({"exclusiveMinimum": 0})", "0"));
  EXPECT_TRUE(valid(R"({"minimum": 0})", "0"));
  EXPECT_TRUE(valid(R"({"maximum": 18446744073709551615})", "18446744073709551600"));
  EXPECT_TRUE(valid(R"({"minimum": 5})", R"("3")"));  // applies to numbers only
  EXPECT_EQ(failure(R"({"exclusiveMinimum": 0})", "0").keyword, "exclusiveMinimum");
}

TEST(SchemaValidator, ChecksMultipleOfExactlyWhereValijsonDoesNot) {
  EXPECT_FALSE(valid(R"({"multipleOf": 5})", "10.5"));  // valijson truncates to 10
  EXPECT_TRUE(valid(R"({"multipleOf": 5})", "10"));
  EXPECT_TRUE(valid(R"({"multipleOf": 0.0001})", "0.0075"));
  EXPECT_FALSE(valid(R"({"multipleOf": 0.0001})", "0.00751"));
  EXPECT_TRUE(valid(R"({"multipleOf": 1e-8})", "12391239123"));
  EXPECT_FALSE(valid(R"({"multipleOf": 1e-16})", "1e-36"));
  EXPECT_TRUE(valid(R"({"multipleOf": 3})", R"("7")"));  // applies to numbers only
  EXPECT_EQ(failure(R"({"multipleOf": 5})", "7").keyword, "multipleOf");
}

TEST(SchemaValidator, ChecksStringLengthsInCodePointsAndPatterns) {
  EXPECT_TRUE(valid(R"({"maxLength": 3})", R"("ééé")"));
  EXPECT_FALSE(valid(R"({"maxLength": 3})", R"("éééé")"));
  EXPECT_FALSE(valid(R"({"minLength": 2})", R"("a")"));
  EXPECT_TRUE(valid(R"({"pattern": "^[a-z]+$"})", R"("abc")"));
  EXPECT_FALSE(valid(R"({"pattern": "^[a-z]+$"})", R"("abc1")"));
  EXPECT_TRUE(valid(R"({"pattern": "b"})", R"("abc")"));  // not anchored
  EXPECT_EQ(failure(R"({"maxLength": 1})", R"("ab")").keyword, "maxLength");
  EXPECT_EQ(failure(R"({"pattern": "^a"})", R"("b")").schema_path, "/pattern");
}

TEST(SchemaValidator, ChecksEnumAndConst) {
  EXPECT_TRUE(valid(R"({"enum": ["red", "green", 3]})", "3.0"));
  EXPECT_FALSE(valid(R"({"enum": ["red", "green"]})", R"("blue")"));
  EXPECT_TRUE(valid(R"({"const": {"a": [1, 2]}})", R"({"a": [1, 2]})"));
  EXPECT_FALSE(valid(R"({"const": {"a": [1, 2]}})", R"({"a": [2, 1]})"));
  EXPECT_EQ(failure(R"({"enum": ["red"]})", R"("blue")").keyword, "enum");
  EXPECT_EQ(failure(R"({"const": 1})", "2").keyword, "const");
}

TEST(SchemaValidator, ChecksArrays) {
  const auto schema = R"({"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3,
                          "uniqueItems": true})";
  EXPECT_TRUE(valid(schema, "[1, 2]"));
  EXPECT_FALSE(valid(schema, "[]"));
  EXPECT_FALSE(valid(schema, "[1, 2, 3, 4]"));
  EXPECT_FALSE(valid(schema, "[1, 1]"));
  const SchemaFailure f = failure(schema, R"([1, "two"])");
  EXPECT_EQ(f.instance_path, "/1");
  EXPECT_EQ(f.schema_path, "/items/type");
  EXPECT_EQ(f.keyword, "type");
  EXPECT_EQ(failure(R"({"contains": {"const": 5}})", "[1, 2]").keyword, "contains");
}

TEST(SchemaValidator, ChecksTuplesInBothSpellings) {
  const auto modern = R"({"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false})";
  EXPECT_TRUE(valid(modern, R"(["a", 1])"));
  EXPECT_FALSE(valid(modern, R"(["a", 1, 2])"));
  EXPECT_EQ(failure(modern, R"(["a", "b"])").schema_path, "/prefixItems/1/type");
  const SchemaFailure extra = failure(modern, R"(["a", 1, 2])");
  EXPECT_EQ(extra.instance_path, "/2");
  EXPECT_EQ(extra.keyword, "items");
  const auto draft7 = R"({"$schema": "http://json-schema.org/draft-07/schema#",
                          "items": [{"type": "string"}], "additionalItems": {"type": "boolean"}})";
  EXPECT_TRUE(valid(draft7, R"(["a", true])"));
  EXPECT_EQ(failure(draft7, R"(["a", 1])").schema_path, "/additionalItems/type");
}

TEST(SchemaValidator, PointsIntoNestedObjects) {
  const auto schema = R"({"type": "object", "properties": {"address": {"type": "object",
      "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}}, "required": ["zip"]}}})";
  EXPECT_TRUE(valid(schema, R"({"address": {"zip": "12345"}})"));
  const SchemaFailure f = failure(schema, R"({"address": {"zip": "1234"}})");
  EXPECT_EQ(f.describe(), "/address/zip: fails 'pattern' (schema /properties/address/properties/zip/pattern)");
  EXPECT_EQ(failure(schema, R"({"address": {}})").schema_path, "/properties/address/required/0");
}

TEST(SchemaValidator, EscapesDeclaredNamesAsJsonPointers) {
  const auto schema = R"({"properties": {"a/b~c": {"type": "string"}}})";
  EXPECT_EQ(failure(schema, R"({"a/b~c": 1})").instance_path, "/a~1b~0c");
  EXPECT_EQ(failure(schema, R"({"a/b~c": 1})").schema_path, "/properties/a~1b~0c/type");
}

TEST(SchemaValidator, ReportsAnyOfAndOneOfAtTheirKeyword) {
  const auto any = R"({"anyOf": [{"type": "string"}, {"type": "integer"}]})";
  EXPECT_TRUE(valid(any, "1"));
  EXPECT_EQ(failure(any, "1.5").describe(), "(root): fails 'anyOf' (schema /anyOf)");
  const auto one = R"({"oneOf": [{"type": "integer"}, {"minimum": 2}]})";
  EXPECT_TRUE(valid(one, "1"));
  EXPECT_TRUE(valid(one, "2.5"));
  EXPECT_EQ(failure(one, "3").keyword, "oneOf");  // both match
  EXPECT_EQ(failure(one, "1.5").keyword, "oneOf");  // neither matches
  EXPECT_EQ(failure(R"({"not": {"type": "null"}})", "null").keyword, "not");
  EXPECT_EQ(failure(R"({"allOf": [true, {"maximum": 1}]})", "2").schema_path, "/allOf/1/maximum");
}

TEST(SchemaValidator, FollowsIfThenElse) {
  const auto schema = R"({"if": {"properties": {"kind": {"const": "card"}}},
      "then": {"required": ["number"]}, "else": {"required": ["iban"]}})";
  EXPECT_TRUE(valid(schema, R"({"kind": "card", "number": "4111"})"));
  EXPECT_TRUE(valid(schema, R"({"kind": "bank", "iban": "DE00"})"));
  EXPECT_EQ(failure(schema, R"({"kind": "card"})").schema_path, "/then/required/0");
  EXPECT_EQ(failure(schema, R"({"kind": "bank"})").schema_path, "/else/required/0");
}

TEST(SchemaValidator, FollowsLocalRefsAndPointsIntoTheirTarget) {
  const auto schema = R"({"$defs": {"positive": {"type": "number", "exclusiveMinimum": 0}},
      "properties": {"price": {"$ref": "#/$defs/positive"}, "tax": {"$ref": "#/definitions/rate"}},
      "definitions": {"rate": {"maximum": 1}}})";
  EXPECT_TRUE(valid(schema, R"({"price": 1, "tax": 0.2})"));
  EXPECT_EQ(failure(schema, R"({"price": 0})").describe(),
            "/price: fails 'exclusiveMinimum' (schema /$defs/positive/exclusiveMinimum)");
  EXPECT_EQ(failure(schema, R"({"tax": 2})").schema_path, "/definitions/rate/maximum");
}

TEST(SchemaValidator, FollowsRecursiveRefs) {
  const auto schema = R"({"type": "object", "properties": {"name": {"type": "string"},
      "children": {"type": "array", "items": {"$ref": "#"}}}, "additionalProperties": false})";
  EXPECT_TRUE(valid(schema, R"({"name": "a", "children": [{"name": "b", "children": []}]})"));
  EXPECT_EQ(failure(schema, R"({"children": [{"children": [{"name": 1}]}]})").instance_path,
            "/children/0/children/0/name");
}

TEST(SchemaValidator, AppliesRefSiblingsExceptInDraft07) {
  const auto siblings = R"({"$defs": {"list": {"type": "array"}}, "$ref": "#/$defs/list", "maxItems": 1})";
  EXPECT_FALSE(valid(siblings, "[1, 2]"));
  EXPECT_FALSE(valid(siblings, "{}"));
  const auto draft7 = R"({"$schema": "http://json-schema.org/draft-07/schema#",
      "definitions": {"list": {"type": "array"}}, "$ref": "#/definitions/list", "maxItems": 1})";
  EXPECT_TRUE(valid(draft7, "[1, 2]"));  // draft-07: siblings of $ref are ignored
  EXPECT_FALSE(valid(draft7, "{}"));
}

TEST(SchemaValidator, ChecksDependentRequiredAndDependentSchemas) {
  const auto schema = R"({"dependentRequired": {"card": ["expiry"]},
      "dependentSchemas": {"card": {"properties": {"cvv": {"type": "string"}}}}})";
  EXPECT_TRUE(valid(schema, R"({"card": "4111", "expiry": "12/30", "cvv": "123"})"));
  EXPECT_TRUE(valid(schema, R"({"cvv": 5})"));
  EXPECT_EQ(failure(schema, R"({"card": "4111"})").schema_path, "/dependentRequired/card/0");
  EXPECT_EQ(failure(schema, R"({"card": "4111", "expiry": "x", "cvv": 5})").describe(),
            "/cvv: fails 'type' (schema /dependentSchemas/card/properties/cvv/type)");
  EXPECT_EQ(failure(R"({"dependencies": {"a": ["b"]}})", R"({"a": 1})").keyword, "dependencies");
}

TEST(SchemaValidator, RendersUndeclaredPropertyNamesGenerically) {
  const SchemaFailure extra =
      failure(R"({"properties": {"a": true}, "additionalProperties": false})", R"({"a": 1, "secret": 2})");
  EXPECT_EQ(extra.describe(),
            "/<additional property>: fails 'additionalProperties' (schema /additionalProperties)");
  const SchemaFailure typed = failure(R"({"additionalProperties": {"type": "string"}})", R"({"secret": 2})");
  EXPECT_EQ(typed.instance_path, "/<additional property>");
  EXPECT_EQ(typed.schema_path, "/additionalProperties/type");
  const SchemaFailure pattern = failure(R"({"patternProperties": {"^x-": {"type": "string"}}})", R"({"x-secret": 1})");
  EXPECT_EQ(pattern.instance_path, "/<pattern property>");
  EXPECT_EQ(pattern.schema_path, "/patternProperties/^x-/type");
  const SchemaFailure names = failure(R"({"propertyNames": {"maxLength": 3}})", R"({"secret": 1})");
  EXPECT_EQ(names.describe(), "(root): fails 'maxLength' (schema /propertyNames/maxLength)");
}

// ---- no instance text in any failure -------------------------------------------

TEST(SchemaValidator, NeverPutsInstanceTextInAFailure) {
  const std::string c(kCanary);
  struct Case {
    std::string schema;
    std::string instance;
  };
  const std::vector<Case> cases = {
      {R"({"properties": {"name": {"maxLength": 3}}})", R"({"name": ")" + c + R"("})"},
      {R"({"properties": {"name": {"pattern": "^[0-9]+$"}}})", R"({"name": ")" + c + R"("})"},
      {R"({"properties": {"name": {"enum": ["a", "b"]}}})", R"({"name": ")" + c + R"("})"},
      {R"({"properties": {"name": {"const": "a"}}})", R"({"name": ")" + c + R"("})"},
      {R"({"properties": {"name": {"type": "integer"}}})", R"({"name": ")" + c + R"("})"},
      {R"({"type": "array", "items": {"type": "integer"}})", R"([1, ")" + c + R"("])"},
      {R"({"additionalProperties": false})", R"({")" + c + R"(": 1})"},
      {R"({"additionalProperties": {"type": "integer"}})", R"({")" + c + R"(": ")" + c + R"("})"},
      {R"({"additionalProperties": {"type": "object", "required": ["id"]}})", R"({")" + c + R"(": {}})"},
      {R"({"patternProperties": {"^C": {"type": "integer"}}})", R"({")" + c + R"(": ")" + c + R"("})"},
      {R"({"propertyNames": {"maxLength": 4}})", R"({")" + c + R"(": 1})"},
      {R"({"propertyNames": {"pattern": "^[a-z]+$"}})", R"({")" + c + R"(": 1})"},
      {R"({"maxProperties": 0})", R"({")" + c + R"(": 1})"},
      {R"({"anyOf": [{"type": "integer"}, {"maxLength": 1}]})", R"(")" + c + R"(")"},
      {R"({"oneOf": [{"type": "string"}, {"minLength": 1}]})", R"(")" + c + R"(")"},
      {R"({"not": {"type": "string"}})", R"(")" + c + R"(")"},
      {R"({"uniqueItems": true})", R"([")" + c + R"(", ")" + c + R"("])"},
      {R"({"contains": {"type": "integer"}})", R"([")" + c + R"("])"},
      {R"({"dependentRequired": {"a": ["b"]}})", R"({"a": ")" + c + R"("})"},
      {R"({"additionalProperties": {"additionalProperties": {"minimum": 5}}})",
       R"({")" + c + R"(": {")" + c + R"(x": 1}})"},
  };
  for (const auto& [schema, instance] : cases) {
    const auto f = check(schema, instance);
    ASSERT_TRUE(f) << schema << " should reject " << instance;
    EXPECT_FALSE(f->keyword.empty()) << schema;  // located, not the fallback
    for (const std::string& text : {f->describe(), f->instance_path, f->schema_path, f->keyword})
      EXPECT_THAT(text, Not(HasSubstr("7f3a9c"))) << schema << " with " << instance;
  }
}

TEST(SchemaValidator, DescribesAnUnlocatedFailureWithoutDetail) {
  EXPECT_EQ(SchemaFailure{}.describe(), "instance does not match the schema");
}

// ---- threads --------------------------------------------------------------------

TEST(SchemaValidator, ValidatesFromFourThreadsAtOnce) {
  const auto v = compiled(R"({"type": "object", "required": ["id"],
      "properties": {"id": {"type": "string", "pattern": "^[a-z]{3}[0-9]+$"},
                     "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}}},
      "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": false,
      "$defs": {"tag": {"type": "string", "maxLength": 8}}})");
  const std::vector<std::pair<json::value, std::string>> cases = {
      {json::parse(R"({"id": "abc1", "tags": ["a"], "x-n": 1})"), ""},
      {json::parse(R"({"id": "ab1"})"), "/id: fails 'pattern' (schema /properties/id/pattern)"},
      {json::parse(R"({"id": "abc1", "tags": ["aaaaaaaaa"]})"),
       "/tags/0: fails 'maxLength' (schema /$defs/tag/maxLength)"},
      {json::parse(R"({"id": "abc1", "x-n": "1"})"),
       "/<pattern property>: fails 'type' (schema /patternProperties/^x-/type)"},
      {json::parse(R"({"id": "abc1", "other": 1})"),
       "/<additional property>: fails 'additionalProperties' (schema /additionalProperties)"},
      {json::parse(R"({})"), "(root): fails 'required' (schema /required/0)"},
  };
  std::atomic<int> mismatches = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const auto& [instance, expected] = cases[(i + t) % cases.size()];
        const auto f = v->validate(instance);
        if ((f ? f->describe() : std::string()) != expected) ++mismatches;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace airlock::host
