// Tests for the walk (host/schema/schema_walker) over graphs the compiler
// built: which failure it names first when several hold, the numbers it
// reads as a draft does although valijson would not, and that a walk that
// cannot finish fails closed. End to end through SchemaValidator:
// schema_validator_test.
#include "schema/schema_walker.hpp"

#include "schema/schema_compiler.hpp"
#include "schema/schema_graph.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace airlock::host::schema {
namespace {

std::optional<SchemaFailure> walk(std::string_view schema, std::string_view instance) {
  auto graph = compile_graph(boost::json::parse(schema).as_object());
  if (!graph) throw std::runtime_error("unexpected refusal: " + graph.error().message);
  return first_failure(**graph, boost::json::parse(instance));
}

TEST(SchemaWalker, NamesALocationsOwnKeywordsBeforeItsApplicators) {
  // Both the allOf branch and "minimum" fail; the walk reports the leaf.
  const auto failure = walk(R"({"allOf":[{"maximum":0}],"minimum":10})", "5");
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->keyword, "minimum");
  EXPECT_EQ(failure->schema_path, "/minimum");
}

TEST(SchemaWalker, NamesApplicatorsInSchemaOrder) {
  const auto failure = walk(R"({"allOf":[{"maximum":0}],"not":{"type":"integer"}})", "5");
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->keyword, "maximum");
  EXPECT_EQ(failure->schema_path, "/allOf/0/maximum");
}

TEST(SchemaWalker, ReadsAnIntegralDoubleAsAnIntegerAndAHugeUnsignedAsANumber) {
  EXPECT_FALSE(walk(R"({"type":"integer"})", "2.0"));
  // valijson's adapter throws on a uint64; read as a double it is checked.
  EXPECT_FALSE(walk(R"({"type":"number","minimum":0})", "18446744073709551615"));
  const auto failure = walk(R"({"type":"number","maximum":10})", "18446744073709551615");
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->keyword, "maximum");
}

TEST(SchemaWalker, PointsIntoTheInstanceThroughItemsAndDeclaredProperties) {
  const auto failure =
      walk(R"({"properties":{"list":{"items":{"properties":{"n":{"type":"integer"}}}}}})", R"({"list":[{"n":1},{"n":"x"}]})");
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->instance_path, "/list/1/n");
  EXPECT_EQ(failure->schema_path, "/properties/list/items/properties/n/type");
}

TEST(SchemaWalker, FindsNothingWrongWithAValidInstance) {
  EXPECT_FALSE(walk(R"({"type":"object","required":["a"],"properties":{"a":{"enum":[1,2]}}})", R"({"a":2})"));
}

}  // namespace
}  // namespace airlock::host::schema
