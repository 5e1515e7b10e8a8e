#include "isolation/worker/worker_channel.hpp"

#include <unistd.h>

namespace airlock::isolation {

bool WorkerChannel::send(Kind kind, std::uint64_t id, std::string_view body) {
  std::lock_guard lock(write_mutex_);
  return send_frame(fd_, kind, id, body);
}

std::string WorkerChannel::call(std::uint64_t scope, Fn fn, std::string_view args) {
  WireWriter w;
  w.u64(scope).u32(static_cast<std::uint32_t>(fn));
  std::string body = w.take();
  body.append(args);

  Waiter waiter;
  std::uint64_t id = 0;
  {
    std::lock_guard lock(waiters_mutex_);
    id = next_id_++;
    waiters_.emplace(id, &waiter);
  }
  if (!send(Kind::host_call, id, body)) _exit(0);
  std::unique_lock lock(waiters_mutex_);
  replied_.wait(lock, [&] { return waiter.done; });
  return std::move(waiter.body);
}

void WorkerChannel::post(std::uint64_t scope, Fn fn, std::string_view args) {
  WireWriter w;
  w.u64(scope).u32(static_cast<std::uint32_t>(fn));
  std::string body = w.take();
  body.append(args);
  // Id 0: the server answers nothing.
  if (!send(Kind::host_call, 0, body)) _exit(0);
}

void WorkerChannel::deliver(std::uint64_t id, std::string body) {
  std::lock_guard lock(waiters_mutex_);
  auto it = waiters_.find(id);
  if (it == waiters_.end()) return;
  it->second->body = std::move(body);
  it->second->done = true;
  waiters_.erase(it);
  // One condition for every waiter: replies are rare next to the work
  // between them, and a waiter wakes only to find its own flag.
  replied_.notify_all();
}

}  // namespace airlock::isolation
