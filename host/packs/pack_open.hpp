// A pack as the `airlock pack` commands are given it: a directory, or a
// .tar.gz that is extracted into a private temporary directory first.
#pragma once

#include "packs/pack_verify.hpp"

namespace airlock::host {

// verify_pack_dir for a directory; for anything else, extracts the archive
// (pack_archive.hpp) and verifies what came out. The temporary directory is
// gone when this returns; the objects' bytes are kept in the result.
Result<VerifiedPack> verify_pack(const std::filesystem::path& pack, const TrustPolicy& trust);

}  // namespace airlock::host
