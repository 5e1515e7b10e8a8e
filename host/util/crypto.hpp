// What the host asks of OpenSSL's libcrypto (SHA-256) and of cjose (JOSE,
// built on libcrypto), behind one module, airlock-crypto.so, loaded on the
// first digest or the first access token. Linked, libcrypto alone keeps
// 1.4 MiB resident from relocations before anything calls it; a server
// with no audit trail, tokens, pins or packs never needs it.
//
// The module only computes: every decision (which algorithms, which keys,
// which claims) stays in the host (util/sha256.cpp, auth/jwks.cpp,
// auth/access_token.cpp). Host and module come from one build; kCryptoAbi
// changes whenever these types do, and the host refuses a module built
// with another (util/host_module.hpp).
#pragma once

#include "util/error.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host {

inline constexpr int kCryptoAbi = 1;

// A compact JWS as the JOSE library read it, before anything is verified.
struct JwsParts {
  std::shared_ptr<void> jws;           // null: the library could not read the token
  std::string alg;                     // the protected header's, empty when absent
  std::string kid;                     // likewise
  bool crit = false;                   // the protected header has a "crit" member
  std::optional<std::string> payload;  // nothing when it cannot be had
};

// The module's functions. Each may be called from any thread at once.
struct CryptoFunctions {
  // A hashing context, reused for every digest on one thread (allocating
  // one per digest cost more than hashing the short texts of a call), and
  // its release. The caller keeps it: the module holds no thread_local,
  // whose dynamic TLS in a dlopened library LeakSanitizer cannot scan.
  // Null when out of memory.
  void* (*new_sha256_context)();
  void (*free_sha256_context)(void* context);
  // Writes the SHA-256 of `size` bytes at `data` to `digest` with `context`;
  // false only when libcrypto cannot fetch SHA-256 at all or is out of memory.
  bool (*sha256)(void* context, const void* data, std::size_t size, std::array<std::uint8_t, 32>& digest);
  // The public key a JWK (RSA or EC, public members only) describes, as the
  // JOSE library holds it, in `key`; null when the library refuses it.
  // `rsa_bits`: the modulus size of an RSA key, else 0.
  void (*import_public_key)(std::string_view jwk, std::shared_ptr<void>& key, long& rsa_bits);
  // Reads a compact JWS without verifying it.
  void (*read_jws)(std::string_view token, JwsParts& parts);
  // Whether the signature of `jws` (JwsParts::jws) verifies with `key`.
  bool (*verify_jws)(const void* jws, const void* key);
};

// The module's functions, loaded on the first call (thread-safe); an error
// naming the file when it cannot be loaded, which stays the answer.
const Result<const CryptoFunctions*>& crypto_functions();

}  // namespace airlock::host
