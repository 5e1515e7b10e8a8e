// Tests for reading x-mcp-header annotations out of a tool's inputSchema:
// what is found (name, path, type) and every way an annotation is refused.
#include "plugins/tool_headers.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace airlock::host {
namespace {

using testing::HasSubstr;
using Path = std::vector<std::string>;

boost::json::object schema(std::string_view json) { return boost::json::parse(json).as_object(); }

std::vector<HeaderParam> found(std::string_view json) {
  auto params = header_params(schema(json));
  if (!params) throw std::runtime_error(params.error().message);
  return *params;
}

std::string refusal(std::string_view json) {
  auto params = header_params(schema(json));
  if (params) return "(accepted)";
  return params.error().message;
}

TEST(ToolHeaders, NoAnnotationsFindNothing) {
  EXPECT_TRUE(found(R"({"type":"object"})").empty());
  EXPECT_TRUE(found(R"({"type":"object","properties":{"a":{"type":"string"}}})").empty());
}

TEST(ToolHeaders, FindsTheSuiteFixtureAnnotation) {
  const auto params = found(R"({"type":"object","properties":{
      "region":{"type":"string","x-mcp-header":"Region"},
      "level":{"type":"integer"}}})");
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].name, "Region");
  EXPECT_EQ(params[0].path, Path{"region"});
  EXPECT_EQ(params[0].type, HeaderParam::Type::string);
}

TEST(ToolHeaders, KeepsSchemaOrderNamesAsWrittenAndEachType) {
  const auto params = found(R"({"type":"object","properties":{
      "region":{"type":"string","x-mcp-header":"Region"},
      "priority":{"type":"integer","x-mcp-header":"priority"},
      "verbose":{"type":"boolean","x-mcp-header":"X_Verbose.1"}}})");
  ASSERT_EQ(params.size(), 3u);
  EXPECT_EQ(params[0].name, "Region");
  EXPECT_EQ(params[1].name, "priority");
  EXPECT_EQ(params[1].type, HeaderParam::Type::integer);
  EXPECT_EQ(params[2].name, "X_Verbose.1");
  EXPECT_EQ(params[2].path, Path{"verbose"});
  EXPECT_EQ(params[2].type, HeaderParam::Type::boolean);
}

TEST(ToolHeaders, FollowsNestedProperties) {
  const auto params = found(R"({"type":"object","properties":{
      "filter":{"type":"object","properties":{
        "region":{"type":"string","x-mcp-header":"Region"},
        "deep":{"properties":{"n":{"type":"integer","x-mcp-header":"N"}}}}}}})");
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].path, (Path{"filter", "region"}));
  EXPECT_EQ(params[1].path, (Path{"filter", "deep", "n"}));
  EXPECT_EQ(params[1].type, HeaderParam::Type::integer);
}

TEST(ToolHeaders, EveryTokenCharacterIsAllowed) {
  const auto params = found(R"({"type":"object","properties":{
      "a":{"type":"string","x-mcp-header":"!#$%&'*+-.^_`|~09AZaz"}}})");
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].name, "!#$%&'*+-.^_`|~09AZaz");
}

TEST(ToolHeaders, AnEmptyNameIsRefused) {
  EXPECT_EQ(refusal(R"({"type":"object","properties":{"value":{"type":"string","x-mcp-header":""}}})"),
            "/properties/value/x-mcp-header: x-mcp-header is empty");
}

TEST(ToolHeaders, ANameThatIsNotATokenIsRefused) {
  // The suite's client-side vectors: space, colon, non-ASCII, control character.
  for (const char* name : {"My Region", "Region:Primary", "R\\u00e9gion", "Region\\t1", "a/b", "(x)", "\\u0000"}) {
    const std::string json =
        std::string(R"({"type":"object","properties":{"value":{"type":"string","x-mcp-header":")") + name + "\"}}}";
    const std::string message = refusal(json);
    EXPECT_THAT(message, HasSubstr("/properties/value/x-mcp-header: x-mcp-header '")) << name;
    EXPECT_THAT(message, HasSubstr("is not an HTTP token")) << name;
  }
  // Bytes that are not printable ASCII are spelled out, not copied into the message.
  EXPECT_THAT(refusal(R"({"type":"object","properties":{"v":{"type":"string","x-mcp-header":"Region\t1"}}})"),
              HasSubstr("'Region\\x091'"));
}

