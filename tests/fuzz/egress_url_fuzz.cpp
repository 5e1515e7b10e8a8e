// egress_url_fuzz — host/egress/egress_url's parse_url on any bytes. What it
// accepts must read the same to libcurl's URL API (curl_reading.hpp): same
// scheme, host and port, both for the text as given and for Url::text, the
// text the fetcher hands curl. And Url::text must parse back to the same Url
// (one spelling per destination). parse_host and parse_port run on the same
// bytes and must agree with parse_url's own reading of an authority.
#include "curl_reading.hpp"

#include <cstddef>
#include <cstdint>

namespace {

bool same(const airlock::host::Url& a, const airlock::host::Url& b) {
  return a.scheme == b.scheme && a.host_kind == b.host_kind && a.host == b.host && a.port == b.port &&
         a.target == b.target && a.text == b.text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace airlock;
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)host::parse_host(text);
  (void)host::parse_port(text);
  const auto url = host::parse_url(text);
  if (!url) return 0;
  fuzz::expect_curl_agrees(text, text, *url);
  fuzz::expect_curl_agrees(text, url->text, *url);
  const auto again = host::parse_url(url->text);
  if (!again || !same(*url, *again)) fuzz::disagree("Url::text does not parse back to the same Url", text, *url, {});
  return 0;
}
