#include "schema/schema_validator.hpp"

#include "schema/schema_compiler.hpp"
#include "schema/schema_graph.hpp"
#include "schema/schema_walker.hpp"

namespace airlock::host {

SchemaValidator::SchemaValidator(std::unique_ptr<const schema::SchemaGraph> graph) : graph_(std::move(graph)) {}
SchemaValidator::~SchemaValidator() = default;

Result<std::shared_ptr<const SchemaValidator>> SchemaValidator::compile(const boost::json::object& schema) {
  auto graph = schema::compile_graph(schema);
  if (!graph) return graph.error();
  return std::shared_ptr<const SchemaValidator>(new SchemaValidator(std::move(*graph)));
}

std::optional<SchemaFailure> SchemaValidator::validate(const boost::json::value& instance) const {
  return schema::first_failure(*graph_, instance);
}

}  // namespace airlock::host
