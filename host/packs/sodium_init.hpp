// libsodium must be initialized once before use; every caller in this unit
// goes through here, so no entry point can forget it.
#pragma once

#include <sodium.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace airlock::host {

inline void ensure_sodium() {
  // Thread-safe by the static's initialization; sodium_init is idempotent.
  static const bool ready = sodium_init() >= 0;
  if (!ready) throw std::runtime_error("libsodium failed to initialize");
}

// Standard padded base64, as minisign writes its lines.
inline std::string to_base64_line(const unsigned char* bytes, std::size_t len) {
  std::string out(sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), bytes, len, sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

}  // namespace airlock::host
