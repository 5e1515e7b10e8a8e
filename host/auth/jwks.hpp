// A JSON Web Key Set (RFC 7517 5): the public keys an authorization server
// signs access tokens with. Parsed once per fetch; afterwards read-only, so
// any thread may verify with it.
#pragma once

#include "util/error.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host {

// One public key, as cjose holds it. Only signature keys of the asymmetric
// kinds (RSA, EC) are kept: a set's "oct" or "enc" keys never verify a token.
struct VerificationKey {
  std::string kid;  // may be empty
  std::string kty;  // "RSA" | "EC"
  std::string crv;  // EC: "P-256" | "P-384" | "P-521"
  std::string alg;  // as published; empty: any algorithm of its kind
  std::shared_ptr<void> jwk;  // a cjose_jwk_t, released with it

  // True when a token signed with `alg` may be checked with this key: the
  // kind matches (RS and PS: RSA; ES256/384/512: EC on P-256/384/521), and
  // so does the published alg when there is one.
  bool fits(std::string_view alg) const;
};

class KeySet {
 public:
  // A {"keys":[...]} document. Keys it cannot use are skipped (another kind,
  // another use, a malformed member: one bad key does not void the set); an
  // error only when the document is not a key set or no key is usable, or a
  // kid appears twice.
  static Result<KeySet> parse(std::string_view document);

  // The keys a token whose header names `kid` (empty: none) and `alg` may be
  // verified with: the one with that kid; without a kid, every one that fits.
  std::vector<const VerificationKey*> candidates(std::string_view kid, std::string_view alg) const;
  bool has_kid(std::string_view kid) const;
  std::size_t size() const { return keys_.size(); }

 private:
  std::vector<VerificationKey> keys_;
};

}  // namespace airlock::host
