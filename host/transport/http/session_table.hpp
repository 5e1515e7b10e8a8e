// The live HTTP sessions of a server, by Mcp-Session-Id: created at
// initialize, found on every later request, ended by DELETE, by idling past
// the timeout, or at shutdown.
#pragma once

#include "transport/http/http_session.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace airlock::host::http {

// 32 bytes from the kernel's CSPRNG (getrandom), as 64 lowercase hex digits:
// 256 bits, visible ASCII, safe in a header and in a log.
std::string new_session_id();

class SessionTable {
 public:
  SessionTable(const ServerState& server, std::uint32_t max_sessions, std::chrono::seconds idle_timeout,
               HttpSession::Limits limits);
  // Closes every session left.
  ~SessionTable();
  SessionTable(const SessionTable&) = delete;
  SessionTable& operator=(const SessionTable&) = delete;

  // A new session for `identity`, or null when max_sessions are live.
  std::shared_ptr<HttpSession> create(std::string identity);
  // The session, if live and owned by `identity`; another identity's
  // session reads as unknown, so ids cannot be probed across callers.
  std::shared_ptr<HttpSession> find(std::string_view id, std::string_view identity);
  // Ends a session; its calls are cancelled off the caller's thread.
  bool remove(std::string_view id, std::string_view identity);

  // One 2026-07-28 request's exchange: an HttpSession of its own, never in
  // the table (no id finds it), but ended with the rest at shutdown (an
  // open subscriptions/listen then gets its result).
  std::shared_ptr<HttpSession> create_stateless(std::string identity);
  // Closes an exchange the connection is done with: at once when no call
  // of it still runs, else off the I/O thread, where calls still running
  // (the client hung up) are cancelled.
  void retire_stateless(std::shared_ptr<HttpSession> exchange);

  // Ends sessions idle past the timeout with nothing in flight. Returns how
  // many. Called periodically by the server.
  std::size_t expire(std::chrono::steady_clock::time_point now);

  // Ends every session: calls in flight get up to `grace` to answer, then
  // are cancelled, and get `abandon` more to return when given. False when
  // a call still runs then: its session stays, and the process must end.
  bool close_all(std::chrono::milliseconds grace, std::optional<std::chrono::milliseconds> abandon = std::nullopt);

  std::size_t size() const;

 private:
  // Closing a session waits for its calls to see the cancellation; that
  // happens here, never on an I/O thread.
  void retire(std::shared_ptr<HttpSession> session);
  void reap();

  const ServerState& server_;
  const std::uint32_t max_sessions_;
  const std::chrono::seconds idle_timeout_;
  const HttpSession::Limits limits_;

  mutable std::mutex mutex_;  // guards sessions_ and abandoned_
  std::unordered_map<std::string, std::shared_ptr<HttpSession>> sessions_;
  // Sessions close_all gave up on: a call that never returned still uses them.
  std::vector<std::shared_ptr<HttpSession>> abandoned_;
  std::vector<std::weak_ptr<HttpSession>> stateless_;  // live exchanges, pruned as they end

  std::mutex reap_mutex_;  // guards retiring_, stopping_
  std::condition_variable reap_wake_;
  std::deque<std::shared_ptr<HttpSession>> retiring_;
  bool stopping_ = false;
  std::thread reaper_;
};

}  // namespace airlock::host::http
