// strip_control_fuzz — airlock.strip-control (plugins/strip-control) on any
// bytes: the sanitizer contract of sanitizer_contract.hpp (deterministic,
// UTF-8 preserving, idempotent, no destination that was not in the input),
// and that the output holds no byte the sanitizer exists to remove.
#include "sanitizer_contract.hpp"
#include "strip_control.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  airlock::fuzz::check_sanitizer_contract(in, [](std::string_view text) { return airlock::plugins::strip_control(text); });
  if (const auto out = airlock::plugins::strip_control(in)) {
    for (const char c : *out) {
      const auto b = static_cast<unsigned char>(c);
      if ((b < 0x20 && b != '\t' && b != '\n') || b == 0x7f) airlock::fuzz::broken("a control byte survived", in, *out);
    }
  }
  return 0;
}
