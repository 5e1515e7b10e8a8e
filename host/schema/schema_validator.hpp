// A tool's inputSchema or outputSchema, compiled once when the plugin
// registers and checked on every call: the face of host/schema/. The
// compiler (schema_compiler.cpp) opens with what is accepted, what is
// refused and why; the walk (schema_walker.cpp) with how an instance is
// checked.
#pragma once

#include "schema/schema_failure.hpp"
#include "util/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <memory>
#include <optional>

namespace airlock::host {

namespace schema {
struct SchemaGraph;
}

// A compiled JSON Schema (draft-07, 2019-09 or 2020-12). Immutable once
// compiled: validate() may run on many threads at once.
class SchemaValidator {
 public:
  // Called on the registering thread. Errors name the problem and where it is
  // in the schema: a malformed keyword, a keyword airlock cannot check ("uses
  // keyword 'unevaluatedProperties', which airlock cannot check (at
  // /properties/x)"), a $ref that leaves this schema, an unknown $schema.
  static Result<std::shared_ptr<const SchemaValidator>> compile(const boost::json::object& schema);

  // Called on any thread. Nothing when `instance` is valid; otherwise the
  // first failure found: the simple keywords of a schema location (type
  // first) before its applicators, applicators in schema order.
  std::optional<SchemaFailure> validate(const boost::json::value& instance) const;

  ~SchemaValidator();
  SchemaValidator(const SchemaValidator&) = delete;
  SchemaValidator& operator=(const SchemaValidator&) = delete;

 private:
  explicit SchemaValidator(std::unique_ptr<const schema::SchemaGraph> graph);

  std::unique_ptr<const schema::SchemaGraph> graph_;
};

}  // namespace airlock::host
