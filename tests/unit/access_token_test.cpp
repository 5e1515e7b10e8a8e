// Access tokens checked as host/auth does it, against keys and tokens made
// here with cjose: the signature, the algorithm held to the key, and every
// claim that makes a token one for this resource, now.
#include "auth/access_token.hpp"
#include "auth/jwks.hpp"
#include "auth/protected_resource.hpp"

#include <boost/json.hpp>
#include <cjose/cjose.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

namespace airlock::host {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

constexpr std::string_view kIssuer = "https://id.example.com";
constexpr std::string_view kResource = "https://mcp.example.com/mcp";

std::string base64url(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  unsigned value = 0;
  int bits = 0;
  for (const char c : bytes) {
    value = (value << 8) | static_cast<unsigned char>(c);
    bits += 8;
    while (bits >= 6) {
      out.push_back(kAlphabet[(value >> (bits - 6)) & 63]);
      bits -= 6;
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(value << (6 - bits)) & 63]);
  return out;
}

using Jwk = std::unique_ptr<cjose_jwk_t, decltype(&cjose_jwk_release)>;

// A private key, the public JWK of which goes into a set with `kid`.
struct TestKey {
  Jwk jwk;
  std::string kid;
  std::string alg;

  json::object public_jwk() const {
    char* text = cjose_jwk_to_json(jwk.get(), false, nullptr);
    json::object key = json::parse(text).as_object();
    cjose_get_dealloc()(text);
    key["kid"] = kid;
    key["use"] = "sig";
    return key;
  }
};

TestKey ec_key(std::string kid) {
  return {Jwk(cjose_jwk_create_EC_random(CJOSE_JWK_EC_P_256, nullptr), &cjose_jwk_release), std::move(kid), "ES256"};
}

TestKey rsa_key(std::string kid, std::size_t bits = 2048) {
  static const uint8_t kE[] = {1, 0, 1};
  return {Jwk(cjose_jwk_create_RSA_random(bits, kE, sizeof kE, nullptr), &cjose_jwk_release), std::move(kid), "RS256"};
}

std::string sign(const TestKey& key, const json::object& claims, json::object header = {}) {
  cjose_header_t* protected_header = cjose_header_new(nullptr);
  cjose_header_set(protected_header, CJOSE_HDR_ALG, key.alg.c_str(), nullptr);
  cjose_header_set(protected_header, CJOSE_HDR_KID, key.kid.c_str(), nullptr);
  for (const auto& [name, value] : header) {
    const std::string raw = json::serialize(value);
    cjose_header_set_raw(protected_header, std::string(name).c_str(), raw.c_str(), nullptr);
  }
  const std::string payload = json::serialize(claims);
  cjose_jws_t* jws = cjose_jws_sign(key.jwk.get(), protected_header, reinterpret_cast<const uint8_t*>(payload.data()),
                                    payload.size(), nullptr);
  cjose_header_release(protected_header);
  const char* compact = nullptr;
  cjose_jws_export(jws, &compact, nullptr);
  std::string token(compact);
  cjose_jws_release(jws);
  return token;
}

// header.payload. with no signature, or whatever the test puts together.
std::string unsigned_token(const json::object& header, std::string_view payload, std::string_view signature = "") {
  return base64url(json::serialize(header)) + "." + base64url(payload) + "." + std::string(signature);
}

std::int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

json::object claims(json::object overrides = {}) {
  json::object base{{"iss", kIssuer}, {"sub", "alice"}, {"aud", kResource}, {"client_id", "cli"},
                    {"scope", "files:read  tools:echo"}, {"iat", now_s()}, {"exp", now_s() + 300}};
  for (auto& [name, value] : overrides) {
    if (value.is_null()) {
      base.erase(name);
    } else {
      base[name] = value;
    }
  }
  return base;
}

class AccessTokenTest : public ::testing::Test {
 protected:
  AccessTokenTest() {
    json::array keys{es.public_jwk(), rs.public_jwk()};
    auto parsed = KeySet::parse(json::serialize(json::object{{"keys", keys}}));
    EXPECT_TRUE(parsed.has_value()) << parsed.error().message;
    if (parsed) set = std::make_shared<const KeySet>(std::move(*parsed));
    rules.issuers = {std::string(kIssuer)};
    rules.audience = std::string(kResource);
    rules.algorithms = {"ES256", "RS256", "PS256"};
    rules.leeway = std::chrono::seconds(60);
  }

  Result<AccessToken> verify(std::string_view token) {
    return verify_access_token(
        token, rules,
        [this](std::string_view issuer, std::string_view kid) {
          looked_up_kid = std::string(kid);
          return issuer == kIssuer ? set : nullptr;
        },
        std::chrono::system_clock::now());
  }

  std::string refusal(std::string_view token) {
    const auto result = verify(token);
    EXPECT_FALSE(result.has_value());
    return result ? std::string("accepted") : result.error().message;
  }

