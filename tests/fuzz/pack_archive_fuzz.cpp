// pack_archive_fuzz — host/packs/pack_archive's extract_pack_archive on any
// bytes as a .tar.gz (written to a private scratch directory, extracted into
// a fresh empty one, both removed after). Asserts no crash or exception, an
// error message on refusal, and that what an accepted archive leaves behind
// is only plain regular files directly in the destination (no directory, no
// link, nothing outside it), each within the size limit.
#include "packs/pack_archive.hpp"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

const fs::path& scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("airlock-fuzz-pack-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path archive = scratch() / "pack.tar.gz";
  const fs::path dest = scratch() / "out";
  fs::remove_all(dest);
  fs::create_directories(dest);
  {
    std::ofstream out(archive, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  airlock::host::ArchiveLimits limits;
  limits.max_file_bytes = 1 << 20;
  limits.max_total_bytes = 4 << 20;
  limits.max_entries = 64;
  const auto result = airlock::host::extract_pack_archive(archive, dest, limits);
  if (!result && result.error().message.empty()) std::abort();
  if (result) {
    for (const auto& entry : fs::recursive_directory_iterator(dest)) {
      const fs::file_status status = fs::symlink_status(entry.path());
      if (!fs::is_regular_file(status) || entry.path().parent_path() != dest ||
          fs::file_size(entry.path()) > limits.max_file_bytes) {
        std::fprintf(stderr, "pack archive: left %s behind\n", entry.path().c_str());
        std::abort();
      }
    }
  }
  fs::remove_all(dest);
  return 0;
}
