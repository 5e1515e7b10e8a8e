// Key sets are parsed with Boost.JSON and each key handed to cjose (in the
// crypto module, util/crypto.hpp), which builds the OpenSSL key; nothing
// here touches key material itself.
#include "auth/jwks.hpp"

#include "util/crypto.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace airlock::host {
namespace json = boost::json;
namespace {

// RSA keys shorter than this do not verify anything (RFC 7518 3.3 asks for
// 2048 bits); cjose reports sizes in bits.
constexpr long kMinRsaBits = 2048;
constexpr std::size_t kMaxKeys = 64;

std::string_view string_member(const json::object& object, std::string_view name) {
  const auto* value = object.if_contains(name);
  return value && value->is_string() ? std::string_view(value->get_string()) : std::string_view();
}

// The curve an ESnnn algorithm signs on.
std::string_view curve_of(std::string_view alg) {
  if (alg == "ES256") return "P-256";
  if (alg == "ES384") return "P-384";
  if (alg == "ES512") return "P-521";
  return {};
}

bool is_signature_algorithm(std::string_view alg) {
  static constexpr std::array<std::string_view, 9> kKnown = {"RS256", "RS384", "RS512", "PS256", "PS384",
                                                             "PS512", "ES256", "ES384", "ES512"};
  return std::find(kKnown.begin(), kKnown.end(), alg) != kKnown.end();
}

// The number of unpadded base64url characters that carry `bytes` bytes.
constexpr std::size_t base64url_length(std::size_t bytes) { return (bytes * 4 + 2) / 3; }

// A base64url member (RFC 7515 2: no padding) of a length within [min, max]
// bytes. cjose 0.6 asserts, and so aborts the process, on some malformed
// members (a '=' or '}' inside x): every member is checked here before it
// reaches cjose, so a hostile key set can only be refused.
bool is_base64url_member(const json::object& key, std::string_view name, std::size_t min_bytes,
                         std::size_t max_bytes) {
  const std::string_view text = string_member(key, name);
  if (text.size() < base64url_length(min_bytes) || text.size() > base64url_length(max_bytes)) return false;
  if (text.size() % 4 == 1) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

// The members cjose will decode, each well-formed and of its kind's size:
// RSA n of 2048 to 16384 bits and e of up to 8 bytes; EC x and y of exactly
// the curve's field size.
bool has_well_formed_members(const json::object& key, std::string_view kty) {
  if (kty == "RSA") return is_base64url_member(key, "n", 256, 2048) && is_base64url_member(key, "e", 1, 8);
  const std::string_view crv = string_member(key, "crv");
  const std::size_t field = crv == "P-256" ? 32 : crv == "P-384" ? 48 : crv == "P-521" ? 66 : 0;
  return field != 0 && is_base64url_member(key, "x", field, field) && is_base64url_member(key, "y", field, field);
}

// The key as cjose builds it, or null when this key is not one to keep.
std::shared_ptr<void> import_key(const CryptoFunctions& crypto, const json::object& key, std::string_view kty) {
  if (const auto* use = key.if_contains("use"); use && !(use->is_string() && use->get_string() == "sig"))
    return nullptr;
  if (const auto* ops = key.if_contains("key_ops")) {
    const auto* list = ops->if_array();
    if (!list || std::none_of(list->begin(), list->end(), [](const json::value& op) {
          return op.is_string() && op.get_string() == "verify";
        }))
      return nullptr;
  }
  if (kty != "RSA" && kty != "EC") return nullptr;
  if (!has_well_formed_members(key, kty)) return nullptr;
  // Only the public members go to cjose: a set that publishes a private
  // part by mistake must not turn into a signing key here.
  json::object public_part;
  for (const char* member : {"kty", "n", "e", "crv", "x", "y"})
    if (const auto* value = key.if_contains(member)) public_part[member] = *value;
  const std::string text = json::serialize(public_part);
  std::shared_ptr<void> held;
  long rsa_bits = 0;
  crypto.import_public_key(text, held, rsa_bits);
  if (!held) return nullptr;
  if (kty == "RSA" && rsa_bits < kMinRsaBits) return nullptr;
  return held;
}

}  // namespace

bool VerificationKey::fits(std::string_view token_alg) const {
  if (!alg.empty() && alg != token_alg) return false;
  if (token_alg.starts_with("RS") || token_alg.starts_with("PS")) return kty == "RSA";
  const std::string_view curve = curve_of(token_alg);
  return !curve.empty() && kty == "EC" && crv == curve;
}

Result<KeySet> KeySet::parse(std::string_view document) {
  json::parse_options options;
  options.max_depth = 8;
  boost::system::error_code ec;
  const json::value parsed = json::parse(document, ec, {}, options);
  if (ec) return Error{fmt::format("the key set is not JSON: {}", ec.message())};
  const auto* root = parsed.if_object();
  const auto* keys = root ? root->if_contains("keys") : nullptr;
  if (!keys || !keys->is_array()) return Error{"the key set is not an object with a \"keys\" array (RFC 7517 5)"};

  const auto& crypto = crypto_functions();
  if (!crypto) return Error{"the key set cannot be read: " + crypto.error().message};
  KeySet set;
  for (const auto& entry : keys->get_array()) {
    const auto* key = entry.if_object();
    if (!key || set.keys_.size() == kMaxKeys) continue;
    VerificationKey kept;
    kept.kty = std::string(string_member(*key, "kty"));
    kept.kid = std::string(string_member(*key, "kid"));
    kept.crv = std::string(string_member(*key, "crv"));
    kept.alg = std::string(string_member(*key, "alg"));
    if (!kept.alg.empty() && !is_signature_algorithm(kept.alg)) continue;
    if (key->contains("kid") && kept.kid.empty()) continue;
    kept.jwk = import_key(**crypto, *key, kept.kty);
    if (!kept.jwk) continue;
    if (!kept.kid.empty() && set.has_kid(kept.kid))
      return Error{fmt::format("the key set holds kid {} twice", json::serialize(json::string(kept.kid)))};
    set.keys_.push_back(std::move(kept));
  }
  if (set.keys_.empty()) return Error{"the key set holds no RSA or EC signature key airlock can use"};
  return set;
}

std::vector<const VerificationKey*> KeySet::candidates(std::string_view kid, std::string_view alg) const {
  std::vector<const VerificationKey*> found;
  for (const auto& key : keys_)
    if ((kid.empty() || key.kid == kid) && key.fits(alg)) found.push_back(&key);
  return found;
}

bool KeySet::has_kid(std::string_view kid) const {
  return std::any_of(keys_.begin(), keys_.end(), [kid](const VerificationKey& key) { return key.kid == kid; });
}

}  // namespace airlock::host
