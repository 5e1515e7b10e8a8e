// SHA-256 through OpenSSL's libcrypto (in the crypto module, util/crypto.hpp):
// for bearer tokens, whose digests alone the config keeps, the audit trail,
// pins and packs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host {

using Sha256Digest = std::array<std::uint8_t, 32>;

// The digest of `data`. Never fails: when the crypto module cannot be
// loaded or libcrypto cannot hash, it says so on stderr and aborts.
Sha256Digest sha256(std::string_view data);

// The digest written as 64 hex digits, either case; nothing when `hex` is
// anything else.
std::optional<Sha256Digest> parse_sha256_hex(std::string_view hex);

// 64 lowercase hex digits: what `sha256sum` prints, and what the config takes.
std::string sha256_hex(const Sha256Digest& digest);

}  // namespace airlock::host
