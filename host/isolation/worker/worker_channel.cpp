#include "isolation/worker/worker_channel.hpp"

#include <unistd.h>

namespace airlock::isolation {
namespace {

std::string host_call_body(std::uint64_t scope, Fn fn, std::string_view args) {
  WireWriter w;
  w.u64(scope).u32(static_cast<std::uint32_t>(fn));
  std::string body = w.take();
  body.append(args);
  return body;
}

}  // namespace

std::uint64_t ReplyWaiters::add(Waiter& waiter) {
  const std::uint64_t id = next_id_++;
  waiters_.emplace(id, &waiter);
  return id;
}

bool ReplyWaiters::deliver(std::uint64_t id, std::string body) {
  auto it = waiters_.find(id);
  if (it == waiters_.end()) return false;
  it->second->body = std::move(body);
  it->second->done = true;
  waiters_.erase(it);
  return true;
}

template <class Ready>
void LaneChannel::read_until(std::unique_lock<std::mutex>& lock, Ready ready) {
  while (!ready()) {
    if (reading_) {
      changed_.wait(lock);
      continue;
    }
    reading_ = true;
    lock.unlock();
    Frame frame;
    const Received got = take(memory_.region()->to_worker, fd_, frame, buffer_, std::nullopt);
    lock.lock();
    reading_ = false;
    // The server is gone (or wrote what it never writes): nobody is left
    // to serve, and a plugin must not run on unsupervised.
    if (got != Received::frame) _exit(0);
    if (frame.kind == Kind::reply)
      replies_.deliver(frame.id, std::move(frame.body));  // to nobody: its caller gave up
    else
      hooks_.push_back(std::move(frame));
    // Whoever waits for this frame, or to read next, looks again. Nobody
    // waits in the usual case, and then this costs no system call.
    changed_.notify_all();
  }
}

Frame LaneChannel::next_hook() {
  std::unique_lock lock(mutex_);
  read_until(lock, [&] { return !hooks_.empty(); });
  Frame frame = std::move(hooks_.front());
  hooks_.pop_front();
  return frame;
}

void LaneChannel::send(Kind kind, std::uint64_t id, std::string_view body) {
  std::lock_guard lock(write_mutex_);
  if (post(memory_.region()->to_server, fd_, kind, id, body, std::nullopt) != Received::frame) _exit(0);
}

std::string LaneChannel::call(std::string_view body) {
  ReplyWaiters::Waiter waiter;
  std::uint64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    id = replies_.add(waiter);
  }
  send(Kind::host_call, id, body);
  std::unique_lock lock(mutex_);
  read_until(lock, [&] { return waiter.done; });
  return std::move(waiter.body);
}

WorkerChannel::WorkerChannel(int control_fd, const std::vector<int>& lane_fds, const std::vector<int>& lane_memories)
    : control_fd_(control_fd) {
  for (std::size_t i = 0; i < lane_fds.size(); ++i) {
    LaneMemory memory(lane_memories[i]);
    // Without its memory a lane cannot work, and the server would wait on
    // it: better no worker at all.
    if (!memory.region()) _exit(4);
    close(lane_memories[i]);
    lanes_.push_back(std::make_unique<LaneChannel>(lane_fds[i], std::move(memory)));
  }
}

bool WorkerChannel::send(Kind kind, std::uint64_t id, std::string_view body) {
  return send_frame(control_fd_, kind, id, body);
}

void WorkerChannel::enter(std::uint64_t scope, LaneChannel& lane) {
  std::lock_guard lock(scopes_mutex_);
  scopes_[scope] = &lane;
}

void WorkerChannel::leave(std::uint64_t scope) {
  std::lock_guard lock(scopes_mutex_);
  scopes_.erase(scope);
}

LaneChannel* WorkerChannel::lane_of(std::uint64_t scope) {
  if (scope == 0) return nullptr;
  std::lock_guard lock(scopes_mutex_);
  auto it = scopes_.find(scope);
  return it == scopes_.end() ? nullptr : it->second;
}

std::string WorkerChannel::call(std::uint64_t scope, Fn fn, std::string_view args) {
  const std::string body = host_call_body(scope, fn, args);
  if (LaneChannel* lane = lane_of(scope)) return lane->call(body);

  ReplyWaiters::Waiter waiter;
  std::uint64_t id = 0;
  {
    std::lock_guard lock(control_mutex_);
    id = control_replies_.add(waiter);
  }
  if (!send(Kind::host_call, id, body)) _exit(0);
  std::unique_lock lock(control_mutex_);
  replied_.wait(lock, [&] { return waiter.done; });
  return std::move(waiter.body);
}

void WorkerChannel::post(std::uint64_t scope, Fn fn, std::string_view args) {
  const std::string body = host_call_body(scope, fn, args);
  // Id 0: the server answers nothing.
  if (LaneChannel* lane = lane_of(scope)) return lane->send(Kind::host_call, 0, body);
  if (!send(Kind::host_call, 0, body)) _exit(0);
}

void WorkerChannel::deliver(std::uint64_t id, std::string body) {
  std::lock_guard lock(control_mutex_);
  // One condition for every waiter: replies on the control socket are rare
  // next to the work between them, and a waiter wakes only to find its own
  // flag.
  if (control_replies_.deliver(id, std::move(body))) replied_.notify_all();
}

}  // namespace airlock::isolation
