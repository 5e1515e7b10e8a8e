// inert_urls_fuzz — airlock.inert-urls (plugins/inert-urls) on any bytes: the
// sanitizer contract of sanitizer_contract.hpp, and that the rewrite only
// inserts brackets or swaps t for x (no byte of the input is lost: the output
// is never shorter).
#include "inert_urls.hpp"
#include "sanitizer_contract.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  airlock::fuzz::check_sanitizer_contract(in, [](std::string_view text) { return airlock::plugins::inert_urls(text); });
  if (const auto out = airlock::plugins::inert_urls(in); out && out->size() < in.size())
    airlock::fuzz::broken("output shorter than input", in, *out);
  return 0;
}
