// Installing a verified pack: its verified bytes (never a second read of the
// source) staged next to the destination and swapped in atomically, so a
// reader sees the old pack whole or the new one whole, and a failed install
// leaves the old one as it was.
#pragma once

#include "packs/pack_verify.hpp"
#include "util/error.hpp"

#include <filesystem>
#include <string>

namespace airlock::host {

// Writes `pack` into "<dir>/<name>/" (creating `dir` if needed) and returns
// that directory.
Result<std::filesystem::path> install_pack(const VerifiedPack& pack, const std::filesystem::path& dir);

// Writes `bytes` to `file` (mode 0644), creating it; fails if it exists.
Result<void> write_new_file(const std::filesystem::path& file, std::string_view bytes);

// The manifest's [suggest] sections as an airlock.toml snippet to review and
// copy; empty when the pack suggests nothing.
std::string suggested_config(const PackManifest& manifest);

}  // namespace airlock::host
