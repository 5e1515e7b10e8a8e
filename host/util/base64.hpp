// Base64 (RFC 4648, standard alphabet, padded): how MCP carries bytes in
// JSON (resource blobs, image and audio data). Clients decode with atob, so
// what the host writes and what it accepts from plugins is exactly this.
#pragma once

#include <cstddef>
#include <optional>
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

// The bytes of `text` when it is padded standard base64 whose unused low
// bits are zero (the one encoding of its bytes); nothing otherwise. Strict
// because a value that decodes must be the value the client meant.
inline std::optional<std::string> from_base64(std::string_view text) {
  if (!is_base64(text)) return std::nullopt;
  auto sextet = [](char c) -> unsigned {
    if (c >= 'A' && c <= 'Z') return static_cast<unsigned>(c - 'A');
    if (c >= 'a' && c <= 'z') return static_cast<unsigned>(c - 'a') + 26;
    if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0') + 52;
    return c == '+' ? 62u : 63u;
  };
  std::string out;
  out.reserve(text.size() / 4 * 3);
  unsigned bits = 0;
  int held = 0;
  for (const char c : text) {
    if (c == '=') break;
    bits = ((bits << 6) | sextet(c)) & 0xfffu;  // at most 12 bits are ever pending
    held += 6;
    if (held >= 8) {
      held -= 8;
      out.push_back(static_cast<char>((bits >> held) & 0xffu));
    }
  }
  if ((bits & ((1u << held) - 1)) != 0) return std::nullopt;
  return out;
}

}  // namespace airlock::host
