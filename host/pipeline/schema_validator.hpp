// A tool's inputSchema or outputSchema, compiled once when the plugin
// registers and checked on every call. schema_validator.cpp opens with what
// is accepted, what is refused and why.
#pragma once

#include "util/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <memory>
#include <optional>
#include <string>

namespace airlock::host {

// Where an instance first failed its schema: locations and the keyword, never
// a value from the instance, so the text can go to the client and the log as
// it is. An instance path names a property only when the schema declares that
// name (under "properties"); any other property is "<additional property>" or
// "<pattern property>", because its name is client text and may hold a secret.
struct SchemaFailure {
  std::string instance_path;  // JSON pointer into the instance, e.g. "/age"; "" is the whole instance
  std::string schema_path;    // JSON pointer into the schema, e.g. "/properties/age/minimum"
  std::string keyword;        // e.g. "minimum"; empty when the failure could not be located

  // "/age: fails 'minimum' (schema /properties/age/minimum)"; "(root)" stands for "".
  std::string describe() const;
};

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

  struct Compiled;  // defined in the .cpp: keeps valijson out of this header

 private:
  explicit SchemaValidator(std::unique_ptr<Compiled> compiled);

  std::unique_ptr<Compiled> compiled_;
};

}  // namespace airlock::host
