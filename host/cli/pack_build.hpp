// `airlock pack build`: a source directory (pack.toml in source form plus
// the shared objects) made into a pack with a full manifest.
#pragma once

#include "util/error.hpp"

#include <filesystem>
#include <optional>

namespace airlock::host {

struct PackBuildArgs {
  std::filesystem::path source;
  std::filesystem::path out;  // a directory, or a .tar.gz when it ends so
  std::optional<std::filesystem::path> secret_key;  // minisign -G key; password from AIRLOCK_PACK_PASSWORD
};

// Hashes and loads every object (with a default config, to learn its ABI,
// tools and sanitizers), writes the manifest and the objects into `out`,
// and signs the manifest when asked. A source whose pack.toml already is
// byte for byte the computed manifest keeps its pack.toml.minisig. Returns
// what was written, for the message.
Result<std::filesystem::path> build_pack(const PackBuildArgs& args);

}  // namespace airlock::host
