// The minisign formats (public key, secret key, signature file) on libsodium,
// so a vendor signs a pack with the tool they already use and the host checks
// it without running anything of theirs.
#pragma once

#include "util/error.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host::minisign {

using KeyId = std::array<std::uint8_t, 8>;

struct PublicKey {
  KeyId id{};
  std::array<std::uint8_t, 32> key{};
};

struct Signature {
  bool prehashed = false;  // "ED": the signature covers BLAKE2b-512 of the message
  KeyId key_id{};
  std::array<std::uint8_t, 64> signature{};
  std::string trusted_comment;  // without the "trusted comment: " prefix
  std::array<std::uint8_t, 64> global_signature{};  // over signature ‖ trusted_comment
};

// A decoded secret key; its bytes are wiped when it goes.
class SecretKey {
 public:
  SecretKey() = default;
  ~SecretKey();
  SecretKey(const SecretKey&) = delete;
  SecretKey& operator=(const SecretKey&) = delete;
  SecretKey(SecretKey&& other) noexcept;
  SecretKey& operator=(SecretKey&&) = delete;

  KeyId id{};
  std::array<std::uint8_t, 64> key{};  // libsodium's Ed25519 secret key: seed ‖ public key
};

// How minisign shows a key id: the id read as a little-endian number, in
// uppercase hex without leading zeros ("21443C2E0CC15A30", "140342C8CCB0851").
std::string key_id_text(const KeyId& id);

// A public key file ("untrusted comment: ..." then the base64 line), or the
// base64 line alone, as `minisign -P` takes it.
Result<PublicKey> parse_public_key(std::string_view text);

// A .minisig file: untrusted comment, signature line, trusted comment line,
// global signature line.
Result<Signature> parse_signature(std::string_view text);

// Whether `signature` over `message` verifies with `key`: the key ids must
// match, then the signature, then the global signature over the trusted
// comment. Errors say which of these failed.
Result<void> verify(const PublicKey& key, const Signature& signature, std::string_view message);

// A secret key file made by `minisign -G`. Unencrypted (-W) keys need no
// password; an encrypted one is decrypted with `password` (scrypt, as
// minisign does) and refused when none is given.
Result<SecretKey> parse_secret_key(std::string_view text, const std::optional<std::string>& password);

// The public half of a secret key, as minisign writes it into the .pub file.
PublicKey public_key_of(const SecretKey& key);
std::string public_key_file(const PublicKey& key);

// A .minisig file with a prehashed ("ED") signature of `message`, as
// `minisign -S` writes it; `trusted_comment` must be one line.
std::string sign(const SecretKey& key, std::string_view message, std::string_view trusted_comment);

}  // namespace airlock::host::minisign
