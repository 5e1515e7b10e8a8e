// minisign_fuzz — host/packs/minisign's readers of vendor text: a public key
// file, a .minisig file and a secret key file (without a password: an
// encrypted one is refused before scrypt runs), on any bytes. Asserts no
// crash and no exception, and that a signature read from the input never
// verifies against a fixed public key whose secret half nobody here holds:
// verify() must refuse, and say why.
#include "packs/minisign.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace airlock::host;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The same bytes as each kind of file.
  const auto key = minisign::parse_public_key(text);
  const auto signature = minisign::parse_signature(text);
  (void)minisign::parse_secret_key(text, std::nullopt);
  if (key) (void)minisign::public_key_file(*key);

  // minisign's own example public key.
  static const auto fixed = minisign::parse_public_key("RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3");
  if (!fixed) std::abort();
  if (signature) {
    const auto verdict = minisign::verify(*fixed, *signature, text);
    if (verdict) std::abort();
    if (verdict.error().message.empty()) std::abort();
  }
  return 0;
}
