// pack.toml: what a tool pack is (name, version, vendor), what it holds (each
// shared object with its size and SHA-256, and the tools and sanitizers it
// provides) and what its vendor suggests (egress grants, chains). The signed
// bytes are the file's bytes, so it is written deterministically.
#pragma once

#include "util/error.hpp"
#include "util/sha256.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host {

struct PackObject {
  std::string file;  // a plain file name inside the pack, ending in .so
  Sha256Digest sha256{};
  std::uint64_t size = 0;
  std::string abi;  // "1.4"
  // Names, like suggest's tool globs, chain names and steps: [A-Za-z0-9_.*?-]{1,64}.
  std::vector<std::string> tools;
  std::vector<std::string> sanitizers;
};

struct PackManifest {
  std::string name;     // [a-z0-9][a-z0-9._-]{0,63}: also the install directory's name
  std::string version;
  std::string vendor;
  std::optional<std::string> description;
  std::optional<std::string> abi;  // the highest ABI any object targets (built form)
  // Source form only: which files to pack; absent means every *.so.
  std::optional<std::vector<std::string>> objects;
  std::vector<PackObject> object_entries;  // [[object]], built form
  std::map<std::string, std::vector<std::string>> suggest_egress;  // tool -> grants
  std::map<std::string, std::vector<std::string>> suggest_chains;  // chain -> steps
};

// The source form is what a vendor writes (objects optional, [[object]] and
// abi ignored if present: build recomputes them); the built form is what
// build writes and verify reads ([[object]] and abi required, no objects).
enum class ManifestForm { source, built };

// Parses pack.toml text; `file` names it in errors, which read
// "<file>:<line>:<column>: <key>: <what>".
Result<PackManifest> parse_manifest(std::string_view text, const std::string& file, ManifestForm form);
Result<PackManifest> read_manifest(const std::filesystem::path& file, ManifestForm form);

// The built form as TOML: same manifest, same bytes.
std::string write_manifest(const PackManifest& manifest);

// Whether `name` may be an object's file name: plain (no '/', not "." or
// ".."), ending in ".so"; the reason when not.
std::optional<std::string> bad_object_file_name(std::string_view name);

// "1.4" from an ABI number (major << 16 | minor), and back.
std::string abi_string(std::uint32_t abi);
std::optional<std::uint32_t> parse_abi_string(std::string_view text);

}  // namespace airlock::host
