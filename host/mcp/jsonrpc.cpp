#include "mcp/jsonrpc.hpp"

#include "util/json_text.hpp"
#include "util/strict_json.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <cstddef>
#include <new>

namespace airlock::host::jsonrpc {
namespace {

bool valid_id(const boost::json::value& id) { return id.is_string() || id.is_int64() || id.is_uint64(); }

// One message's arena, its first block inside it: a small request's nodes
// take one allocation, resource and all, that glibc serves from its
// per-thread cache. A monotonic_resource alone makes blocks of at least
// 1 KiB plus a header: past the cache's largest size, and glibc
// consolidates its fast bins before every such request, on every call.
// Past the first block it grows as a monotonic_resource does, except for
// large pieces (a tool's arguments, mostly one long string): each gets an
// allocation of its own size. The monotonic_resource would round one up to
// the next power of two, nearly doubling what every queued call holds.
class MessageArena final : public boost::json::memory_resource {
 public:
  MessageArena() = default;
  MessageArena(const MessageArena&) = delete;
  MessageArena& operator=(const MessageArena&) = delete;
  ~MessageArena() override {
    while (large_) {
      Large* next = large_->next;
      ::operator delete(large_);
      large_ = next;
    }
  }

 private:
  static constexpr std::size_t kLarge = 16 * 1024;
  // Sits in front of a large piece, keeping max_align_t alignment for it.
  struct alignas(std::max_align_t) Large {
    Large* next;
  };

  void* do_allocate(std::size_t n, std::size_t align) override {
    if (n < kLarge || align > alignof(std::max_align_t)) return blocks_.allocate(n, align);
    large_ = ::new (::operator new(sizeof(Large) + n)) Large{large_};
    return large_ + 1;
  }
  void do_deallocate(void*, std::size_t, std::size_t) override {}
  bool do_is_equal(const memory_resource& other) const noexcept override { return this == &other; }

  Large* large_ = nullptr;
  // The whole object, with make_shared_resource's count and vtable, stays
  // under the cache's 1,032 bytes.
  alignas(std::max_align_t) unsigned char first_block_[816];
  boost::json::monotonic_resource blocks_{first_block_, sizeof first_block_};
};

}  // namespace
}  // namespace airlock::host::jsonrpc

// Freeing into an arena does nothing; told so, Boost.JSON skips walking a
// value's nodes to free them, as it does for its own monotonic_resource.
template <>
struct boost::json::is_deallocate_trivial<airlock::host::jsonrpc::MessageArena> : std::true_type {};

namespace airlock::host::jsonrpc {

std::variant<Message, Failure> parse(std::string_view text) {
  // One parser for the transport thread, reused: building one per message
  // (with its stacks) costs more than parsing a small request.
  static const boost::json::parse_options options = [] {
    boost::json::parse_options o;
    o.max_depth = 128;
    return o;
  }();
  thread_local StrictJsonParser parser(options);
  // One arena per message: its dozens of small nodes come from one block and
  // go back with it when the last part of the message (often the arguments,
  // kept by the call in flight) is gone. The storage_ptr keeps it alive.
  std::string refusal;
  auto parsed = parser.parse(text, boost::json::make_shared_resource<MessageArena>(), refusal);
  if (!parsed) return Failure{kParseError, "parse error: " + refusal, nullptr};
  boost::json::value v = std::move(*parsed);
  if (v.is_array()) return Failure{kInvalidRequest, "invalid request: batch requests are not supported", nullptr};
  auto* obj = v.if_object();
  if (!obj) return Failure{kInvalidRequest, "invalid request: a message must be a JSON object", nullptr};

  Message m;
  m.bytes = text.size();
  const auto* id = obj->if_contains("id");
  if (id && !valid_id(*id))
    return Failure{kInvalidRequest, "invalid request: id must be a string or an integer", nullptr};
  if (id) m.id = *id;

  const auto* version = obj->if_contains("jsonrpc");
  if (!version || *version != "2.0")
    return Failure{kInvalidRequest, "invalid request: jsonrpc must be \"2.0\"", m.id};

  const auto* method = obj->if_contains("method");
  if (!method) {
    if (id && (obj->contains("result") || obj->contains("error"))) {
      m.kind = Message::Kind::response;
      m.is_error = obj->contains("error");
      m.outcome = std::move(obj->at(m.is_error ? "error" : "result"));
      return m;
    }
    return Failure{kInvalidRequest, "invalid request: method is missing", m.id};
  }
  if (!method->is_string()) return Failure{kInvalidRequest, "invalid request: method must be a string", m.id};
  m.method = method->get_string();
  m.kind = id ? Message::Kind::request : Message::Kind::notification;

  if (auto* params = obj->if_contains("params")) {
    if (!params->is_object() && !params->is_array())
      return Failure{kInvalidRequest, "invalid request: params must be an object or an array", m.id};
    // Move-constructed, not assigned: assigning a value into one with other
    // storage deep-copies it, and params is most of the message.
    return Message{m.kind, std::move(m.id), std::move(m.method), boost::json::value(std::move(*params)), {}, false,
                   m.bytes};
  }
  return m;
}

void append_result_prefix(std::string& out, const boost::json::value& id) {
  out.append(R"({"jsonrpc":"2.0","id":)");
  append_json(out, id);  // an id is an integer or a short string: no serializer needed
  out.append(R"(,"result":)");
}

std::string result(const boost::json::value& id, std::string_view result_json) {
  std::string out;
  out.reserve(result_json.size() + 64);
  append_result_prefix(out, id);
  out.append(result_json).push_back(kResultSuffix);
  return out;
}

std::string error(const boost::json::value& id, int code, std::string_view message) {
  boost::json::object o{{"jsonrpc", "2.0"},
                        {"id", id},
                        {"error", boost::json::object{{"code", code}, {"message", message}}}};
  return boost::json::serialize(o);
}

std::string error(const boost::json::value& id, int code, std::string_view message, const boost::json::value& data) {
  boost::json::object error{{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = data;
  boost::json::object o{{"jsonrpc", "2.0"}};
  if (!id.is_null()) o["id"] = id;
  o["error"] = std::move(error);
  return boost::json::serialize(o);
}

}  // namespace airlock::host::jsonrpc
