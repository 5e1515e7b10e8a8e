// The IPC between the server and a plugin's worker process: frames, one per
// message on SOCK_SEQPACKET sockets, and a compact binary encoding of their
// bodies.
//
// A message is a frame whole (the kernel keeps its bounds), so any one of
// several threads can take the next frame off a socket with one recv, and a
// reader never reassembles a frame a byte count at a time. A body larger
// than kInlineMax travels in a sealed memfd passed with the message instead:
// one copy in, one copy out, never a writer blocked on a full socket buffer
// while its reader wakes once per chunk.
//
// Both sides are airlock's own code from the same build, so the encoding has
// no versioning: a body is the fields of its message in order, each integer
// little-endian at its natural width, each string a u32 length then bytes.
// What the worker sends is still read as untrusted input (a hostile plugin
// controls the worker's memory): every read is bounds-checked, and a
// malformed frame ends the worker, never the server.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace airlock::isolation {

enum class Kind : std::uint8_t {
  // server -> worker; `id` names the hook call each one starts.
  call_tool = 1,      // u32 tool, str arguments, str client_capabilities, str request_meta; done: i32
                      // status, u32 count, count x (u32 Fn, str) result setters to apply in order
  sanitize_text = 2,  // u32 steps, steps x u32 sanitizer, u32 count, count x str text
  sanitize_result = 3,  // u32 sanitizer, context, str tool, str arguments, str result
  read_resource = 4,  // u32 kind (0 resource, 1 template), u32 index, context, str uri, str variables
  get_prompt = 5,     // u32 prompt, context, str name, str arguments
  complete = 6,       // u32 kind (0 prompt, 1 template), u32 index, context, str argument, str value, str arguments
  cancel = 7,         // (no body): the hook call `id` is cancelled
  reply = 8,          // the answer to the host call `id`: i32 status, then what the function returns
  shutdown = 9,       // (no body): call on_destroy and exit

  // worker -> server
  loaded = 20,       // u32 abi_version, str confinement summary, u8 complete
  load_failed = 21,  // str reason, as "<file>: <why>"
  host_call = 22,    // `id` answers with a reply; u64 scope (a hook call's id, 0: the plugin), u32 Fn, arguments
  done = 23,         // the hook call `id` returned: i32 status, then what the hook produced

  // either way, in a lane's mailbox (lane_memory.hpp): the next frame is on
  // the lane's socket, too large for the mailbox.
  on_socket = 30,
};

// The host functions a worker forwards, by what they act on.
enum class Fn : std::uint32_t {
  set_plugin_info = 1, get_config, register_tool, register_sanitizer, set_init_error, log,
  result_set_structured, result_add_text, result_set_json, result_set_error, result_add_untrusted_text,
  result_mark_untrusted, call_progress, call_log, call_client_request, call_end_stream,
  register_resource, register_resource_template, register_prompt, unregister_resource, unregister_prompt,
  resource_updated, resource_add_text, resource_add_blob, prompt_set_description, prompt_add_text,
  prompt_add_image, prompt_add_resource, prompt_add_message, completion_add, completion_set_total, call_fetch,
  call_input_request, prompt_input_request, resource_input_request, notify_list_changed, call_start_task,
};

// How one string came out of a run of text steps (sanitize_text's answer:
// i32 status, then per string u8 outcome, u32 step, i32 step status, str
// output, up to and including the first that did not pass).
inline constexpr std::uint8_t kTextUnchanged = 0;
inline constexpr std::uint8_t kTextChanged = 1;
inline constexpr std::uint8_t kTextFailed = 2;         // the step returned another status
inline constexpr std::uint8_t kTextWroteUnchanged = 3;  // the step wrote output and returned UNCHANGED
inline constexpr std::uint8_t kTextBrokeUtf8 = 4;       // the step turned valid UTF-8 into bytes that are not

// The largest body either side accepts. A worker's frame is read as it
// arrives, never allocated from its header alone, so a worker that claims a
// huge frame costs the server nothing until it sends the bytes.
inline constexpr std::size_t kMaxBody = std::size_t{1} << 30;