  TestKey es = ec_key("es-1");
  TestKey rs = rsa_key("rs-1");
  std::shared_ptr<const KeySet> set;
  TokenRules rules;
  std::string looked_up_kid;
};

TEST_F(AccessTokenTest, AcceptsAnES256AndAnRS256TokenAndReadsItsClaims) {
  for (const TestKey* key : {&es, &rs}) {
    const auto token = verify(sign(*key, claims()));
    ASSERT_TRUE(token.has_value()) << key->alg << ": " << token.error().message;
    EXPECT_EQ(token->issuer, kIssuer);
    EXPECT_EQ(token->subject, "alice");
    EXPECT_EQ(token->client_id, "cli");
    EXPECT_EQ(token->scopes, (std::vector<std::string>{"files:read", "tools:echo"}));
    EXPECT_EQ(looked_up_kid, key->kid);
  }
}

TEST_F(AccessTokenTest, TakesAnAudienceArrayAndAnScpArray) {
  const auto token = verify(sign(es, claims({{"aud", json::array{"other", kResource}},
                                             {"scope", nullptr},
                                             {"scp", json::array{"a", "b"}}})));
  ASSERT_TRUE(token.has_value()) << token.error().message;
  EXPECT_EQ(token->scopes, (std::vector<std::string>{"a", "b"}));
}

TEST_F(AccessTokenTest, RefusesAnAlgorithmOutsideTheAcceptedList) {
  EXPECT_THAT(refusal(unsigned_token({{"alg", "none"}, {"kid", "es-1"}}, json::serialize(claims()))),
              HasSubstr("algorithm is not accepted"));
  EXPECT_THAT(refusal(unsigned_token({{"alg", "HS256"}, {"kid", "rs-1"}}, json::serialize(claims()), "c2ln")),
              HasSubstr("algorithm is not accepted"));
  rules.algorithms = {"RS256"};
  EXPECT_THAT(refusal(sign(es, claims())), HasSubstr("algorithm is not accepted"));
}

TEST_F(AccessTokenTest, HoldsTheAlgorithmToTheKindOfKey) {
  // An RSA key named by kid, a header claiming ES256: the key does not fit,
  // whatever the signature.
  TestKey es_named_rs{Jwk(cjose_jwk_create_EC_random(CJOSE_JWK_EC_P_256, nullptr), &cjose_jwk_release), "rs-1",
                      "ES256"};
  EXPECT_THAT(refusal(sign(es_named_rs, claims())), HasSubstr("no key with the token's kid"));
}

TEST_F(AccessTokenTest, RefusesASignatureByAnotherKeyOrOverAlteredClaims) {
  TestKey impostor = ec_key("es-1");
  EXPECT_THAT(refusal(sign(impostor, claims())), HasSubstr("signature does not verify"));
  std::string token = sign(es, claims());
  const auto first_dot = token.find('.');
  const auto second_dot = token.find('.', first_dot + 1);
  token.replace(first_dot + 1, second_dot - first_dot - 1,
                base64url(json::serialize(claims({{"sub", "mallory"}}))));
  EXPECT_THAT(refusal(token), HasSubstr("signature does not verify"));
}

TEST_F(AccessTokenTest, RefusesATokenForAnotherIssuerOrResource) {
  EXPECT_THAT(refusal(sign(es, claims({{"iss", "https://evil.example.com"}}))), HasSubstr("issuer"));
  EXPECT_THAT(refusal(sign(es, claims({{"iss", nullptr}}))), HasSubstr("names no issuer"));
  EXPECT_THAT(refusal(sign(es, claims({{"aud", "https://other.example.com/mcp"}}))), HasSubstr("another resource"));
  EXPECT_THAT(refusal(sign(es, claims({{"aud", nullptr}}))), HasSubstr("another resource"));
}

TEST_F(AccessTokenTest, AppliesTheLeewayToExpiryAndNotBefore) {
  EXPECT_TRUE(verify(sign(es, claims({{"exp", now_s() - 30}}))).has_value()) << "within the leeway";
  EXPECT_THAT(refusal(sign(es, claims({{"exp", now_s() - 90}}))), HasSubstr("expired"));
  EXPECT_TRUE(verify(sign(es, claims({{"nbf", now_s() + 30}}))).has_value()) << "within the leeway";
  EXPECT_THAT(refusal(sign(es, claims({{"nbf", now_s() + 90}}))), HasSubstr("not valid yet"));
  EXPECT_THAT(refusal(sign(es, claims({{"exp", nullptr}}))), HasSubstr("no expiry"));
  EXPECT_THAT(refusal(sign(es, claims({{"exp", "tomorrow"}}))), HasSubstr("no expiry"));
}

TEST_F(AccessTokenTest, RefusesATokenWithoutASubjectOrWithARepeatedClaim) {
  EXPECT_THAT(refusal(sign(es, claims({{"sub", nullptr}}))), HasSubstr("subject"));
  EXPECT_THAT(refusal(sign(es, claims({{"sub", ""}}))), HasSubstr("subject"));
  // Two readers could take {"sub":"alice","sub":"admin"} two ways.
  std::string payload = json::serialize(claims());
  payload.insert(payload.size() - 1, ",\"sub\":\"admin\"");
  cjose_header_t* header = cjose_header_new(nullptr);
  cjose_header_set(header, CJOSE_HDR_ALG, "ES256", nullptr);
  cjose_header_set(header, CJOSE_HDR_KID, "es-1", nullptr);
  cjose_jws_t* jws = cjose_jws_sign(es.jwk.get(), header, reinterpret_cast<const uint8_t*>(payload.data()),
                                    payload.size(), nullptr);
  cjose_header_release(header);
  const char* compact = nullptr;
  cjose_jws_export(jws, &compact, nullptr);
  const std::string token(compact);
  cjose_jws_release(jws);
  EXPECT_THAT(refusal(token), HasSubstr("without repeated names"));
}

TEST_F(AccessTokenTest, RefusesCriticalExtensionsAndWhatIsNotACompactJws) {
  EXPECT_THAT(refusal(sign(es, claims(), {{"crit", json::array{"exp"}}})), HasSubstr("critical"));
  EXPECT_THAT(refusal("not-a-token"), HasSubstr("not a signed JWT"));
  EXPECT_THAT(refusal("a.b.c.d"), HasSubstr("not a signed JWT"));
  EXPECT_THAT(refusal(std::string(20000, 'a') + ".b.c"), HasSubstr("longer"));
}

TEST(KeySet, KeepsOnlyAsymmetricSignatureKeysAndRefusesARepeatedKid) {
  const TestKey es = ec_key("a");
  const TestKey rs = rsa_key("b");
  const TestKey weak = rsa_key("weak", 1024);
  json::object encryption = es.public_jwk();
  encryption["kid"] = "enc";
  encryption["use"] = "enc";
  const json::object oct{{"kty", "oct"}, {"k", "c2VjcmV0"}, {"kid", "oct"}};
  const auto set = KeySet::parse(json::serialize(
      json::object{{"keys", json::array{es.public_jwk(), rs.public_jwk(), weak.public_jwk(), encryption, oct}}}));
  ASSERT_TRUE(set.has_value()) << set.error().message;
  EXPECT_EQ(set->size(), 2u);
  EXPECT_TRUE(set->has_kid("a"));
  EXPECT_TRUE(set->has_kid("b"));
  EXPECT_FALSE(set->has_kid("weak")) << "an RSA key under 2048 bits verifies nothing";
  EXPECT_FALSE(set->has_kid("enc"));
  EXPECT_FALSE(set->has_kid("oct"));
  EXPECT_EQ(set->candidates("", "ES256").size(), 1u);
  EXPECT_EQ(set->candidates("a", "RS256").size(), 0u);
  EXPECT_EQ(set->candidates("b", "PS256").size(), 1u);

  const auto twice = KeySet::parse(json::serialize(json::object{{"keys", json::array{es.public_jwk(), es.public_jwk()}}}));
  ASSERT_FALSE(twice.has_value());
  EXPECT_THAT(twice.error().message, HasSubstr("twice"));
  EXPECT_FALSE(KeySet::parse("{\"keys\":[]}").has_value());
  EXPECT_FALSE(KeySet::parse("[]").has_value());
  EXPECT_FALSE(KeySet::parse("{").has_value());
}

TEST(ProtectedResource, PutsTheWellKnownSegmentBetweenHostAndPath) {
  EXPECT_EQ(metadata_path("https://mcp.example.com/mcp"), "/.well-known/oauth-protected-resource/mcp");
  EXPECT_EQ(metadata_path("https://mcp.example.com"), "/.well-known/oauth-protected-resource");
  EXPECT_EQ(metadata_path("https://mcp.example.com/"), "/.well-known/oauth-protected-resource");
  EXPECT_EQ(metadata_url("http://127.0.0.1:8808/a/mcp"),
            "http://127.0.0.1:8808/.well-known/oauth-protected-resource/a/mcp");
  EXPECT_TRUE(is_metadata_path("/.well-known/oauth-protected-resource", "https://h/mcp"));
  EXPECT_TRUE(is_metadata_path("/.well-known/oauth-protected-resource/mcp", "https://h/mcp"));
  EXPECT_FALSE(is_metadata_path("/.well-known/oauth-protected-resource/other", "https://h/mcp"));
}

TEST(ProtectedResource, WritesChallengesAsRfc6750Quotes) {
  EXPECT_EQ(bearer_challenge("https://h/mcp"), "Bearer resource_metadata=\"https://h/.well-known/oauth-protected-resource/mcp\"");
  EXPECT_EQ(bearer_challenge("https://h/mcp", "insufficient_scope", "say \"no\"", "a b"),
            "Bearer error=\"insufficient_scope\", error_description=\"say no\", scope=\"a b\", "
            "resource_metadata=\"https://h/.well-known/oauth-protected-resource/mcp\"");
}

}  // namespace
}  // namespace airlock::host
