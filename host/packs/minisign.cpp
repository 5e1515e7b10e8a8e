// minisign's byte layouts, as its own source and `minisign -V` define them:
//   public key  = "Ed" ‖ key id (8) ‖ Ed25519 public key (32)
//   signature   = "Ed" | "ED" ‖ key id (8) ‖ Ed25519 signature (64)
//   secret key  = "Ed" ‖ kdf ("\0\0" | "Sc") ‖ "B2" ‖ salt (32) ‖ opslimit (8, LE)
//                 ‖ memlimit (8, LE) ‖ [key id (8) ‖ secret key (64) ‖ checksum (32)]
// where the bracketed part is XORed with scrypt output when kdf is "Sc".
#include "packs/minisign.hpp"

#include "packs/sodium_init.hpp"

#include <fmt/format.h>
#include <sodium.h>

#include <cstring>
#include <vector>

namespace airlock::host::minisign {
namespace {

constexpr std::size_t kPublicKeyBytes = 2 + 8 + 32;
constexpr std::size_t kSignatureBytes = 2 + 8 + 64;
constexpr std::size_t kSecretHeaderBytes = 2 + 2 + 2 + 32 + 8 + 8;
constexpr std::size_t kSecretPayloadBytes = 8 + 64 + 32;
constexpr std::size_t kSecretKeyBytes = kSecretHeaderBytes + kSecretPayloadBytes;
constexpr std::string_view kUntrusted = "untrusted comment:";
constexpr std::string_view kTrusted = "trusted comment: ";

// The lines of `text`, without their "\n" or "\r\n"; a final empty line
// (the file's last newline) is dropped.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Decodes standard padded base64 of exactly `want` bytes.
Result<std::vector<std::uint8_t>> decode(std::string_view line, std::size_t want, std::string_view what) {
  ensure_sodium();
  std::vector<std::uint8_t> bytes(want + 3);
  std::size_t got = 0;
  const char* end = nullptr;
  if (sodium_base642bin(bytes.data(), bytes.size(), line.data(), line.size(), nullptr, &got, &end,
                        sodium_base64_VARIANT_ORIGINAL) != 0 ||
      end != line.data() + line.size())
    return Error{fmt::format("{}: not valid base64", what)};
  if (got != want) return Error{fmt::format("{}: {} bytes, want {}", what, got, want)};
  bytes.resize(want);
  return bytes;
}

std::uint64_t load_le64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

SecretKey::~SecretKey() { sodium_memzero(key.data(), key.size()); }

SecretKey::SecretKey(SecretKey&& other) noexcept : id(other.id), key(other.key) {
  sodium_memzero(other.key.data(), other.key.size());
}

// minisign prints the id with PRIX64: uppercase, no leading zeros. The same
// spelling here lets an operator match it against a .pub file's comment.
std::string key_id_text(const KeyId& id) { return fmt::format("{:X}", load_le64(id.data())); }

Result<PublicKey> parse_public_key(std::string_view text) {
  std::vector<std::string_view> lines = lines_of(text);
  std::string_view line;
  if (!lines.empty() && lines[0].starts_with(kUntrusted)) {
    if (lines.size() < 2) return Error{"public key: no key line after the untrusted comment"};
    line = trim(lines[1]);
  } else if (lines.size() == 1) {
    line = trim(lines[0]);
  } else {
    return Error{"public key: want the base64 key line, or a minisign .pub file"};
  }
  auto bytes = decode(line, kPublicKeyBytes, "public key");
  if (!bytes) return bytes.error();
  const auto& b = *bytes;
  if (b[0] != 'E' || b[1] != 'd') return Error{"public key: not an Ed25519 minisign key"};
  PublicKey key;
  std::memcpy(key.id.data(), b.data() + 2, key.id.size());
  std::memcpy(key.key.data(), b.data() + 10, key.key.size());
  return key;
}

Result<Signature> parse_signature(std::string_view text) {
  const std::vector<std::string_view> lines = lines_of(text);
  if (lines.size() < 4) return Error{"want 4 lines (untrusted comment, signature, trusted comment, global signature)"};
  if (!lines[0].starts_with(kUntrusted)) return Error{"line 1: want \"untrusted comment: ...\""};
  auto sig = decode(trim(lines[1]), kSignatureBytes, "line 2 (signature)");
  if (!sig) return sig.error();
  Signature s;
  const auto& b = *sig;
  if (b[0] == 'E' && b[1] == 'd')
    s.prehashed = false;
  else if (b[0] == 'E' && b[1] == 'D')
    s.prehashed = true;
  else
    return Error{"line 2 (signature): unknown algorithm (want Ed or ED)"};
  std::memcpy(s.key_id.data(), b.data() + 2, s.key_id.size());
  std::memcpy(s.signature.data(), b.data() + 10, s.signature.size());
  if (!lines[2].starts_with(kTrusted)) return Error{"line 3: want \"trusted comment: ...\""};
  s.trusted_comment = std::string(lines[2].substr(kTrusted.size()));
  auto global = decode(trim(lines[3]), s.global_signature.size(), "line 4 (global signature)");
  if (!global) return global.error();
  std::memcpy(s.global_signature.data(), global->data(), s.global_signature.size());
  for (std::size_t i = 4; i < lines.size(); ++i)
    if (!trim(lines[i]).empty()) return Error{fmt::format("line {}: unexpected text after the global signature", i + 1)};
  return s;
}

Result<void> verify(const PublicKey& key, const Signature& s, std::string_view message) {
  ensure_sodium();
  if (sodium_memcmp(key.id.data(), s.key_id.data(), key.id.size()) != 0)
    return Error{fmt::format("signed by key {}, not by key {}", key_id_text(s.key_id), key_id_text(key.id))};
  const auto* msg = reinterpret_cast<const unsigned char*>(message.data());
  int bad = 0;
  if (s.prehashed) {
    std::array<unsigned char, crypto_generichash_BYTES_MAX> digest{};
    crypto_generichash(digest.data(), digest.size(), msg, message.size(), nullptr, 0);
    bad = crypto_sign_verify_detached(s.signature.data(), digest.data(), digest.size(), key.key.data());
  } else {
    bad = crypto_sign_verify_detached(s.signature.data(), msg, message.size(), key.key.data());
  }
  if (bad != 0) return Error{fmt::format("signature does not verify with key {}", key_id_text(key.id))};
  std::string global(s.signature.begin(), s.signature.end());
  global += s.trusted_comment;
  if (crypto_sign_verify_detached(s.global_signature.data(), reinterpret_cast<const unsigned char*>(global.data()),
                                  global.size(), key.key.data()) != 0)
    return Error{fmt::format("trusted comment signature does not verify with key {}", key_id_text(key.id))};
  return {};
}

Result<SecretKey> parse_secret_key(std::string_view text, const std::optional<std::string>& password) {
  ensure_sodium();
  const std::vector<std::string_view> lines = lines_of(text);
  if (lines.size() < 2 || !lines[0].starts_with(kUntrusted))
    return Error{"secret key: want \"untrusted comment: ...\" then the base64 key line"};
  auto decoded = decode(trim(lines[1]), kSecretKeyBytes, "secret key");
  if (!decoded) return decoded.error();
  std::vector<std::uint8_t>& b = *decoded;
  if (b[0] != 'E' || b[1] != 'd') return Error{"secret key: not an Ed25519 minisign key"};
  if (b[4] != 'B' || b[5] != '2') return Error{"secret key: unknown checksum algorithm (want B2)"};
  std::uint8_t* payload = b.data() + kSecretHeaderBytes;
  const bool encrypted = b[2] == 'S' && b[3] == 'c';
  if (!encrypted && (b[2] != 0 || b[3] != 0)) return Error{"secret key: unknown key derivation (want Sc or none)"};
  if (encrypted) {
    if (!password)
      return Error{"secret key: encrypted; set AIRLOCK_PACK_PASSWORD to its password (or make one with minisign -G -W)"};
    const std::uint64_t ops = load_le64(b.data() + 38);
    const std::uint64_t mem = load_le64(b.data() + 46);
    std::array<std::uint8_t, kSecretPayloadBytes> stream{};
    if (mem > (std::uint64_t{1} << 31) ||
        crypto_pwhash_scryptsalsa208sha256(stream.data(), stream.size(), password->data(), password->size(),
                                           b.data() + 6, ops, static_cast<std::size_t>(mem)) != 0)
      return Error{"secret key: cannot derive the key from the password (scrypt limits too high?)"};
    for (std::size_t i = 0; i < stream.size(); ++i) payload[i] ^= stream[i];
    sodium_memzero(stream.data(), stream.size());
  }
  SecretKey key;
  std::memcpy(key.id.data(), payload, key.id.size());
  std::memcpy(key.key.data(), payload + 8, key.key.size());
  const std::uint8_t* checksum = payload + 72;
  std::array<std::uint8_t, 32> want{};
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, want.size());
  crypto_generichash_update(&st, b.data(), 2);
  crypto_generichash_update(&st, payload, 8 + 64);
  crypto_generichash_final(&st, want.data(), want.size());
  // minisign -W leaves the checksum of an unencrypted key zero.
  const bool unchecked = !encrypted && sodium_is_zero(checksum, want.size());
  const bool sums = sodium_memcmp(checksum, want.data(), want.size()) == 0;
  sodium_memzero(b.data(), b.size());
  if (!unchecked && !sums)
    return Error{encrypted ? "secret key: wrong password (checksum mismatch)" : "secret key: checksum mismatch"};
  std::array<std::uint8_t, 32> derived{};
  crypto_sign_ed25519_sk_to_pk(derived.data(), key.key.data());  // the stored public half
  std::array<std::uint8_t, 32> from_seed{};
  std::array<std::uint8_t, 64> scratch{};
  crypto_sign_seed_keypair(from_seed.data(), scratch.data(), key.key.data());
  sodium_memzero(scratch.data(), scratch.size());
  if (sodium_memcmp(derived.data(), from_seed.data(), derived.size()) != 0)
    return Error{encrypted ? "secret key: wrong password" : "secret key: damaged (public half does not match)"};
  return key;
}

PublicKey public_key_of(const SecretKey& key) {
  PublicKey pub;
  pub.id = key.id;
  crypto_sign_ed25519_sk_to_pk(pub.key.data(), key.key.data());
  return pub;
}

std::string public_key_file(const PublicKey& key) {
  std::array<std::uint8_t, kPublicKeyBytes> b{'E', 'd'};
  std::memcpy(b.data() + 2, key.id.data(), key.id.size());
  std::memcpy(b.data() + 10, key.key.data(), key.key.size());
  std::string out = fmt::format("untrusted comment: minisign public key {}\n", key_id_text(key.id));
  out += to_base64_line(b.data(), b.size());
  return out + "\n";
}

std::string sign(const SecretKey& key, std::string_view message, std::string_view trusted_comment) {
  ensure_sodium();
  std::array<unsigned char, crypto_generichash_BYTES_MAX> digest{};
  crypto_generichash(digest.data(), digest.size(), reinterpret_cast<const unsigned char*>(message.data()),
                     message.size(), nullptr, 0);
  std::array<std::uint8_t, kSignatureBytes> sig{'E', 'D'};
  std::memcpy(sig.data() + 2, key.id.data(), key.id.size());
  crypto_sign_detached(sig.data() + 10, nullptr, digest.data(), digest.size(), key.key.data());
  std::string global(sig.begin() + 10, sig.end());
  global += trusted_comment;
  std::array<std::uint8_t, 64> global_sig{};
  crypto_sign_detached(global_sig.data(), nullptr, reinterpret_cast<const unsigned char*>(global.data()),
                       global.size(), key.key.data());
  std::string out = "untrusted comment: signature from airlock secret key\n";
  out += to_base64_line(sig.data(), sig.size());
  out += fmt::format("\n{}{}\n", kTrusted, trusted_comment);
  out += to_base64_line(global_sig.data(), global_sig.size());
  return out + "\n";
}

}  // namespace airlock::host::minisign
