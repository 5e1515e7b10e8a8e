// SHA-256 through OpenSSL's libcrypto, in the crypto module (util/crypto.hpp).
#include "util/sha256.hpp"

#include "util/crypto.hpp"

#include <cstdio>
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

}  // namespace

Sha256Digest sha256(std::string_view data) {
  static const auto& functions = crypto_functions();
  // Fails only when the module cannot be loaded, or libcrypto cannot fetch
  // SHA-256 at all (a broken install or a FIPS provider without it) or is
  // out of memory; no token, record or pack could ever be checked then, so
  // stopping is the only safe answer.
  if (!functions) {
    std::fprintf(stderr, "airlock: SHA-256 is unavailable: %s\n", functions.error().message.c_str());
    std::abort();
  }
  // One context per thread, kept here rather than in the module (see
  // CryptoFunctions::new_sha256_context).
  struct Release {
    void operator()(void* context) const { (*functions)->free_sha256_context(context); }
  };
  thread_local const std::unique_ptr<void, Release> context((*functions)->new_sha256_context());
  Sha256Digest digest;
  if (!(*functions)->sha256(context.get(), data.data(), data.size(), digest)) {
    std::fprintf(stderr, "airlock: libcrypto cannot compute SHA-256\n");
    std::abort();
  }
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
