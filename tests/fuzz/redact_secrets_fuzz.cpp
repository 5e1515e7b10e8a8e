// redact_secrets_fuzz — airlock.redact-secrets (plugins/redact-secrets) with
// its built-in patterns on any bytes: the sanitizer contract of
// sanitizer_contract.hpp (RE2 keeps it linear, so a slow input is a finding
// too: libFuzzer's -timeout catches it); and the same answer with the literal
// prefilter as without it, which would otherwise let a secret through.
#include "redact_secrets.hpp"
#include "sanitizer_contract.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using airlock::plugins::SecretRedactor;
  static const SecretRedactor redact(SecretRedactor::Options{});
  static const SecretRedactor search_all({.builtin = true, .patterns = {}, .prefilter = false});
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  airlock::fuzz::check_sanitizer_contract(in, [](std::string_view text) { return redact(text); });
  if (redact(in) != search_all(in)) {
    std::fprintf(stderr, "the literal prefilter changed the answer for %zu bytes\n", size);
    std::abort();
  }
  return 0;
}
