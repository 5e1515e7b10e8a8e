// truncate_strings_fuzz — airlock.truncate-strings (plugins/truncate-strings):
// the first two bytes pick the budget (64 .. 64 + 4095), the rest is the
// leaf. Asserts the sanitizer contract of sanitizer_contract.hpp and that the
// output never exceeds the budget.
#include "sanitizer_contract.hpp"
#include "truncate_strings.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t budget = airlock::plugins::kMinMaxBytes + (std::size_t{data[0]} << 8 | data[1]) % 4096;
  const std::string_view in(reinterpret_cast<const char*>(data + 2), size - 2);
  const auto truncate = [budget](std::string_view text) { return airlock::plugins::truncate_strings(text, budget); };
  airlock::fuzz::check_sanitizer_contract(in, truncate);
  if (const auto out = truncate(in); out && out->size() > budget) airlock::fuzz::broken("over budget", in, *out);
  return 0;
}
