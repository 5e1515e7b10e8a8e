// A tool's JSON Schema compiled into the graph the walk runs on. What is
// checked, what is only an annotation and what is refused, and why: the top
// of schema_compiler.cpp.
#pragma once

#include "util/error.hpp"

#include <boost/json/object.hpp>

#include <memory>

namespace airlock::host::schema {

struct SchemaGraph;

// Called on the registering thread. Errors name the problem and where it is
// in the schema: a malformed keyword, a keyword airlock cannot check ("uses
// keyword 'unevaluatedProperties', which airlock cannot check (at
// /properties/x)"), a $ref that leaves this schema, an unknown $schema.
Result<std::unique_ptr<const SchemaGraph>> compile_graph(const boost::json::object& schema);

}  // namespace airlock::host::schema
