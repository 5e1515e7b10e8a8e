// Bearer-token authentication: parsing the Authorization header and finding
// the identity whose token digest matches, without leaking through timing.
#include "transport/http/auth.hpp"

#include "util/ascii.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstddef>

namespace airlock::host::http {
namespace {

// Far longer than any token an operator generates; a longer one is refused
// before it is hashed, so a client cannot make each request cost more.
constexpr std::size_t kMaxTokenBytes = 16 * 1024;  // OAuth access tokens run to a few KiB

bool is_space(char c) { return c == ' ' || c == '\t'; }

}  // namespace

Authenticator::Authenticator(const std::vector<TokenConfig>& tokens) {
  identities_.reserve(tokens.size());
  digests_.reserve(tokens.size());
  for (const auto& token : tokens) {
    auto identity = std::make_shared<Identity>();
    identity->name = token.identity;
    identity->tools.globs = token.tools;
    identity->tools.everything = token.tools.empty();
    identities_.push_back(std::move(identity));
    digests_.push_back(token.sha256);
  }
}

BearerCredentials bearer_credentials(std::string_view header) {
  // credentials = auth-scheme 1*SP token68 (RFC 9110 11.4), with the
  // optional whitespace around a field value tolerated.
  while (!header.empty() && is_space(header.front())) header.remove_prefix(1);
  while (!header.empty() && is_space(header.back())) header.remove_suffix(1);
  if (header.empty()) return {BearerCredentials::Verdict::missing, {}};
  const auto scheme_end = std::find_if(header.begin(), header.end(), is_space);
  const std::string_view scheme(header.data(), static_cast<std::size_t>(scheme_end - header.begin()));
  if (!iequals(scheme, "bearer")) return {BearerCredentials::Verdict::missing, {}};
  std::string_view token = header.substr(scheme.size());
  while (!token.empty() && is_space(token.front())) token.remove_prefix(1);
  if (token.size() > kMaxTokenBytes || !is_bearer_token(token)) return {BearerCredentials::Verdict::malformed, {}};
  return {BearerCredentials::Verdict::ok, token};
}

Authenticator::Outcome Authenticator::authenticate(std::string_view header) const {
  if (!enabled()) return {Verdict::ok, nullptr};
  const auto credentials = bearer_credentials(header);
  switch (credentials.verdict) {
    case BearerCredentials::Verdict::missing: return {Verdict::missing, nullptr};
    case BearerCredentials::Verdict::malformed: return {Verdict::malformed, nullptr};
    case BearerCredentials::Verdict::ok: break;
  }
  return match(credentials.token);
}

Authenticator::Outcome Authenticator::match(std::string_view token) const {
  // Every digest is compared, and the match is kept without a branch on
  // it, so the time taken does not depend on which one (if any) matched.
  const Sha256Digest presented = sha256(token);
  std::size_t match = identities_.size();
  for (std::size_t i = 0; i < digests_.size(); ++i) {
    const std::size_t equal = sodium_memcmp(presented.data(), digests_[i].data(), presented.size()) == 0;
    match = equal * i + (1 - equal) * match;
  }
  if (match == identities_.size()) return {Verdict::invalid, nullptr};
  return {Verdict::ok, identities_[match]};
}

std::string www_authenticate(Authenticator::Verdict verdict) {
  switch (verdict) {
    case Authenticator::Verdict::malformed:
    case Authenticator::Verdict::invalid:
      return R"(Bearer realm="airlock", error="invalid_token")";
    case Authenticator::Verdict::ok:
    case Authenticator::Verdict::missing:
      break;
  }
  return R"(Bearer realm="airlock")";
}

}  // namespace airlock::host::http
