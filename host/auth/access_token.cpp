// The order is the one that keeps an unverified byte from deciding anything
// but which key to try: the header's alg is held to the accepted list before
// any key is looked at, the issuer picks the key set, the signature is
// verified, and only then are the claims read as facts.
#include "auth/access_token.hpp"

#include "util/crypto.hpp"
#include "util/strict_json.hpp"

#include <boost/json/parse_options.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

namespace airlock::host {
namespace json = boost::json;
namespace {

// Larger than any access token an authorization server issues (a header of
// certificates would be an abuse); a larger one is refused before parsing.
constexpr std::size_t kMaxTokenBytes = 16 * 1024;

bool is_base64url(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

// header.payload.signature, each base64url without padding, and of a length
// base64url can have (never 4n+1): checked before cjose decodes them, as
// cjose asserts on some malformed input instead of refusing it.
bool is_compact_jws(std::string_view token) {
  if (std::count(token.begin(), token.end(), '.') != 2) return false;
  std::size_t segment = 0;
  for (const char c : token) {
    if (c == '.') {
      if (segment % 4 == 1) return false;
      segment = 0;
    } else if (!is_base64url(c)) {
      return false;
    } else {
      ++segment;
    }
  }
  return segment % 4 != 1;
}

// A NumericDate (RFC 7519 2), as seconds since the epoch.
std::optional<double> numeric_date(const json::object& claims, std::string_view name) {
  const auto* value = claims.if_contains(name);
  if (!value || !value->is_number()) return std::nullopt;
  const double seconds = value->to_number<double>();
  if (!std::isfinite(seconds)) return std::nullopt;
  return seconds;
}

bool names_audience(const json::value* aud, std::string_view audience) {
  if (!aud) return false;
  if (aud->is_string()) return std::string_view(aud->get_string()) == audience;
  if (!aud->is_array()) return false;
  const auto& list = aud->get_array();
  return std::any_of(list.begin(), list.end(), [audience](const json::value& v) {
    return v.is_string() && v.get_string() == audience;
  });
}

std::vector<std::string> scopes_of(const json::object& claims) {
  std::vector<std::string> scopes;
  if (const auto* scope = claims.if_contains("scope"); scope && scope->is_string()) {
    std::string_view rest = scope->get_string();
    while (!rest.empty()) {
      const auto space = rest.find(' ');
      if (space != 0) scopes.emplace_back(rest.substr(0, space));
      if (space == std::string_view::npos) break;
      rest.remove_prefix(space + 1);
    }
  } else if (const auto* scp = claims.if_contains("scp"); scp && scp->is_array()) {
    for (const auto& entry : scp->get_array())
      if (entry.is_string()) scopes.emplace_back(entry.get_string());
  }
  return scopes;
}

}  // namespace

Result<AccessToken> verify_access_token(std::string_view token, const TokenRules& rules, const KeyLookup& keys,
                                        std::chrono::system_clock::time_point now) {
  if (token.size() > kMaxTokenBytes) return Error{"the token is longer than any access token airlock accepts"};
  if (!is_compact_jws(token)) return Error{"the token is not a signed JWT (RFC 7515 compact serialization)"};
  const auto& crypto = crypto_functions();
  // Why is logged once where the module failed to load (util/crypto.cpp);
  // the client is not told the server's paths.
  if (!crypto) return Error{"the server cannot check tokens now"};
  JwsParts parts;
  (*crypto)->read_jws(token, parts);
  if (!parts.jws) return Error{"the token is not a signed JWT (RFC 7515 compact serialization)"};

  const std::string& alg = parts.alg;
  if (std::find(rules.algorithms.begin(), rules.algorithms.end(), alg) == rules.algorithms.end())
    return Error{alg.empty() ? std::string("the token's header names no algorithm")
                             : "the token's algorithm is not accepted here (" +
                                   std::string(alg.size() <= 8 ? alg : "?") + ")"};
  // RFC 7515 4.1.11: an extension airlock does not implement makes the token invalid.
  if (parts.crit) return Error{"the token's header names critical extensions (crit)"};

  if (!parts.payload) return Error{"the token's claims cannot be read"};
  json::parse_options options;
  options.max_depth = 16;
  thread_local StrictJsonParser parser(options);
  std::string refusal;
  const auto parsed = parser.parse(*parts.payload, {}, refusal);
  const json::object* claims = parsed ? parsed->if_object() : nullptr;
  if (!claims) return Error{"the token's claims are not a JSON object without repeated names"};

  // The issuer only chooses the key set; the signature then vouches for it.
  const auto* iss = claims->if_contains("iss");
  if (!iss || !iss->is_string()) return Error{"the token names no issuer"};
  const std::string_view issuer = iss->get_string();
  if (std::find(rules.issuers.begin(), rules.issuers.end(), issuer) == rules.issuers.end())
    return Error{"the token's issuer is not an authorization server of this resource"};
  const std::string& kid = parts.kid;
  const auto set = keys(issuer, kid);
  if (!set) return Error{"the issuer's keys cannot be fetched now"};
  const auto candidates = set->candidates(kid, alg);
  if (candidates.empty())
    return Error{kid.empty() ? "no key of the issuer fits the token's algorithm"
                             : "the issuer publishes no key with the token's kid"};
  const bool verified = std::any_of(candidates.begin(), candidates.end(), [&](const VerificationKey* key) {
    return (*crypto)->verify_jws(parts.jws.get(), key->jwk.get());
  });
  if (!verified) return Error{"the token's signature does not verify"};

  if (!names_audience(claims->if_contains("aud"), rules.audience))
    return Error{"the token was issued for another resource (aud does not name this one)"};
  const double at = std::chrono::duration<double>(now.time_since_epoch()).count();
  const double leeway = static_cast<double>(rules.leeway.count());
  const auto exp = numeric_date(*claims, "exp");
  if (!exp) return Error{"the token has no expiry (exp)"};
  if (at >= *exp + leeway) return Error{"the token has expired"};
  if (claims->contains("nbf")) {
    const auto nbf = numeric_date(*claims, "nbf");
    if (!nbf) return Error{"the token's nbf is not a time"};
    if (at + leeway < *nbf) return Error{"the token is not valid yet (nbf)"};
  }
  const auto* sub = claims->if_contains("sub");
  if (!sub || !sub->is_string() || sub->get_string().empty()) return Error{"the token names no subject (sub)"};

  AccessToken verified_token;
  verified_token.issuer = std::string(issuer);
  verified_token.subject = std::string(sub->get_string());
  if (const auto* client = claims->if_contains("client_id"); client && client->is_string())
    verified_token.client_id = std::string(client->get_string());
  verified_token.scopes = scopes_of(*claims);
  // Clamped to 2200-01-01: a far-future exp (2e300 is a valid JSON number)
  // must not overflow the clock's 64-bit nanosecond ticks (good to 2262).
  constexpr double kLatest = 7258118400.0;
  verified_token.expires = std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::duration<double>(std::min(*exp, kLatest))));
  return verified_token;
}

}  // namespace airlock::host
