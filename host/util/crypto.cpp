// The host's side of the crypto module: found and loaded on first use.
#include "util/crypto.hpp"

#include "util/host_module.hpp"

#include <spdlog/spdlog.h>

namespace airlock::host {

const Result<const CryptoFunctions*>& crypto_functions() {
  using Entry = const CryptoFunctions*();
  static const Result<const CryptoFunctions*> functions = []() -> Result<const CryptoFunctions*> {
    auto entry = load_host_module_entry<Entry>("airlock-crypto.so", "airlock_crypto_abi", kCryptoAbi,
                                               "airlock_crypto_functions");
    if (!entry) {
      spdlog::error("digests and access tokens cannot be checked: {}", entry.error().message);
      return entry.error();
    }
    return (*entry)();
  }();
  return functions;
}

}  // namespace airlock::host
