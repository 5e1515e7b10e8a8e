// SHA-256 through OpenSSL's libcrypto (EVP, the interface OpenSSL 3 keeps).
#include "util/sha256.hpp"

#include <openssl/evp.h>

#include <cstdlib>
#include <memory>

namespace airlock::host {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The algorithm fetched once, and a context per thread reused for every
// digest: EVP_Digest fetches SHA-256 and allocates a context on each call,
// which for the short texts hashed per tool call (arguments, audit records)
// cost more than the hashing.
const EVP_MD* sha256_md() {
  static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return md;
}

struct ContextFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

}  // namespace

Sha256Digest sha256(std::string_view data) {
  thread_local const std::unique_ptr<EVP_MD_CTX, ContextFree> ctx(EVP_MD_CTX_new());
  Sha256Digest digest{};
  unsigned int length = 0;
  // Fails only when libcrypto cannot fetch SHA-256 at all (a broken install
  // or a FIPS provider without it) or is out of memory; no token could ever
  // be checked then, so stopping is the only safe answer.
  const EVP_MD* md = sha256_md();
  if (!md || !ctx || EVP_DigestInit_ex2(ctx.get(), md, nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), data.data(), data.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), digest.data(), &length) != 1 || length != digest.size())
    std::abort();
  return digest;
}

std::optional<Sha256Digest> parse_sha256_hex(std::string_view hex) {
  Sha256Digest digest{};
  if (hex.size() != digest.size() * 2) return std::nullopt;
  for (std::size_t i = 0; i < digest.size(); ++i) {
    const int high = hex_value(hex[2 * i]);
    const int low = hex_value(hex[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    digest[i] = static_cast<std::uint8_t>(high << 4 | low);
  }
  return digest;
}

std::string sha256_hex(const Sha256Digest& digest) {
  constexpr std::string_view kDigits = "0123456789abcdef";
  std::string hex;
  hex.reserve(digest.size() * 2);
  for (const std::uint8_t byte : digest) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 0xf]);
  }
  return hex;
}

}  // namespace airlock::host
