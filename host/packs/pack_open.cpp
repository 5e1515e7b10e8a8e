#include "packs/pack_open.hpp"

#include "packs/pack_archive.hpp"
#include "packs/private_dir.hpp"

#include <fmt/format.h>

#include <system_error>

namespace airlock::host {
namespace fs = std::filesystem;

Result<VerifiedPack> verify_pack(const fs::path& pack, const TrustPolicy& trust) {
  std::error_code ec;
  if (fs::is_directory(pack, ec)) return verify_pack_dir(pack, trust);
  if (!fs::exists(pack, ec)) return Error{fmt::format("{}: no such file or directory", pack.string())};
  auto scratch = PrivateDir::create(fs::temp_directory_path(ec), "airlock-pack");
  if (!scratch) return scratch.error();
  if (auto extracted = extract_pack_archive(pack, scratch->path()); !extracted) return extracted.error();
  return verify_extracted_pack(scratch->path(), pack, trust);
}

}  // namespace airlock::host
