#include "packs/trust_keys.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace airlock::host {

const minisign::PublicKey* TrustPolicy::find(const minisign::KeyId& id) const {
  auto it = std::find_if(keys.begin(), keys.end(), [&](const minisign::PublicKey& k) { return k.id == id; });
  return it == keys.end() ? nullptr : &*it;
}

Result<TrustPolicy> trust_policy(const TrustConfig& trust) {
  TrustPolicy policy;
  policy.require_signed = trust.require_signed;
  for (std::size_t i = 0; i < trust.keys.size(); ++i) {
    const TrustedKey& entry = trust.keys[i];
    // The config names the entry (and the .pub file it read, if any).
    const std::string name = entry.place.key.empty() ? fmt::format("trust.keys[{}]", i) : entry.place.key;
    auto key = minisign::parse_public_key(entry.text);
    if (!key) return Error{fmt::format("{}: {}: {}", entry.place.describe(), name, key.error().message)};
    if (policy.find(key->id))
      return Error{fmt::format("{}: {}: key {} is listed twice", entry.place.describe(), name,
                               minisign::key_id_text(key->id))};
    policy.keys.push_back(*key);
  }
  return policy;
}

}  // namespace airlock::host