class WireWriter {
 public:
  WireWriter& u8(std::uint8_t v) { return raw(&v, 1); }
  WireWriter& u32(std::uint32_t v) { return raw(&v, sizeof v); }
  WireWriter& i32(std::int32_t v) { return raw(&v, sizeof v); }
  WireWriter& u64(std::uint64_t v) { return raw(&v, sizeof v); }
  WireWriter& f64(double v) { return raw(&v, sizeof v); }
  WireWriter& str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out_.append(s.data(), s.size());
    return *this;
  }
  // Bytes another writer encoded, appended as they are.
  WireWriter& raw(std::string_view bytes) { return raw(bytes.data(), bytes.size()); }
  const std::string& body() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  WireWriter& raw(const void* p, std::size_t n) {
    out_.append(static_cast<const char*>(p), n);
    return *this;
  }
  std::string out_;
};

// Reads a body front to back. A read past the end yields zero or empty and
// marks the reader bad; callers check ok() once, after the last field.
class WireReader {
 public:
  explicit WireReader(std::string_view body) : in_(body) {}
  std::uint8_t u8() { return fixed<std::uint8_t>(); }
  std::uint32_t u32() { return fixed<std::uint32_t>(); }
  std::int32_t i32() { return fixed<std::int32_t>(); }
  std::uint64_t u64() { return fixed<std::uint64_t>(); }
  double f64() { return fixed<double>(); }
  std::string_view str() {
    const std::uint32_t n = u32();
    if (n > in_.size()) return fail();
    std::string_view s = in_.substr(0, n);
    in_.remove_prefix(n);
    return s;
  }
  bool ok() const { return ok_; }
  bool at_end() const { return ok_ && in_.empty(); }

 private:
  template <class T>
  T fixed() {
    T v{};
    if (in_.size() < sizeof v) {
      fail();
      return v;
    }
    std::memcpy(&v, in_.data(), sizeof v);
    in_.remove_prefix(sizeof v);
    return v;
  }
  std::string_view fail() {
    ok_ = false;
    in_ = {};
    return {};
  }
  std::string_view in_;
  bool ok_ = true;
};

// What the server and its worker must agree on: the frames above and the
// layout of a lane's shared memory (lane_memory.hpp). Bump it with any change
// to either; the worker refuses to start for a server of another version
// (a worker of another build or install) instead of misreading its lanes.
inline constexpr unsigned kWireVersion = 2;

// The largest body a message carries inline; larger ones go in a memfd.
inline constexpr std::size_t kInlineMax = std::size_t{64} << 10;
// A message's header: u32 body length, u8 kind, u64 id.
inline constexpr std::size_t kHeaderSize = 4 + 1 + 8;

struct Frame {
  Kind kind{};
  std::uint64_t id = 0;
  std::string body;
};

// Sends one frame as one message on a SOCK_SEQPACKET socket; false when the
// peer is gone or the body is over kMaxBody. Messages are atomic, so threads
// may send on one socket at once.
bool send_frame(int fd, Kind kind, std::uint64_t id, std::string_view body);

enum class Received {
  frame,    // `out` holds the next frame
  closed,   // the peer closed its end (or sent an empty message)
  timeout,  // the socket's SO_RCVTIMEO passed with nothing to read
  broken,   // a message no sender of ours writes: short, truncated, a body
            // in anything but a sealed memfd of the length it claims
};

// A message's header, into the first kHeaderSize bytes of `out`.
void encode_header(char* out, Kind kind, std::uint64_t id, std::size_t length);
// A whole message (header and inline body) into `out`: frame, or broken
// when its length disagrees with its header or is over `max_body`.
Received decode_message(std::string_view message, Frame& out, std::size_t max_body = kInlineMax);

// Takes the next frame off a SOCK_SEQPACKET socket. `buffer` is the
// caller's, reused from call to call (grown to a whole inline message).
Received recv_frame(int fd, Frame& out, std::string& buffer);

}  // namespace airlock::isolation
