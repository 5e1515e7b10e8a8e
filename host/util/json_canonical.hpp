// Canonical JSON: one text for every equal value, whatever order its members
// were built in. Pins digest tool definitions with it and MRTR binds a
// requestState to the request's params with it, so both must agree forever.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>

namespace airlock::host {

// Object members sorted by key (bytewise on UTF-8, which is code-point
// order), no insignificant whitespace, strings and numbers as Boost.JSON
// writes them.
std::string canonical_json(const boost::json::value& value);
std::string canonical_json(const boost::json::object& object);

// Whether every object in `value` already has its members in canonical
// order, so that its ordinary serialization is its canonical JSON: a
// caller that holds that text hashes it as it is instead of writing it
// again. A walk of the keys; nothing is allocated.
bool serializes_canonically(const boost::json::value& value) noexcept;

}  // namespace airlock::host
