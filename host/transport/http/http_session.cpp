// Routing a session's messages onto streams, and keeping what was sent so a
// stream can be resumed. One mutex per session: the messages of one session
// are few next to everything else a call does, and it keeps the order of
// events on a stream the order the session produced them in.
#include "transport/http/http_session.hpp"

#include "transport/http/sse.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <iterator>

namespace airlock::host::http {

std::string format_event_id(EventPosition at) { return fmt::format("{}-{}", at.stream, at.seq); }

std::optional<EventPosition> parse_event_id(std::string_view id) {
  const auto dash = id.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  EventPosition at;
  const char* end = id.data() + id.size();
  auto [stream_end, e1] = std::from_chars(id.data(), id.data() + dash, at.stream);
  auto [seq_end, e2] = std::from_chars(id.data() + dash + 1, end, at.seq);
  if (e1 != std::errc() || e2 != std::errc() || stream_end != id.data() + dash || seq_end != end) return std::nullopt;
  return at;
}

HttpSession::HttpSession(const ServerState& server, std::string id, std::string identity, Limits limits,
                         bool stateless)
    : id_(std::move(id)),
      identity_(std::move(identity)),
      limits_(limits),
      stateless_(stateless),
      last_used_(std::chrono::steady_clock::now()),
      session_(server, [this](std::string message, Outbound where) { route(std::move(message), where); }, id_,
               identity_) {
  streams_.emplace(kStandaloneStream, Stream{});
  session_.set_end_stream([this](std::string_view request_key) { end_stream(request_key); });
}

HttpSession::~HttpSession() {
  end_all_streams();
  session_.close();
}

std::optional<std::uint32_t> HttpSession::open_request_stream(std::string request_key, bool json) {
  std::lock_guard lock(mutex_);
  if (live_.contains(request_key)) return std::nullopt;
  const std::uint32_t number = next_stream_++;
  Stream& stream = streams_[number];
  stream.json = json;
  if (!json && !stateless_) {
    // The priming event is seq 0: a client that reads only it can resume.
    Event priming{0, {}};
    append_sse_priming(priming.text, format_event_id({number, 0}), limits_.retry_ms);
    kept_bytes_ += priming.text.size();
    stream.events.push_back(std::move(priming));
  }
  stream.request_key = request_key;
  live_.emplace(std::move(request_key), number);
  return number;
}

void HttpSession::route(std::string message, Outbound where) {
  std::shared_ptr<StreamSink> wake;
  {
    std::lock_guard lock(mutex_);
    std::uint32_t number = kStandaloneStream;
    if (!where.request.empty()) {
      // A heterogeneous lookup would save this copy; the key is a short id.
      if (auto it = live_.find(std::string(where.request)); it != live_.end()) {
        number = it->second;
        if (where.final) live_.erase(it);
      }
    }
    Stream& stream = streams_.at(number);
    // A stateless exchange has only its request's stream.
    if (stateless_ && (number == kStandaloneStream || (stream.json && !where.final))) return;
    if (message.empty()) {
      // The session will not answer this request (the client cancelled it):
      // its stream just ends.
      if (number == kStandaloneStream || !where.final) return;
      stream.finished = true;
      if (stream.json) stream.json_response.emplace();
      wake = stream.sink.lock();
    } else if (number != kStandaloneStream && stream.json) {
      if (where.final) {
        stream.json_response = std::move(message);
        stream.finished = true;
        wake = stream.sink.lock();
      } else {
        // A JSON response has room for nothing but itself.
        Stream& standalone = streams_.at(kStandaloneStream);
        wake = append_locked(kStandaloneStream, standalone, message);
      }
    } else {
      wake = append_locked(number, stream, message);
      if (where.final && number != kStandaloneStream) stream.finished = true;
    }
    enforce_budget_locked();
  }
  if (wake) wake->wake();
}

std::shared_ptr<StreamSink> HttpSession::append_locked(std::uint32_t number, Stream& stream, std::string_view message) {
  Event event{stream.next_seq++, {}};
  event.text.reserve(message.size() + 40);
  append_sse_event(event.text, stateless_ ? std::string() : format_event_id({number, event.seq}), message);
  kept_bytes_ += event.text.size();
  stream.events.push_back(std::move(event));
  return stream.sink.lock();
}

// Over budget, the oldest events a client already has go first (whole
// answered streams, then the front of the rest); only then events nobody
// read yet, with a warning, since a client resuming later will miss them.
void HttpSession::enforce_budget_locked() {
  // Answered streams also count by number, so many tiny answers cannot grow
  // the map without bound inside the byte budget.
  constexpr std::size_t kMaxKeptStreams = 256;
  if (kept_bytes_ <= limits_.replay_bytes && streams_.size() <= kMaxKeptStreams) return;
  for (auto it = streams_.begin();
       it != streams_.end() && (kept_bytes_ > limits_.replay_bytes || streams_.size() > kMaxKeptStreams);) {
    it = delivered(it->first, it->second) ? erase_locked(it) : std::next(it);
  }
  // Within budget once answered streams are gone (the usual case, where
  // only their count was over): the streams still open need no visit.
  if (kept_bytes_ <= limits_.replay_bytes) return;
  for (auto& [number, s] : streams_) {
    while (kept_bytes_ > limits_.replay_bytes && !s.events.empty() && s.events.front().seq < s.handed_out) {
      kept_bytes_ -= s.events.front().text.size();
      s.events.pop_front();
    }
  }
  if (kept_bytes_ <= limits_.replay_bytes) return;
  for (auto& [number, s] : streams_) {
    while (kept_bytes_ > limits_.replay_bytes && !s.events.empty()) {
      spdlog::warn("session {}: stream {} dropped an undelivered event: over the {}-byte replay budget "
                   "(transport.http.replay_bytes)", id_.substr(0, 8), number, limits_.replay_bytes);
      kept_bytes_ -= s.events.front().text.size();
      s.events.pop_front();
    }
  }
}

HttpSession::Attach HttpSession::attach(std::uint32_t number, const std::shared_ptr<StreamSink>& sink,
                                        std::optional<std::uint64_t> from, std::uint64_t& cursor, bool replace) {
  std::shared_ptr<StreamSink> displaced;
  {
    std::lock_guard lock(mutex_);
    auto it = streams_.find(number);
    if (it == streams_.end() || closing_) return Attach::unknown_stream;
    Stream& stream = it->second;
    auto current = stream.sink.lock();
    if (current && current != sink) {
      if (!replace) return Attach::busy;
      displaced = std::move(current);
    }
    stream.sink = sink;
    stream.cut = false;
    cursor = from.value_or(stream.handed_out);
  }
  // Woken after it lost the stream, the old connection ends its response.
  if (displaced) displaced->wake();
  return Attach::ok;
}

void HttpSession::detach(std::uint32_t number, const StreamSink* sink) {
  std::lock_guard lock(mutex_);
  if (auto it = streams_.find(number); it != streams_.end() && it->second.sink.lock().get() == sink)
    it->second.sink.reset();
}

HttpSession::Pull HttpSession::pull(std::uint32_t number, std::uint64_t& cursor, const StreamSink* reader) {
  std::lock_guard lock(mutex_);
  Pull out;
  auto it = streams_.find(number);
  if (it == streams_.end()) {
    out.ended = true;
    return out;
  }
  Stream& stream = it->second;
  if (stream.sink.lock().get() != reader) {
    out.ended = true;
    return out;
  }
  if (!stream.events.empty() && stream.events.front().seq > cursor) out.lost = true;
  for (const Event& e : stream.events)
    if (e.seq >= cursor) out.bytes += e.text;
  cursor = stream.next_seq;
  stream.handed_out = std::max(stream.handed_out, cursor);
  out.ended = stream.finished || stream.cut || closing_;
  return out;
}

void HttpSession::forget_delivered(std::uint32_t number) {
  std::lock_guard lock(mutex_);
  if (auto it = streams_.find(number); it != streams_.end() && delivered(number, it->second)) erase_locked(it);
}

bool HttpSession::delivered(std::uint32_t number, const Stream& stream) {
  const bool all_handed_out = stream.next_seq == stream.handed_out || stream.events.empty();
  return number != kStandaloneStream && stream.finished && all_handed_out && stream.sink.expired();
}

std::map<std::uint32_t, HttpSession::Stream>::iterator HttpSession::erase_locked(
    std::map<std::uint32_t, Stream>::iterator it) {
  for (const Event& e : it->second.events) kept_bytes_ -= e.text.size();
  return streams_.erase(it);
}

bool HttpSession::answered(std::uint32_t number) const {
  std::lock_guard lock(mutex_);
  const auto it = streams_.find(number);
  return it != streams_.end() && it->second.finished;
}

std::optional<std::string> HttpSession::take_json_response(std::uint32_t number) {
  std::lock_guard lock(mutex_);
  auto it = streams_.find(number);
  if (it == streams_.end() || !it->second.json_response) return std::nullopt;
  std::string response = std::move(*it->second.json_response);
  streams_.erase(it);
  return response;
}

void HttpSession::end_stream(std::string_view request_key) {
  std::shared_ptr<StreamSink> wake;
  {
    std::lock_guard lock(mutex_);
    auto it = live_.find(std::string(request_key));
    if (it == live_.end()) return;
    Stream& stream = streams_.at(it->second);
    if (stream.json) return;  // one body: nothing to resume
    stream.cut = true;
    wake = stream.sink.lock();
  }
  if (wake) wake->wake();
}

void HttpSession::end_all_streams() {
  std::vector<std::shared_ptr<StreamSink>> wake;
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    for (auto& [number, stream] : streams_)
      if (auto sink = stream.sink.lock()) wake.push_back(std::move(sink));
  }
  for (auto& sink : wake) sink->wake();
}

bool HttpSession::closing() const {
  std::lock_guard lock(mutex_);
  return closing_;
}

void HttpSession::touch() {
  std::lock_guard lock(mutex_);
  last_used_ = std::chrono::steady_clock::now();
}

std::chrono::steady_clock::time_point HttpSession::last_used() const {
  std::lock_guard lock(mutex_);
  return last_used_;
}

bool HttpSession::busy() const {
  std::lock_guard lock(mutex_);
  if (!live_.empty()) return true;
  for (const auto& [number, stream] : streams_)
    if (!stream.sink.expired()) return true;
  return false;
}

}  // namespace airlock::host::http
