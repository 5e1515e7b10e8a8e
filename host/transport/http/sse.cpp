#include "transport/http/sse.hpp"

#include <fmt/format.h>

namespace airlock::host::http {

void append_sse_event(std::string& out, std::string_view id, std::string_view data) {
  // No id: a stream nobody can resume (2026-07-28 dropped resumption).
  if (!id.empty()) out.append("id: ").append(id).push_back('\n');
  out.append("event: message\n");
  // A lone CR also ends a line in SSE, so both CR and LF split data lines.
  std::size_t start = 0;
  while (true) {
    const std::size_t end = data.find_first_of("\r\n", start);
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
