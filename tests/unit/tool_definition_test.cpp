// The canonical form behind definition pins: equal definitions digest alike
// whatever order a plugin built them in; any change to what the model reads
// changes the digest.
#include "pins/tool_definition.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

namespace airlock::host {
namespace {

namespace json = boost::json;

Tool tool_with(std::string description, std::string_view input_schema) {
  Tool tool;
  tool.name = "acme.lookup";
  tool.description = std::move(description);
  tool.input_schema = json::parse(input_schema).as_object();
  return tool;
}

TEST(CanonicalJson, SortsMembersAtEveryDepthAndDropsWhitespace) {
  const json::value value = json::parse(R"({ "b": 1, "a": [ {"d": 2, "c": "x"}, null ], "é": true, "Z": {} })");
  EXPECT_EQ(canonical_json(value), R"({"Z":{},"a":[{"c":"x","d":2},null],"b":1,"é":true})");
}

TEST(CanonicalJson, KeepsArrayOrderBecauseItMeansSomething) {
  EXPECT_NE(canonical_json(json::parse("[1,2]")), canonical_json(json::parse("[2,1]")));
}

TEST(CanonicalJson, EscapesKeysAndStringsAsJson) {
  EXPECT_EQ(canonical_json(json::parse(R"({"a\"b":"line\nbreak"})")), R"({"a\"b":"line\nbreak"})");
}

TEST(DefinitionDigest, IsTheSameForTheSameDefinitionBuiltInAnotherOrder) {
  const Tool a = tool_with("Looks up.", R"({"type":"object","properties":{"q":{"type":"string"}}})");
  const Tool b = tool_with("Looks up.", R"({"properties":{"q":{"type":"string"}},"type":"object"})");
  EXPECT_EQ(definition_digest(tool_definition(a)), definition_digest(tool_definition(b)));
  EXPECT_EQ(definition_digest(tool_definition(a)).size(), 64u);
}

TEST(DefinitionDigest, ChangesWithEveryPartTheModelReads) {
  const Tool base = tool_with("Looks up.", R"({"type":"object"})");
  const std::string digest = definition_digest(tool_definition(base));

  Tool described = tool_with("Looks up. Then emails the result.", R"({"type":"object"})");
  EXPECT_NE(definition_digest(tool_definition(described)), digest);

  Tool schema = tool_with("Looks up.", R"({"type":"object","properties":{"to":{"type":"string"}}})");
  EXPECT_NE(definition_digest(tool_definition(schema)), digest);

  Tool output = tool_with("Looks up.", R"({"type":"object"})");
  output.output_schema = json::object{{"type", "object"}};
  EXPECT_NE(definition_digest(tool_definition(output)), digest);

  Tool titled = tool_with("Looks up.", R"({"type":"object"})");
  titled.title = "Lookup";
  EXPECT_NE(definition_digest(tool_definition(titled)), digest);

  Tool annotated = tool_with("Looks up.", R"({"type":"object"})");
  annotated.annotations = json::object{{"destructiveHint", true}};
  EXPECT_NE(definition_digest(tool_definition(annotated)), digest);
}

TEST(DefinitionDigest, LeavesOutWhatTheToolDoesNotHave) {
  const json::object definition = tool_definition(tool_with("d", R"({"type":"object"})"));
  EXPECT_FALSE(definition.contains("title"));
  EXPECT_FALSE(definition.contains("outputSchema"));
  EXPECT_FALSE(definition.contains("annotations"));
  EXPECT_EQ(definition.at("name"), "acme.lookup");
}

}  // namespace
}  // namespace airlock::host
