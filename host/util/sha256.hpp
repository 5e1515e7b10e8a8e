// SHA-256 through OpenSSL's libcrypto, for bearer tokens: the config keeps
// only their digests, and a presented token is hashed before any comparison.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host {

using Sha256Digest = std::array<std::uint8_t, 32>;

// The digest of `data`. Never fails: libcrypto's SHA-256 needs no state
// beyond the call, and an allocation failure inside it aborts.
Sha256Digest sha256(std::string_view data);

// The digest written as 64 hex digits, either case; nothing when `hex` is
// anything else.
std::optional<Sha256Digest> parse_sha256_hex(std::string_view hex);

// 64 lowercase hex digits: what `sha256sum` prints, and what the config takes.
std::string sha256_hex(const Sha256Digest& digest);

}  // namespace airlock::host
