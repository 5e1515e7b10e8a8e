// The error type that expected failures carry across host units.
#pragma once

#include <boost/system/result.hpp>

#include <string>
#include <utility>

namespace airlock::host {

// An expected failure: bad config, an unloadable plugin, malformed input.
// The message follows the house form: subject first, lowercase, no period,
// e.g. "plugins/redact.so: abi 2.0 is not loadable by host 1.0".
struct Error {
  std::string message;
};

template <class T>
using Result = boost::system::result<T, Error>;

}  // namespace airlock::host

// boost::system::result needs to know how to throw an Error from value().
namespace airlock::host {
[[noreturn]] inline void throw_exception_from_error(const Error& e, const boost::source_location&) {
  throw std::runtime_error(e.message);
}
}  // namespace airlock::host
