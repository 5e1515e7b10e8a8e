// curl_reading.hpp — how libcurl's URL API (curl_url, CURLU) reads a URL, for
// the egress fuzz targets: the fetcher hands curl Url::text (CURLOPT_URL), so
// whatever egress_url accepts must mean the same scheme, host and port to
// curl, or the policy would have checked another destination than the one
// fetched.
#pragma once

#include "egress/egress_url.hpp"
#include "sanitizer_contract.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::fuzz {

struct CurlReading {
  std::string scheme, host, port;
};

// curl's reading of `text`, with the flags CURLOPT_URL parses with; nullopt
// when curl refuses it.
inline std::optional<CurlReading> curl_reading(const std::string& text) {
  const std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> url(curl_url(), curl_url_cleanup);
  if (curl_url_set(url.get(), CURLUPART_URL, text.c_str(), CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) return std::nullopt;
  CurlReading reading;
  for (auto [part, out] : {std::pair{CURLUPART_SCHEME, &reading.scheme}, std::pair{CURLUPART_HOST, &reading.host},
                           std::pair{CURLUPART_PORT, &reading.port}}) {
    char* value = nullptr;
    if (curl_url_get(url.get(), part, &value, CURLU_DEFAULT_PORT) != CURLUE_OK) return std::nullopt;
    *out = value;
    curl_free(value);
  }
  return reading;
}

inline std::string ascii_lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// Same IPv6 address, however either side spells it.
inline bool same_ipv6(const std::string& ours, std::string curls) {
  if (curls.size() < 2 || curls.front() != '[' || curls.back() != ']') return false;
  curls = curls.substr(1, curls.size() - 2);
  in6_addr a{}, b{};
  return inet_pton(AF_INET6, ours.c_str(), &a) == 1 && inet_pton(AF_INET6, curls.c_str(), &b) == 1 &&
         std::memcmp(&a, &b, sizeof a) == 0;
}

[[noreturn]] inline void disagree(const char* what, std::string_view input, const host::Url& url,
                                  const std::optional<CurlReading>& curl) {
  std::fprintf(stderr, "egress_url and curl disagree: %s\n  input: %s\n  ours:  %s %s %u (%s)\n", what,
               printable(input).c_str(), std::string(host::scheme_name(url.scheme)).c_str(),
               printable(url.host).c_str(), unsigned{url.port}, printable(url.text).c_str());
  if (curl)
    std::fprintf(stderr, "  curl:  %s %s %s\n", curl->scheme.c_str(), printable(curl->host).c_str(), curl->port.c_str());
  else
    std::fprintf(stderr, "  curl:  refused\n");
  std::abort();
}

// Aborts unless curl reads `text` as the scheme, host and port of `url`.
inline void expect_curl_agrees(std::string_view input, const std::string& text, const host::Url& url) {
  const auto curl = curl_reading(text);
  if (!curl) disagree("curl refuses what egress_url accepts", input, url, curl);
  if (curl->scheme != host::scheme_name(url.scheme)) disagree("scheme", input, url, curl);
  const bool same_host = url.host_kind == host::HostKind::ipv6 ? same_ipv6(url.host, curl->host)
                                                              : ascii_lower(curl->host) == url.host;
  if (!same_host) disagree("host", input, url, curl);
  if (curl->port != std::to_string(url.port)) disagree("port", input, url, curl);
}

}  // namespace airlock::fuzz
