// The Ed25519 key that signs audit checkpoints (libsodium), and what a
// verifier needs to check one. A checkpoint signs the exact bytes
//
//   "airlock-audit-checkpoint-v1\n<replica>\n<seq>\n<head hex>"
//
// where head is the hash of record <seq>, the last record before the
// checkpoint: the signer vouches for the chain up to and including it.
#pragma once

#include "util/error.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace airlock::host::audit {

using PublicKey = std::array<unsigned char, 32>;

std::string checkpoint_message(std::string_view replica, std::uint64_t seq, std::string_view head);

// The first 16 hex digits of the public key's SHA-256: which key signed.
std::string key_id_of(const PublicKey& key);

// Whether `signature_base64` is `key`'s Ed25519 signature of `message`.
bool verify_checkpoint_signature(const PublicKey& key, std::string_view message, std::string_view signature_base64);

// A public key file as keygen writes it: the base64 of 32 bytes (a line).
Result<PublicKey> read_public_key(const std::filesystem::path& path);

class CheckpointSigner {
 public:
  // Reads the 32-byte seed, raw or base64 (the rule request_state_key_file
  // follows), and warns when others than the owner may read it.
  static Result<CheckpointSigner> from_file(const std::filesystem::path& path);

  CheckpointSigner(CheckpointSigner&& other) noexcept;
  CheckpointSigner& operator=(CheckpointSigner&&) = delete;
  CheckpointSigner(const CheckpointSigner&) = delete;
  ~CheckpointSigner();

  const PublicKey& public_key() const { return public_key_; }
  const std::string& key_id() const { return key_id_; }

  // The base64 signature of `message`.
  std::string sign(std::string_view message) const;

 private:
  explicit CheckpointSigner(const std::array<unsigned char, 32>& seed);
  std::array<unsigned char, 64> secret_key_{};  // libsodium's seed || public key form
  PublicKey public_key_{};
  std::string key_id_;
};

// `airlock audit keygen`: writes a new seed to `path` (mode 0600, never
// over an existing file) as base64, and `path`.pub with the public key.
// Returns the public key's base64.
Result<std::string> generate_signing_key(const std::filesystem::path& path);

}  // namespace airlock::host::audit
