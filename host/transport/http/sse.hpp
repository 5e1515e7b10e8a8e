// Server-Sent Events framing (WHATWG HTML, "server-sent events"): how one
// JSON-RPC message, or the empty priming event of SEP-1699, is written on a
// text/event-stream response.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace airlock::host::http {

// "id: <id>\nevent: message\ndata: <data>\n\n". A line break inside `data`
// starts another data line, so the client rebuilds the same text; serialized
// JSON has none, but the framing does not rely on that.
void append_sse_event(std::string& out, std::string_view id, std::string_view data);

// "id: <id>\nretry: <ms>\ndata: \n\n": the event a stream opens with, so the
// client holds an id to resume from before any message exists, and knows how
// long to wait before it does.
void append_sse_priming(std::string& out, std::string_view id, std::uint32_t retry_ms);

// ": keep-alive\n\n": a comment clients ignore. Written on a quiet stream, it
// finds a client that went away (the write fails) and keeps proxies from
// timing the stream out.
inline constexpr std::string_view kSseKeepAlive = ": keep-alive\n\n";

}  // namespace airlock::host::http
