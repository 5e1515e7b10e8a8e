// Verifying a pack: its manifest, its signature against [trust], and every
// shared object's size and SHA-256. The objects' bytes are kept in memory,
// so what loads (or installs) is what was checked, not what is on disk later.
#pragma once

#include "packs/minisign.hpp"
#include "packs/pack_manifest.hpp"
#include "packs/trust_keys.hpp"
#include "util/error.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace airlock::host {

inline constexpr std::string_view kManifestFile = "pack.toml";
inline constexpr std::string_view kSignatureFile = "pack.toml.minisig";

// What `airlock list` shows about the pack a plugin came from.
struct PackOrigin {
  std::string name;
  std::string version;
  std::string vendor;
  std::string signer;  // the key id that verified it, "unsigned", or "untrusted key <ID>"
};

struct VerifiedObject {
  PackObject entry;
  std::filesystem::path file;  // where it was read: shown in errors, logs and `airlock list`
  std::string bytes;           // exactly the bytes that were hashed
};

struct VerifiedPack {
  std::filesystem::path source;  // the pack directory or archive
  PackManifest manifest;
  std::string manifest_text;                  // the bytes the signature covers
  std::optional<std::string> signature_text;  // pack.toml.minisig, when present
  std::optional<minisign::KeyId> signer;      // the trusted key that verified it
  std::optional<minisign::KeyId> untrusted_signer;  // signed, by a key not in [trust] keys
  std::vector<std::string> warnings;          // loaded anyway, but the operator should know
  std::vector<VerifiedObject> objects;        // in manifest order

  PackOrigin origin() const;
};

// Verifies a pack directory. The rules:
//   - a size or digest mismatch, a malformed or failing signature: refused;
//   - no signature, or one by a key not in [trust] keys: refused under
//     require_signed, else verified with a warning.
// Errors name the file: "<dir>/libacme.so: SHA-256 is <x>, pack.toml says <y>".
// An archive is verified by verify_pack (pack_open.hpp), which extracts it
// first; the server itself only ever loads directories, so it never links
// the archive library.
Result<VerifiedPack> verify_pack_dir(const std::filesystem::path& dir, const TrustPolicy& trust);

// The same for `dir`, where `archive` was extracted: errors name
// "<archive>: <member>" and objects keep their member names.
Result<VerifiedPack> verify_extracted_pack(const std::filesystem::path& dir, const std::filesystem::path& archive,
                                           const TrustPolicy& trust);

// True when `dir` holds a pack.toml, i.e. is a pack rather than a plain
// directory.
bool is_pack_dir(const std::filesystem::path& dir);

}  // namespace airlock::host
