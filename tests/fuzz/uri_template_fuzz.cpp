// uri_template_fuzz — host/plugins/uri_template: the input is
// "<template>\n<uri>". Asserts that parse refuses or accepts without
// trouble, that match answers in time (libFuzzer's -timeout: matching must
// stay polynomial whatever the template and URI), and that a match is
// honest: every value is non-empty and holds no '/', '?' or '#', and putting
// the values back into the template gives the URI byte for byte.
#include "plugins/uri_template.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = input.find('\n');
  const std::string_view text = input.substr(0, newline);
  const std::string_view uri = newline == std::string_view::npos ? std::string_view{} : input.substr(newline + 1);
  const auto parsed = airlock::host::UriTemplate::parse(text);
  if (!parsed) return 0;
  const auto values = parsed->match(uri);
  if (!values) return 0;
  if (values->size() != parsed->variables().size()) std::abort();

  // Expand the template with the values found: must give `uri` again.
  std::string expanded;
  std::size_t v = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') {
      expanded.push_back(text[i]);
      continue;
    }
    const std::size_t close = text.find('}', i);
    const auto& [name, value] = (*values)[v++];
    if (name != text.substr(i + 1, close - i - 1)) std::abort();
    if (value.empty() || value.find_first_of("/?#") != std::string::npos) {
      std::fprintf(stderr, "uri template: value of '%s' is empty or holds / ? #\n", name.c_str());
      std::abort();
    }
    expanded += value;
    i = close;
  }
  if (expanded != uri) {
    std::fprintf(stderr, "uri template: the values found do not give the uri back\n");
    std::abort();
  }
  return 0;
}
