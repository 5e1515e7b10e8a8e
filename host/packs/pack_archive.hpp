// A pack as one .tar.gz, read and written with libarchive.
//
// A pack archive is flat: regular files with plain names. Because vendors
// reflexively run `tar czf acme-tools.tar.gz acme-tools/`, one top-level
// directory is allowed and stripped (every file must then be inside it, and
// entries may start with "./"). Anything else is refused with the entry
// named: other directories, symlinks, hard links, devices, FIFOs, absolute
// paths, "..", a name seen twice, and files or totals over the limits.
#pragma once

#include "util/error.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace airlock::host {

struct ArchiveLimits {
  std::uint64_t max_file_bytes = std::uint64_t{256} << 20;
  std::uint64_t max_total_bytes = std::uint64_t{1} << 30;
  std::size_t max_entries = 4096;
};

// Extracts `archive` into `dest`, an existing empty directory, as plain
// files (mode 0644). Errors read "<archive>: <entry>: <what>". On an error
// `dest` may hold some files; the caller removes it.
Result<void> extract_pack_archive(const std::filesystem::path& archive, const std::filesystem::path& dest,
                                  const ArchiveLimits& limits = {});

// Writes the files `names` of `dir` into `archive` (gzip'd pax tar), sorted
// by name, with mtime 0, uid/gid 0, no owner names and mode 0644, so the same
// files always give the same bytes.
Result<void> write_pack_archive(const std::filesystem::path& archive, const std::filesystem::path& dir,
                                std::vector<std::string> names);

// True when `path` names a .tar.gz (or .tgz) by its ending.
bool is_archive_path(const std::filesystem::path& path);

}  // namespace airlock::host
