// Tests for the schema compiler (host/schema/schema_compiler): the graph it
// builds, one Node per schema location, each with its keywords' Checks in
// the order the walk relies on, a local $ref sharing its target's Node, and
// its refusals. What the walk makes of the graph: schema_walker_test; the
// two together, end to end: schema_validator_test.
#include "schema/schema_compiler.hpp"

#include "schema/schema_graph.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host::schema {
namespace {

using testing::ElementsAre;
using testing::HasSubstr;

std::unique_ptr<const SchemaGraph> graph_of(std::string_view schema) {
  auto graph = compile_graph(boost::json::parse(schema).as_object());
  if (!graph) throw std::runtime_error("unexpected refusal: " + graph.error().message);
  return std::move(*graph);
}

std::vector<std::string> keywords(const Node& node) {
  std::vector<std::string> out;
  for (const Check& c : node.checks) out.push_back(c.keyword);
  return out;
}

const Check& check_named(const Node& node, std::string_view keyword) {
  for (const Check& c : node.checks)
    if (c.keyword == keyword) return c;
  throw std::runtime_error("no check " + std::string(keyword));
}

TEST(SchemaCompiler, PutsTypeFirstAndKeepsTheOtherKeywordsInSchemaOrder) {
  const auto graph = graph_of(R"({"minProperties":1,"required":["a"],"type":"object","not":{"required":["b"]}})");
  ASSERT_NE(graph->root, nullptr);
  EXPECT_EQ(graph->root->path, "");
  EXPECT_THAT(keywords(*graph->root), ElementsAre("type", "minProperties", "required", "not"));
  EXPECT_EQ(check_named(*graph->root, "not").kind, CheckKind::negation);
  EXPECT_EQ(check_named(*graph->root, "not").path, "/not");
}

TEST(SchemaCompiler, GroupsPropertiesWithTheirPatternsAndAdditionalPropertiesAsOneCheck) {
  const auto graph = graph_of(
      R"({"properties":{"a/b":{"type":"string"}},"patternProperties":{"^x":{}},"additionalProperties":false})");
  ASSERT_EQ(graph->root->checks.size(), 1u);
  const Check& members = graph->root->checks.front();
  EXPECT_EQ(members.kind, CheckKind::members);
  ASSERT_EQ(members.members.size(), 2u);
  EXPECT_EQ(members.members[0].name, "a/b");
  EXPECT_EQ(members.members[0].escaped, "a~1b");
  EXPECT_EQ(members.members[0].schema->path, "/properties/a~1b");
  EXPECT_NE(members.members[1].regex, nullptr);
  ASSERT_NE(members.rest, nullptr);
  EXPECT_EQ(members.rest->constant, std::optional<bool>(false));
}

TEST(SchemaCompiler, GivesALocalRefItsTargetsNodeRatherThanACopy) {
  const auto graph = graph_of(
      R"({"$defs":{"name":{"type":"string","minLength":1}},"properties":{"a":{"$ref":"#/$defs/name"},"b":{"$ref":"#/$defs/name"}}})");
  const Check& members = check_named(*graph->root, "properties");
  ASSERT_EQ(members.members.size(), 2u);
  const Node* a = check_named(*members.members[0].schema, "$ref").subs.at(0);
  const Node* b = check_named(*members.members[1].schema, "$ref").subs.at(0);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a->path, "/$defs/name");
}

TEST(SchemaCompiler, BundlesANodesValijsonLeavesOnlyWhenItHasTwoOrMore) {
  const auto graph = graph_of(
      R"({"type":"object","properties":{"one":{"type":"integer","minimum":0},"two":{"type":"integer","minimum":0,"maximum":9}}})");
  const Check& members = check_named(*graph->root, "properties");
  EXPECT_EQ(members.members[0].schema->leaves, nullptr);
  EXPECT_NE(members.members[1].schema->leaves, nullptr);
  for (const Check& c : members.members[1].schema->checks) {
    if (c.kind == CheckKind::leaf) {
      EXPECT_NE(c.alone, nullptr) << c.keyword;
    }
  }
}

TEST(SchemaCompiler, ChecksTypeAndRequiredItselfWithoutValijson) {
  const auto graph = graph_of(R"({"type":["object","null"],"required":["a"],"properties":{"a":{"type":"string"}}})");
  const Check& type = check_named(*graph->root, "type");
  EXPECT_EQ(type.kind, CheckKind::type);
  EXPECT_EQ(type.alone, nullptr);
  EXPECT_EQ(type.types, type_bit("object") | type_bit("null"));
  EXPECT_EQ(check_named(*graph->root, "required").kind, CheckKind::required);
  EXPECT_EQ(graph->root->leaves, nullptr);
}

TEST(SchemaCompiler, RefusesNamingTheKeywordAndWhereItIs) {
  auto refused = compile_graph(boost::json::parse(R"({"properties":{"x":{"unevaluatedProperties":false}}})").as_object());
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("unevaluatedProperties"));
  EXPECT_THAT(refused.error().message, HasSubstr("/properties/x"));
}

}  // namespace
}  // namespace airlock::host::schema
