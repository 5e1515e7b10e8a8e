// What a tool tells the model about itself, as one canonical JSON text and
// its digest: the thing a pin records, so that any change to it is seen.
#pragma once

#include "plugins/plugin_types.hpp"
#include "util/json_canonical.hpp"  // canonical_json, which pins and their callers use

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>

namespace airlock::host {

// The definition as tools/list shows it: name, title, description,
// inputSchema, outputSchema and annotations (the last three only when the
// tool has them). The issue asks for name, description and the schemas;
// title and annotations reach the model too, so they are pinned as well.
boost::json::object tool_definition(const Tool& tool);

// SHA-256 of the canonical definition, as 64 lowercase hex digits.
std::string definition_digest(const boost::json::object& definition);

}  // namespace airlock::host
