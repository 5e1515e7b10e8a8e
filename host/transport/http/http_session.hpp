// One MCP session over Streamable HTTP: the transport-agnostic Session, and
// the event streams its messages travel on. Each POST that carries a request
// opens a stream; the session's standalone stream (GET) carries the rest.
// Every event is kept, within a byte budget, after it is written, so a client
// that lost its connection resumes with Last-Event-ID and misses nothing,
// however late it comes back; except a request's stream whose response was
// written whole, answer and end: its client has it all, and nothing resumes
// a response that ended.
#pragma once

#include "mcp/session.hpp"

#include <chrono>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace airlock::host::http {

// What an HTTP connection that serves a stream implements: told, from any
// thread, that its stream has something new (events, the end, a cut).
class StreamSink {
 public:
  virtual ~StreamSink() = default;
  virtual void wake() = 0;
};

// Where in a session's streams an event is: "<stream>-<seq>" on the wire.
struct EventPosition {
  std::uint32_t stream = 0;
  std::uint64_t seq = 0;
};
std::string format_event_id(EventPosition at);
std::optional<EventPosition> parse_event_id(std::string_view id);

class HttpSession {
 public:
  struct Limits {
    std::size_t replay_bytes;   // events kept across all streams of the session
    std::uint32_t retry_ms;     // sent in every priming event
  };

  // `stateless`: one 2026-07-28 request, not a session: it has no
  // standalone stream, its events carry no ids (nothing resumes them), and a
  // JSON response drops the request's other messages (there is nowhere else
  // to send them).
  HttpSession(const ServerState& server, std::string id, std::string identity, Limits limits, bool stateless = false);
  // Closes the session (its calls are cancelled) if nobody did.
  ~HttpSession();
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  const std::string& id() const { return id_; }
  const std::string& identity() const { return identity_; }
  bool stateless() const { return stateless_; }
  Session& mcp() { return session_; }

  // A request's stream, opened before the request reaches the session so
  // that nothing it says can be missed. nullopt when the id is already in
  // flight here. `json`: the client gets the response alone, as one
  // application/json body; the request's other messages go to the
  // standalone stream.
  std::optional<std::uint32_t> open_request_stream(std::string request_key, bool json);

  // Attaches `sink` to a stream: it then wakes on every change. A sink that
  // was attached there before is detached (and woken, to end its response):
  // a client resuming a stream has given up on the old connection.
  // `from`: where reading starts; for the standalone stream without one,
  // at the first event never handed out.
  enum class Attach { ok, unknown_stream, busy };
  Attach attach(std::uint32_t stream, const std::shared_ptr<StreamSink>& sink, std::optional<std::uint64_t> from,
                std::uint64_t& cursor, bool replace);
  void detach(std::uint32_t stream, const StreamSink* sink);

  // The events of `stream` from `cursor` on, SSE-framed, and the cursor past
  // them. `ended`: nothing more will be written on this response (the
  // request was answered and all of it handed out, the stream was cut,
  // another connection took it over, or the session is closing).
  struct Pull {
    std::string bytes;
    bool ended = false;
    bool lost = false;  // events between cursor and the oldest kept were dropped for the budget
  };
  Pull pull(std::uint32_t stream, std::uint64_t& cursor, const StreamSink* reader);
  // The response that handed out the whole of answered `stream` was written
  // to the end: its events go now, unless another connection took the
  // stream over meanwhile. Keeping them would hold every answer of the
  // session up to the replay budget (at 256 KiB x 32 sessions, 260 MiB).
  void forget_delivered(std::uint32_t stream);
  // Whether `stream`'s request is answered already, so that one pull would
  // hand out all it will ever hold.
  bool answered(std::uint32_t stream) const;

  // The response of a JSON-mode stream, once the session produced it.
  std::optional<std::string> take_json_response(std::uint32_t stream);

  // Ends every stream's current response (shutdown, DELETE).
  void end_all_streams();
  bool closing() const;

  // For expiry: when a request last touched the session, and whether
  // anything (a call, an attached client) is still using it.
  void touch();
  std::chrono::steady_clock::time_point last_used() const;
  bool busy() const;

  static constexpr std::uint32_t kStandaloneStream = 0;

 private:
  struct Event {
    std::uint64_t seq;
    std::string text;  // framed
  };
  struct Stream {
    std::string request_key;  // empty for the standalone stream
    bool json = false;
    bool finished = false;    // its response was appended
    bool cut = false;         // the tool asked to end the current response early
    std::uint64_t next_seq = 1;
    std::uint64_t handed_out = 0;  // highest seq any pull returned, plus one
    // A list, not a deque: a stream mostly holds one or two events, and a
    // deque allocates a map and a block when it is made and again when it
    // is moved (as a new stream is into streams_): six allocations for a
    // stateless request's two streams before any event.
    std::list<Event> events;
    std::optional<std::string> json_response;
    std::weak_ptr<StreamSink> sink;
  };

  // Session::Send: from the transport's thread and from workers.
  void route(std::string message, Outbound where);
  void end_stream(std::string_view request_key);
  std::shared_ptr<StreamSink> append_locked(std::uint32_t number, Stream& stream, std::string_view message);
  void enforce_budget_locked();
  // A request's stream answered and handed out whole, with no connection
  // on it: its client has all of it.
  static bool delivered(std::uint32_t number, const Stream& stream);
  // Drops a stream and its events from the budget; the next stream.
  std::map<std::uint32_t, Stream>::iterator erase_locked(std::map<std::uint32_t, Stream>::iterator it);

  const std::string id_;
  const std::string identity_;
  const Limits limits_;
  const bool stateless_;

  mutable std::mutex mutex_;  // guards everything below
  std::map<std::uint32_t, Stream> streams_;
  std::unordered_map<std::string, std::uint32_t> live_;  // request key -> stream, until answered
  std::uint32_t next_stream_ = 1;
  std::size_t kept_bytes_ = 0;
  bool closing_ = false;
  std::chrono::steady_clock::time_point last_used_;

  // Last: destroyed first, so no worker still routes into the streams above.
  Session session_;
};

}  // namespace airlock::host::http