TEST(ToolHeaders, ANameThatIsNotAStringIsRefused) {
  EXPECT_EQ(refusal(R"({"type":"object","properties":{"v":{"type":"string","x-mcp-header":7}}})"),
            "/properties/v/x-mcp-header: x-mcp-header must be a string, not a number");
  EXPECT_EQ(refusal(R"({"type":"object","properties":{"v":{"type":"string","x-mcp-header":null}}})"),
            "/properties/v/x-mcp-header: x-mcp-header must be a string, not null");
  EXPECT_EQ(refusal(R"({"type":"object","properties":{"v":{"type":"string","x-mcp-header":["A"]}}})"),
            "/properties/v/x-mcp-header: x-mcp-header must be a string, not an array");
}

TEST(ToolHeaders, NamesAreUniqueIgnoringCase) {
  EXPECT_EQ(refusal(R"({"type":"object","properties":{
                "field1":{"type":"string","x-mcp-header":"Region"},
                "field2":{"type":"string","x-mcp-header":"Region"}}})"),
            "/properties/field2/x-mcp-header: x-mcp-header 'Region' repeats 'Region' of /properties/field1 "
            "(header names ignore case)");
  EXPECT_THAT(refusal(R"({"type":"object","properties":{
                  "field1":{"type":"string","x-mcp-header":"MyField"},
                  "nested":{"properties":{"field2":{"type":"integer","x-mcp-header":"myfield"}}}}})"),
              HasSubstr("/properties/nested/properties/field2/x-mcp-header: x-mcp-header 'myfield' repeats "
                        "'MyField' of /properties/field1"));
}

TEST(ToolHeaders, OnlyStringIntegerAndBooleanPropertiesMayCarryOne) {
  // The suite's vectors: object, array, null and number are refused.
  for (const char* type : {R"("object")", R"("array")", R"("null")", R"("number")"}) {
    const std::string json = std::string(R"({"type":"object","properties":{"v":{"type":)") + type +
                             R"(,"x-mcp-header":"V"}}})";
    EXPECT_EQ(refusal(json), std::string("/properties/v/x-mcp-header: x-mcp-header needs the property's \"type\" to "
                                         "be exactly \"string\", \"integer\" or \"boolean\", not ") +
                                 type);
  }
  // A list of types is not exactly one of them, even when every entry would do.
  EXPECT_THAT(refusal(R"({"type":"object","properties":{"v":{"type":["string","null"],"x-mcp-header":"V"}}})"),
              HasSubstr(R"(not ["string","null"])"));
  EXPECT_THAT(refusal(R"({"type":"object","properties":{"v":{"type":["string"],"x-mcp-header":"V"}}})"),
              HasSubstr(R"(not ["string"])"));
  EXPECT_THAT(refusal(R"({"type":"object","properties":{"v":{"x-mcp-header":"V"}}})"), HasSubstr("not missing"));
  // A $ref does not lend its target's type.
  EXPECT_THAT(refusal(R"({"type":"object","$defs":{"s":{"type":"string"}},
                          "properties":{"v":{"$ref":"#/$defs/s","x-mcp-header":"V"}}})"),
              HasSubstr("/properties/v/x-mcp-header: x-mcp-header needs the property's \"type\""));
  EXPECT_THAT(refusal(R"({"type":"object","properties":{"v":{"type":"String","x-mcp-header":"V"}}})"),
              HasSubstr(R"(not "String")"));
}

TEST(ToolHeaders, OneOnTheRootIsRefused) {
  EXPECT_EQ(refusal(R"({"type":"object","x-mcp-header":"Root"})"),
            "/x-mcp-header: x-mcp-header belongs on a property schema, not on the schema root");
}

