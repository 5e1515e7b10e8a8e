// Arguments for a tool, generated from its inputSchema: the empty object
// first, then a minimal instance (required properties only), a full one
// (every property) and seeded random ones whose strings come from the
// hostile corpus. Only what validates against the schema is kept, except
// the empty object, which every tool must survive.
#pragma once

#include "check/corpus.hpp"
#include "schema/schema_validator.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace airlock::host::check {

struct GeneratedArguments {
  std::string json;    // compact JSON text of an object
  bool valid = false;  // validates against the inputSchema
};

// At most `count` argument objects, "{}" first, no two alike.
std::vector<GeneratedArguments> generate_arguments(const boost::json::object& input_schema,
                                                   const SchemaValidator& validator, Prng& prng, std::size_t count);

}  // namespace airlock::host::check
