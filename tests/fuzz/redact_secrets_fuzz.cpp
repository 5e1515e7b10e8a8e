// redact_secrets_fuzz — airlock.redact-secrets (plugins/redact-secrets) with
// its built-in patterns on any bytes: the sanitizer contract of
// sanitizer_contract.hpp (RE2 keeps it linear, so a slow input is a finding
// too: libFuzzer's -timeout catches it).
#include "redact_secrets.hpp"
#include "sanitizer_contract.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const airlock::plugins::SecretRedactor redact(airlock::plugins::SecretRedactor::Options{});
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  airlock::fuzz::check_sanitizer_contract(in, [](std::string_view text) { return redact(text); });
  return 0;
}
