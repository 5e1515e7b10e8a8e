#include "auth/identity.hpp"

#include "config/host_config.hpp"

#include <algorithm>

namespace airlock::host {

bool Grant::allows(std::string_view name) const {
  return everything ||
         std::any_of(globs.begin(), globs.end(), [name](const std::string& glob) { return glob_match(glob, name); });
}

}  // namespace airlock::host