TEST(ToolHeaders, OneOffThePropertiesRoadIsRefusedWhereverItHides) {
  struct Case {
    const char* json;
    const char* pointer;
    const char* keyword;
  };
  const Case cases[] = {
      {R"({"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"X"}}}})",
       "/properties/a/items/x-mcp-header", "items"},
      {R"({"type":"object","properties":{"a":{"type":"array","prefixItems":[{"type":"string"},{"type":"string","x-mcp-header":"X"}]}}})",
       "/properties/a/prefixItems/1/x-mcp-header", "prefixItems"},
      {R"({"type":"object","allOf":[{"properties":{"a":{"type":"string","x-mcp-header":"X"}}}]})",
       "/allOf/0/properties/a/x-mcp-header", "allOf"},
      {R"({"type":"object","anyOf":[{"type":"object"},{"properties":{"a":{"type":"string","x-mcp-header":"X"}}}]})",
       "/anyOf/1/properties/a/x-mcp-header", "anyOf"},
      {R"({"type":"object","oneOf":[{"properties":{"a":{"type":"string","x-mcp-header":"X"}}}]})",
       "/oneOf/0/properties/a/x-mcp-header", "oneOf"},
      {R"({"type":"object","properties":{"a":{"not":{"type":"string","x-mcp-header":"X"}}}})",
       "/properties/a/not/x-mcp-header", "not"},
      {R"({"type":"object","if":{"properties":{"a":{"type":"string","x-mcp-header":"X"}}}})",
       "/if/properties/a/x-mcp-header", "if"},
      {R"({"type":"object","then":{"properties":{"a":{"type":"string","x-mcp-header":"X"}}}})",
       "/then/properties/a/x-mcp-header", "then"},
      {R"({"type":"object","else":{"type":"string","x-mcp-header":"X"}})", "/else/x-mcp-header", "else"},
      {R"({"type":"object","$defs":{"r":{"type":"string","x-mcp-header":"X"}},"properties":{"a":{"$ref":"#/$defs/r"}}})",
       "/$defs/r/x-mcp-header", "$defs"},
      {R"({"type":"object","definitions":{"r":{"type":"string","x-mcp-header":"X"}}})",
       "/definitions/r/x-mcp-header", "definitions"},
      {R"({"type":"object","additionalProperties":{"type":"string","x-mcp-header":"X"}})",
       "/additionalProperties/x-mcp-header", "additionalProperties"},
      {R"({"type":"object","patternProperties":{"^a":{"type":"string","x-mcp-header":"X"}}})",
       "/patternProperties/^a/x-mcp-header", "patternProperties"},
      {R"({"type":"object","dependentSchemas":{"a":{"properties":{"b":{"type":"string","x-mcp-header":"X"}}}}})",
       "/dependentSchemas/a/properties/b/x-mcp-header", "dependentSchemas"},
      // Once off the road, "properties" does not lead back onto it.
      {R"({"type":"object","properties":{"a":{"items":{"properties":{"b":{"type":"string","x-mcp-header":"X"}}}}}})",
       "/properties/a/items/properties/b/x-mcp-header", "items"},
      // An unknown keyword is searched too.
      {R"({"type":"object","x-extra":{"deep":[{"type":"string","x-mcp-header":"X"}]}})",
       "/x-extra/deep/0/x-mcp-header", "x-extra"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(refusal(c.json), std::string(c.pointer) +
                                   ": x-mcp-header is only allowed on a property reached from the root through "
                                   "\"properties\" alone, not under \"" +
                                   c.keyword + "\"")
        << c.json;
  }
}

TEST(ToolHeaders, AMisplacedOneIsFoundEvenAfterValidOnes) {
  EXPECT_THAT(refusal(R"({"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},
                          "$defs":{"x":{"type":"integer","x-mcp-header":"Other"}}})"),
              HasSubstr("/$defs/x/x-mcp-header: x-mcp-header is only allowed"));
}

TEST(ToolHeaders, PropertiesNamedLikeKeywordsAreStillProperties) {
  const auto params = found(R"({"type":"object","properties":{
      "const":{"type":"string","x-mcp-header":"Const"},
      "x-mcp-header":{"type":"boolean","x-mcp-header":"Flag"},
      "a/b~c":{"type":"integer"}}})");
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].path, Path{"const"});
  EXPECT_EQ(params[1].path, Path{"x-mcp-header"});
  // Pointer tokens are escaped (RFC 6901).
  EXPECT_THAT(refusal(R"({"type":"object","properties":{"a/b~c":{"type":"number","x-mcp-header":"N"}}})"),
              HasSubstr("/properties/a~1b~0c/x-mcp-header:"));
}

TEST(ToolHeaders, InstanceValuesAreDataNotAnnotations) {
  // const, enum, default and examples hold instances: a key called x-mcp-header there is data.
  const auto params = found(R"({"type":"object",
      "default":{"x-mcp-header":"NotOne"},
      "examples":[{"x-mcp-header":"NotOne"}],
      "properties":{"a":{"type":"object","const":{"x-mcp-header":"NotOne"},"enum":[{"x-mcp-header":"NotOne"}]}}})");
  EXPECT_TRUE(params.empty());
}

TEST(ToolHeaders, ABooleanSubschemaIsFine) {
  EXPECT_TRUE(found(R"({"type":"object","properties":{"a":true,"b":false},"additionalProperties":false})").empty());
}

TEST(ToolHeaders, AHandBuiltSchemaTooDeepIsRefusedNotRecursedWithoutEnd) {
  boost::json::object deep{{"type", "string"}};
  for (int i = 0; i < 300; ++i) deep = boost::json::object{{"items", std::move(deep)}};
  auto params = header_params(boost::json::object{{"type", "object"}, {"properties", {{"a", std::move(deep)}}}});
  ASSERT_FALSE(params);
  EXPECT_THAT(params.error().message, HasSubstr("the schema nests deeper than 256 levels"));
}

}  // namespace
}  // namespace airlock::host
