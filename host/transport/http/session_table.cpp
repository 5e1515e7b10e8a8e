#include "transport/http/session_table.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>
#include <sys/random.h>

namespace airlock::host::http {

std::string new_session_id() {
  unsigned char bytes[32];
  std::size_t filled = 0;
  while (filled < sizeof bytes) {
    const ssize_t n = getrandom(bytes + filled, sizeof bytes - filled, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      // No entropy means no safe id; refusing beats a guessable session.
      throw std::runtime_error("getrandom failed: cannot create a session id");
    }
    filled += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(64, '0');
  for (std::size_t i = 0; i < sizeof bytes; ++i) {
    id[2 * i] = kHex[bytes[i] >> 4];
    id[2 * i + 1] = kHex[bytes[i] & 0xf];
  }
  return id;
}

SessionTable::SessionTable(const ServerState& server, std::uint32_t max_sessions, std::chrono::seconds idle_timeout,
                           HttpSession::Limits limits)
    : server_(server), max_sessions_(max_sessions), idle_timeout_(idle_timeout), limits_(limits),
      reaper_([this] { reap(); }) {}

SessionTable::~SessionTable() {
  close_all(std::chrono::milliseconds(0));
  {
    std::lock_guard lock(reap_mutex_);
    stopping_ = true;
  }
  reap_wake_.notify_all();
  reaper_.join();
}

std::shared_ptr<HttpSession> SessionTable::create(std::string identity) {
  std::lock_guard lock(mutex_);
  if (sessions_.size() >= max_sessions_) return nullptr;
  auto session = std::make_shared<HttpSession>(server_, new_session_id(), std::move(identity), limits_);
  sessions_.emplace(session->id(), session);
  return session;
}

std::shared_ptr<HttpSession> SessionTable::create_stateless(std::string identity) {
  auto exchange = std::make_shared<HttpSession>(server_, std::string(), std::move(identity), limits_, true);
  std::lock_guard lock(mutex_);
  std::erase_if(stateless_, [](const auto& weak) { return weak.expired(); });
  stateless_.push_back(exchange);
  return exchange;
}

void SessionTable::retire_stateless(std::shared_ptr<HttpSession> exchange) {
  // Its call over (as when a cheap call ran on the I/O thread), closing it
  // waits for nothing: it ends here, not with a wake of the reaper per
  // request.
  if (!exchange->mcp().calls_in_flight()) {
    exchange->end_all_streams();
    exchange->mcp().close();
    return;
  }
  retire(std::move(exchange));
}

std::shared_ptr<HttpSession> SessionTable::find(std::string_view id, std::string_view identity) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(std::string(id));
  if (it == sessions_.end() || it->second->identity() != identity) return nullptr;
  return it->second;
}

bool SessionTable::remove(std::string_view id, std::string_view identity) {
  std::shared_ptr<HttpSession> session;
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(std::string(id));
    if (it == sessions_.end() || it->second->identity() != identity) return false;
    session = std::move(it->second);
    sessions_.erase(it);
  }
  retire(std::move(session));
  return true;
}

std::size_t SessionTable::expire(std::chrono::steady_clock::time_point now) {
  std::vector<std::shared_ptr<HttpSession>> expired;
  {
    std::lock_guard lock(mutex_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if (now - it->second->last_used() > idle_timeout_ && !it->second->busy()) {
        expired.push_back(std::move(it->second));
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& session : expired) {
    spdlog::info("session {}: expired after {} s idle", session->id().substr(0, 8), idle_timeout_.count());
    retire(std::move(session));
  }
  return expired.size();
}

bool SessionTable::close_all(std::chrono::milliseconds grace, std::optional<std::chrono::milliseconds> abandon) {
  std::unordered_map<std::string, std::shared_ptr<HttpSession>> all;
  {
    std::lock_guard lock(mutex_);
    all.swap(sessions_);
    std::size_t n = 0;
    for (auto& weak : std::exchange(stateless_, {}))
      if (auto exchange = weak.lock()) all.emplace(fmt::format("stateless-{}", n++), std::move(exchange));
  }
  // Stop taking calls everywhere first, so the grace period is shared, not
  // spent once per session.
  const auto deadline = std::chrono::steady_clock::now() + grace;
  const auto abandon_at = deadline + abandon.value_or(std::chrono::milliseconds(0));
  const auto until = [](std::chrono::steady_clock::time_point t) {
    return std::max(std::chrono::duration_cast<std::chrono::milliseconds>(t - std::chrono::steady_clock::now()),
                    std::chrono::milliseconds(0));
  };
  bool ended = true;
  for (auto& [id, session] : all) {
    if (session->mcp().close(until(deadline), abandon ? std::optional(until(abandon_at)) : std::nullopt)) continue;
    ended = false;
    // A call still uses it: kept until the process ends.
    std::lock_guard lock(mutex_);
    abandoned_.push_back(session);
  }
  for (auto& [id, session] : all) session->end_all_streams();
  return ended;
}

std::size_t SessionTable::size() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

void SessionTable::retire(std::shared_ptr<HttpSession> session) {
  session->end_all_streams();
  {
    std::lock_guard lock(reap_mutex_);
    retiring_.push_back(std::move(session));
  }
  reap_wake_.notify_one();
}

void SessionTable::reap() {
  std::unique_lock lock(reap_mutex_);
  while (true) {
    reap_wake_.wait(lock, [this] { return stopping_ || !retiring_.empty(); });
    if (retiring_.empty()) return;
    auto session = std::move(retiring_.front());
    retiring_.pop_front();
    lock.unlock();
    // The last owner may be a connection still writing; whoever drops it
    // last runs the destructor, which closes. Closing here makes sure no
    // I/O thread does the waiting.
    session->mcp().close();
    session.reset();
    lock.lock();
  }
}

}  // namespace airlock::host::http
