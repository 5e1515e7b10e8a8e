// Where an instance first failed its schema: what SchemaValidator::validate
// answers, and what the walk (schema_walker.cpp) writes.
#pragma once

#include <string>

namespace airlock::host {

// Locations and the keyword, never a value from the instance, so the text
// can go to the client and the log as it is. An instance path names a
// property only when the schema declares that name (under "properties"); any
// other property is "<additional property>" or "<pattern property>", because
// its name is client text and may hold a secret.
struct SchemaFailure {
  std::string instance_path;  // JSON pointer into the instance, e.g. "/age"; "" is the whole instance
  std::string schema_path;    // JSON pointer into the schema, e.g. "/properties/age/minimum"
  std::string keyword;        // e.g. "minimum"; empty when the failure could not be located

  // "/age: fails 'minimum' (schema /properties/age/minimum)"; "(root)" stands for "".
  std::string describe() const;
};

}  // namespace airlock::host
