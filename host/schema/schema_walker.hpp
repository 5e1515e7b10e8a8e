// An instance walked through a compiled schema graph, up to its first
// failure. How the walk runs, and why it is ours rather than valijson's: the
// top of schema_walker.cpp.
#pragma once

#include "schema/schema_failure.hpp"

#include <boost/json/value.hpp>

#include <optional>

namespace airlock::host::schema {

struct SchemaGraph;

// Any thread, any number at once. Nothing when `instance` is valid;
// otherwise the first failure found: the simple keywords of a schema
// location (type first) before its applicators, applicators in schema
// order. An internal failure fails closed, with nothing located.
std::optional<SchemaFailure> first_failure(const SchemaGraph& graph, const boost::json::value& instance);

}  // namespace airlock::host::schema
