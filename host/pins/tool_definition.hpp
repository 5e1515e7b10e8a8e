// What a tool tells the model about itself, as one canonical JSON text and
// its digest: the thing a pin records, so that any change to it is seen.
#pragma once

#include "plugins/plugin_types.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>

namespace airlock::host {

// The definition as tools/list shows it: name, title, description,
// inputSchema, outputSchema and annotations (the last three only when the
// tool has them). The issue asks for name, description and the schemas;
// title and annotations reach the model too, so they are pinned as well.
boost::json::object tool_definition(const Tool& tool);

// Canonical JSON: object members sorted by key (bytewise on UTF-8, which is
// code-point order), no insignificant whitespace, strings and numbers as
// Boost.JSON writes them. Two equal values give the same text, whatever the
// order a plugin built them in.
std::string canonical_json(const boost::json::value& value);

// SHA-256 of the canonical definition, as 64 lowercase hex digits.
std::string definition_digest(const boost::json::object& definition);

}  // namespace airlock::host
