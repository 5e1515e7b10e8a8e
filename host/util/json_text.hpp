// Serializing Boost.JSON values onto the end of a string. boost::json::
// serialize() grows its result with resize(), zero-filling every byte before
// writing it; on a 256 KiB result that is a second pass over memory for
// nothing. Appending also lets a caller put the JSON-RPC envelope around a
// result without copying the result again.
#pragma once

#include <boost/json/serializer.hpp>
#include <boost/json/value.hpp>

#include <string>

namespace airlock::host {

template <class T>
void append_json(std::string& out, const T& value) {
  boost::json::serializer sr;
  sr.reset(&value);
  char buffer[16 * 1024];
  while (!sr.done()) out.append(sr.read(buffer, sizeof buffer));
}

template <class T>
std::string to_json(const T& value) {
  std::string out;
  append_json(out, value);
  return out;
}

}  // namespace airlock::host
