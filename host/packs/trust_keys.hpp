// [trust] as the pack checks use it: the keys decoded once, at startup,
// before any plugin loads, so a bad key is a config error naming its place.
#pragma once

#include "config/host_config.hpp"
#include "packs/minisign.hpp"
#include "util/error.hpp"

#include <string>
#include <vector>

namespace airlock::host {

struct TrustPolicy {
  std::vector<minisign::PublicKey> keys;
  bool require_signed = false;

  const minisign::PublicKey* find(const minisign::KeyId& id) const;
};

// Decodes every [trust] keys entry. Errors read
// "<file>:<line>:<column>: trust.keys[<i>]: <what>".
Result<TrustPolicy> trust_policy(const TrustConfig& trust);

}  // namespace airlock::host
