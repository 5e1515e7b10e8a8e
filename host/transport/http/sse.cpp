#include "transport/http/sse.hpp"

#include <fmt/format.h>

#include <cstring>

namespace airlock::host::http {

namespace {

// Where `c` next is in s[from, limit), or npos: glibc's memchr, vectorized,
// where find_first_of("\r\n") looked each byte up in the set (on a 256 KiB
// result that was half the server's time for an SSE call).
std::size_t find_byte(std::string_view s, char c, std::size_t from, std::size_t limit) {
  if (from >= limit) return std::string_view::npos;
  const void* hit = std::memchr(s.data() + from, c, limit - from);
  return hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - s.data()) : std::string_view::npos;
}

}  // namespace

void append_sse_event(std::string& out, std::string_view id, std::string_view data) {
  // No id: a stream nobody can resume (2026-07-28 dropped resumption).
  if (!id.empty()) out.append("id: ").append(id).push_back('\n');
  out.append("event: message\n");
  out.reserve(out.size() + data.size() + 16);
  // A lone CR also ends a line in SSE, so both CR and LF split data lines.
  // The next LF is kept between lines and the CR search stops at it, so
  // each byte is looked at a bounded number of times whatever the text.
  std::size_t start = 0;
  std::size_t lf = find_byte(data, '\n', 0, data.size());
  while (true) {
    if (lf != std::string_view::npos && lf < start) lf = find_byte(data, '\n', start, data.size());
    const std::size_t cr = find_byte(data, '\r', start, lf == std::string_view::npos ? data.size() : lf);
    const std::size_t end = cr != std::string_view::npos ? cr : lf;
    out.append("data: ").append(data.substr(start, end == std::string_view::npos ? end : end - start)).push_back('\n');
    if (end == std::string_view::npos) break;
    start = end + (data.compare(end, 2, "\r\n") == 0 ? 2 : 1);
  }
  out.push_back('\n');
}

void append_sse_priming(std::string& out, std::string_view id, std::uint32_t retry_ms) {
  fmt::format_to(std::back_inserter(out), "id: {}\nretry: {}\ndata: \n\n", id, retry_ms);
}

}  // namespace airlock::host::http
