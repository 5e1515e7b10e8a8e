// Base64 (RFC 4648, standard alphabet, padded): how MCP carries bytes in
// JSON (resource blobs, image and audio data). Clients decode with atob, so
// what the host writes and what it accepts from plugins is exactly this.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace airlock::host {

inline void append_base64(std::string& out, const void* bytes, std::size_t len) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* p = static_cast<const unsigned char*>(bytes);
  out.reserve(out.size() + (len + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= len; i += 3) {
    const unsigned v = (unsigned{p[i]} << 16) | (unsigned{p[i + 1]} << 8) | p[i + 2];
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  if (const std::size_t left = len - i; left > 0) {
    const unsigned v = (unsigned{p[i]} << 16) | (left == 2 ? unsigned{p[i + 1]} << 8 : 0u);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(left == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
}

inline std::string to_base64(const void* bytes, std::size_t len) {
  std::string out;
  append_base64(out, bytes, len);
  return out;
}

// True when `text` is padded standard base64 (empty included): a length that
// is a multiple of 4, the alphabet only, '=' only as the last one or two.
inline bool is_base64(std::string_view text) {
  if (text.size() % 4 != 0) return false;
  std::size_t pad = 0;
  if (!text.empty() && text.back() == '=') pad = text.size() >= 2 && text[text.size() - 2] == '=' ? 2 : 1;
  for (std::size_t i = 0; i < text.size() - pad; ++i) {
    const char c = text[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/'))
      return false;
  }
  return true;
}

}  // namespace airlock::host
