// Bearer-token authentication for the HTTP transport (RFC 6750): which
// configured identity, if any, an Authorization header stands for, and
// which tools that identity may list and call.
#pragma once

#include "auth/identity.hpp"
#include "config/host_config.hpp"
#include "util/sha256.hpp"

#include <memory>

#include <string>
#include <string_view>
#include <vector>

namespace airlock::host::http {

// The token of an `Authorization: Bearer <token>` header value (empty when
// absent), the scheme in any case: ok with the token, or why there is none.
// Static tokens and OAuth access tokens are both read through here.
struct BearerCredentials {
  enum class Verdict { ok, missing, malformed } verdict;
  std::string_view token;  // ok only; a view into the header
};
BearerCredentials bearer_credentials(std::string_view authorization_header);

// Built once at start from [[transport.http.tokens]]; afterwards read-only,
// so any I/O thread may call it without a lock.
class Authenticator {
 public:
  explicit Authenticator(const std::vector<TokenConfig>& tokens);

  // False when no tokens are configured: every request is then let in, as
  // nobody in particular.
  bool enabled() const { return !identities_.empty(); }

  enum class Verdict {
    ok,         // a configured token; or authentication is off
    missing,    // no Authorization header, or one with another scheme (RFC 6750 3.1: no error code)
    malformed,  // "Bearer" with no token, or one outside RFC 6750's b64token syntax
    invalid,    // a well-formed token that is not configured
  };
  struct Outcome {
    Verdict verdict;
    std::shared_ptr<const Identity> identity;  // set only when ok and enabled(); one of identities()
  };

  // `authorization_header` is the header's value, empty when absent:
  // "Bearer <token>", the scheme in any case. The token is hashed and the
  // digest compared with every configured one in constant time, so neither
  // the timing nor a log line reveals a token or which digest came close.
  Outcome authenticate(std::string_view authorization_header) const;
  // The same for a token already read from the header (bearer_credentials).
  Outcome match(std::string_view token) const;

  const std::vector<std::shared_ptr<const Identity>>& identities() const { return identities_; }

 private:
  std::vector<std::shared_ptr<const Identity>> identities_;
  std::vector<Sha256Digest> digests_;  // digests_[i] is identities_[i]'s token
};

// The WWW-Authenticate value for a 401 answering `verdict` (RFC 6750 3):
// `Bearer realm="airlock"`, plus `error="invalid_token"` when a token was
// presented (malformed or invalid), which tells a client that asking again
// with the same token will not help.
std::string www_authenticate(Authenticator::Verdict verdict);

}  // namespace airlock::host::http
