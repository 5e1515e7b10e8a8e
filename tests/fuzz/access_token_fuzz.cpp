// access_token_fuzz — what an OAuth client and an authorization server can
// put in front of host/auth: the bearer token, and the key set fetched from
// a jwks_uri. The first byte picks:
//   0: the rest is a token as a client sent it. The fuzzer holds no key, so
//      verify_access_token must refuse every one;
//   1: the rest is a key set document (KeySet::parse and its lookups);
//   2: the rest is the claims of a token signed here with the trusted key,
//      which reaches the claims reader behind the signature. Whatever it
//      accepts must name this issuer, this audience and a subject.
#include "auth/access_token.hpp"
#include "auth/jwks.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cjose/cjose.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

using namespace airlock::host;

constexpr std::string_view kIssuer = "https://id.example.com";
constexpr std::string_view kResource = "https://mcp.example.com/mcp";

struct Trusted {
  cjose_jwk_t* key = cjose_jwk_create_EC_random(CJOSE_JWK_EC_P_256, nullptr);
  std::shared_ptr<const KeySet> set;
  TokenRules rules;

  Trusted() {
    char* text = cjose_jwk_to_json(key, false, nullptr);
    boost::json::object jwk = boost::json::parse(text).as_object();
    cjose_get_dealloc()(text);
    jwk["kid"] = "k1";
    auto parsed = KeySet::parse(boost::json::serialize(boost::json::object{{"keys", boost::json::array{jwk}}}));
    if (!parsed) std::abort();
    set = std::make_shared<const KeySet>(std::move(*parsed));
    rules.issuers = {std::string(kIssuer)};
    rules.audience = std::string(kResource);
    rules.algorithms = {"ES256", "RS256"};
  }
};

const Trusted& trusted() {
  static const Trusted t;
  return t;
}

Result<AccessToken> verify(std::string_view token) {
  return verify_access_token(
      token, trusted().rules, [](std::string_view, std::string_view) { return trusted().set; },
      std::chrono::system_clock::now());
}

std::string signed_token(std::string_view claims) {
  cjose_header_t* header = cjose_header_new(nullptr);
  cjose_header_set(header, CJOSE_HDR_ALG, "ES256", nullptr);
  cjose_header_set(header, CJOSE_HDR_KID, "k1", nullptr);
  cjose_jws_t* jws = cjose_jws_sign(trusted().key, header, reinterpret_cast<const uint8_t*>(claims.data()),
                                    claims.size(), nullptr);
  cjose_header_release(header);
  if (!jws) return {};
  const char* compact = nullptr;
  std::string token;
  if (cjose_jws_export(jws, &compact, nullptr)) token = compact;
  cjose_jws_release(jws);
  return token;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      if (verify(rest)) std::abort();  // a token the fuzzer could not have signed
      break;
    case 1:
      if (auto set = KeySet::parse(rest)) {
        for (const char* alg : {"RS256", "PS512", "ES256", "ES384", "ES512"}) (void)set->candidates({}, alg);
        (void)set->has_kid("k1");
      }
      break;
    default: {
      const std::string token = signed_token(rest);
      if (token.empty()) break;
      if (const auto accepted = verify(token)) {
        if (accepted->issuer != kIssuer || accepted->subject.empty()) std::abort();
      }
    }
  }
  return 0;
}
