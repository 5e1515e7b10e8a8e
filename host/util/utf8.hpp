// UTF-8 well-formedness (RFC 3629: no overlong forms, no surrogates, nothing
// past U+10FFFF): every string a client receives must be valid JSON text.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace airlock::host {

inline bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    // Most tool text is ASCII: skip it 32 bytes at a time (four words, which
    // the compiler reads as one vector), then eight.
    while (end - p >= 32) {
      std::uint64_t words[4];
      std::memcpy(words, p, 32);
      if (((words[0] | words[1] | words[2] | words[3]) & 0x8080808080808080ull) != 0) break;
      p += 32;
    }
    if (p == end) break;
    if (end - p >= 8) {
      std::uint64_t word;
      std::memcpy(&word, p, 8);
      if ((word & 0x8080808080808080ull) == 0) {
        p += 8;
        continue;
      }
    }
    const unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int extra;
    std::uint32_t min;
    std::uint32_t cp;
    if ((c & 0xe0) == 0xc0) {
      extra = 1, min = 0x80, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2, min = 0x800, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      extra = 3, min = 0x10000, cp = c & 0x07;
    } else {
      return false;
    }
    if (end - p <= extra) return false;
    for (int i = 1; i <= extra; ++i) {
      if ((p[i] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    p += extra + 1;
  }
  return true;
}

}  // namespace airlock::host
