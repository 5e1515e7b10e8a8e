// pack_manifest_fuzz — host/packs/pack_manifest: pack.toml text as a vendor
// ships it, read in both forms. Asserts no crash or exception, an error
// message on refusal, and a stable round trip for what is accepted in the
// built form: write_manifest gives text that parses back to a manifest that
// writes the very same bytes (the signature covers those bytes), and every
// name in it keeps to the names a manifest allows.
#include "packs/pack_manifest.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace airlock::host;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto source = parse_manifest(text, "pack.toml", ManifestForm::source);
  if (!source && source.error().message.empty()) std::abort();
  const auto built = parse_manifest(text, "pack.toml", ManifestForm::built);
  if (!built) {
    if (built.error().message.empty()) std::abort();
    return 0;
  }
  const std::string written = write_manifest(*built);
  const auto again = parse_manifest(written, "pack.toml", ManifestForm::built);
  if (!again) {
    std::fprintf(stderr, "pack manifest: written form refused: %s\n%s\n", again.error().message.c_str(), written.c_str());
    std::abort();
  }
  if (write_manifest(*again) != written) {
    std::fprintf(stderr, "pack manifest: round trip changed the bytes\n%s\n", written.c_str());
    std::abort();
  }
  return 0;
}
