// The HTTP transport as an OAuth 2.1 resource server ([auth.oauth]): an
// access token in, the identity it stands for and the tools its scopes
// grant out. Tokens are checked locally (access_token.hpp) against keys each
// issuer publishes (issuer_keys.hpp); a token already verified is
// remembered by digest until it expires, so a client that sends the same
// token with every request pays for one signature check.
#pragma once

#include "auth/access_token.hpp"
#include "auth/identity.hpp"
#include "auth/issuer_keys.hpp"
#include "config/host_config.hpp"
#include "egress/fetcher.hpp"
#include "util/sha256.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host {

class OAuthAuthenticator {
 public:
  // `config` outlives this. Fetches nothing until prefetch() or a token.
  explicit OAuthAuthenticator(const Config& config);
  ~OAuthAuthenticator();

  bool enabled() const { return config_.enabled; }

  struct Outcome {
    std::shared_ptr<const Identity> identity;  // set when the token is good
    std::string reason;                        // otherwise why not, safe to send and log
  };
  // `token` is the Authorization header's token; `resource` the identifier
  // the request is served as (protected_resource.hpp). Thread-safe; may
  // block while an issuer's keys are fetched.
  Outcome authenticate(std::string_view token, std::string_view resource) const;

  // The scopes that grant the tool, resource URI or prompt `name`,
  // space-separated in name order, for a 403's scope="..."; empty when no
  // scope does.
  enum class GrantKind { tool, resource, prompt };
  std::string scopes_granting(GrantKind kind, std::string_view name) const;

  // Fetches every issuer's keys now (at start, off the I/O threads).
  void prefetch() const;

 private:
  std::shared_ptr<const Identity> identity_for(const AccessToken& token) const;
  std::shared_ptr<const KeySet> keys_of(std::string_view issuer, std::string_view kid) const;

  const OAuthConfig& config_;
  Fetcher fetcher_;
  TokenRules rules_;
  std::vector<std::unique_ptr<IssuerKeys>> issuers_;

  struct Remembered {
    std::shared_ptr<const Identity> identity;
    std::string audience;
    std::chrono::steady_clock::time_point until;
  };
  mutable std::mutex remembered_mutex_;
  mutable std::map<Sha256Digest, Remembered> remembered_;
};

}  // namespace airlock::host
