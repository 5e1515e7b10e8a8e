// Checking a JWT access token (RFC 9068) locally: its JWS signature against
// the issuer's published keys (RFC 7515, through cjose), then the claims
// that make it a token for this resource, now.
#pragma once

#include "auth/jwks.hpp"
#include "util/error.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host {

// What a verified token says about its bearer.
struct AccessToken {
  std::string issuer;
  std::string subject;    // sub
  std::string client_id;  // empty when the token has none
  std::vector<std::string> scopes;  // `scope` split on spaces, or an `scp` array
  std::chrono::system_clock::time_point expires;  // exp, the leeway not added
};

struct TokenRules {
  std::vector<std::string> issuers;     // `iss` must be one of them, exactly
  std::string audience;                 // `aud` must name it (a string, or an array holding it)
  std::vector<std::string> algorithms;  // accepted JWS algorithms; never "none" or HS*
  std::chrono::seconds leeway{60};      // on exp and nbf
};

// The key set an issuer's token with header `kid` is checked against; may
// block while the keys are fetched. Null when they cannot be had.
using KeyLookup = std::function<std::shared_ptr<const KeySet>(std::string_view issuer, std::string_view kid)>;

// The token's claims when its signature verifies and it is valid for
// `rules` at `now`; otherwise an error in the host's words ("expired", "the
// signature does not verify"...), safe to log and to send as an RFC 6750
// error_description: it never quotes the token.
Result<AccessToken> verify_access_token(std::string_view token, const TokenRules& rules, const KeyLookup& keys,
                                        std::chrono::system_clock::time_point now);

}  // namespace airlock::host
