// The crypto module, airlock-crypto.so (util/crypto.hpp): SHA-256 through
// OpenSSL's libcrypto (EVP, the interface OpenSSL 3 keeps), and JWK import
// and JWS verification through cjose, which builds its keys on libcrypto.
// Nothing here decides anything: the host checked the input's shape first
// (cjose 0.6 asserts on some malformed input) and judges what comes back.
#include "util/crypto.hpp"

#include <boost/config.hpp>
#include <cjose/header.h>
#include <cjose/jwk.h>
#include <cjose/jws.h>
#include <cjose/util.h>
#include <openssl/evp.h>

#include <memory>

namespace airlock::host {
namespace {

// The algorithm fetched once; EVP_Digest would fetch it on every call.
const EVP_MD* sha256_md() {
  static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return md;
}

void* new_sha256_context() { return EVP_MD_CTX_new(); }

void free_sha256_context(void* context) { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(context)); }

bool sha256(void* context, const void* data, std::size_t size, std::array<std::uint8_t, 32>& digest) {
  auto* ctx = static_cast<EVP_MD_CTX*>(context);
  unsigned int length = 0;
  const EVP_MD* md = sha256_md();
  return md && ctx && EVP_DigestInit_ex2(ctx, md, nullptr) == 1 && EVP_DigestUpdate(ctx, data, size) == 1 &&
         EVP_DigestFinal_ex(ctx, digest.data(), &length) == 1 && length == digest.size();
}

void import_public_key(std::string_view jwk, std::shared_ptr<void>& key, long& rsa_bits) {
  key.reset();
  rsa_bits = 0;
  cjose_err err{};
  cjose_jwk_t* imported = cjose_jwk_import(jwk.data(), jwk.size(), &err);
  if (!imported) return;
  key.reset(imported, [](void* p) { cjose_jwk_release(static_cast<cjose_jwk_t*>(p)); });
  if (cjose_jwk_get_kty(imported, &err) == CJOSE_JWK_KTY_RSA) rsa_bits = cjose_jwk_get_keysize(imported, &err);
}

std::string header_member(cjose_jws_t* jws, const char* name) {
  cjose_err err{};
  const char* value = cjose_header_get(cjose_jws_get_protected(jws), name, &err);
  return value ? std::string(value) : std::string();
}

void read_jws(std::string_view token, JwsParts& parts) {
  parts = {};
  cjose_err err{};
  cjose_jws_t* jws = cjose_jws_import(token.data(), token.size(), &err);
  if (!jws) return;
  parts.jws.reset(jws, [](void* p) { cjose_jws_release(static_cast<cjose_jws_t*>(p)); });
  parts.alg = header_member(jws, CJOSE_HDR_ALG);
  parts.kid = header_member(jws, CJOSE_HDR_KID);
  if (char* crit = cjose_header_get_raw(cjose_jws_get_protected(jws), "crit", &err)) {
    cjose_get_dealloc()(crit);
    parts.crit = true;
  }
  std::uint8_t* payload = nullptr;
  std::size_t length = 0;
  if (cjose_jws_get_plaintext(jws, &payload, &length, &err))
    parts.payload = std::string(reinterpret_cast<const char*>(payload), length);
}

bool verify_jws(const void* jws, const void* key) {
  cjose_err err{};
  // cjose takes the JWS as mutable though verifying only reads it.
  return cjose_jws_verify(static_cast<cjose_jws_t*>(const_cast<void*>(jws)), static_cast<const cjose_jwk_t*>(key),
                          &err);
}

constexpr CryptoFunctions kFunctions{new_sha256_context, free_sha256_context, sha256, import_public_key, read_jws,
                                     verify_jws};

}  // namespace
}  // namespace airlock::host

// The module's two exports: its ABI, checked before the host calls
// anything, and its functions. C names, so the host finds them without
// knowing a mangling; C++ types, since host and module are one build.
extern "C" {
BOOST_SYMBOL_EXPORT extern const int airlock_crypto_abi;
const int airlock_crypto_abi = airlock::host::kCryptoAbi;

BOOST_SYMBOL_EXPORT const airlock::host::CryptoFunctions* airlock_crypto_functions() {
  return &airlock::host::kFunctions;
}
}
