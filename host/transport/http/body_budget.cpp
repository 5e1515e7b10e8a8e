#include "transport/http/body_budget.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace airlock::host::http {

BodyBudget::BodyBudget(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 1)) {}

bool BodyBudget::acquire(const void* waiter, std::size_t bytes, std::function<void()> admitted) {
  std::lock_guard lock(mutex_);
  // Behind a queue, even a body that fits waits its turn: first come, first
  // served, so a stream of small-enough bodies cannot starve a large one.
  const bool now = queue_.empty() && fits(bytes);
  if (now)
    held_ += bytes;
  else
    queue_.push_back(Wait{waiter, bytes, std::move(admitted)});
  changed();
  return now;
}

bool BodyBudget::withdraw(const void* waiter) {
  std::vector<std::function<void()>> admitted;
  {
    std::lock_guard lock(mutex_);
    const auto it = std::find_if(queue_.begin(), queue_.end(), [&](const Wait& w) { return w.waiter == waiter; });
    if (it == queue_.end()) return false;
    queue_.erase(it);
    // The first in line may have been all that held the others back.
    admitted = admit_queued();
    changed();
  }
  for (auto& run : admitted) run();
  return true;
}

void BodyBudget::release(std::size_t bytes) {
  std::vector<std::function<void()>> admitted;
  {
    std::lock_guard lock(mutex_);
    held_ -= std::min(bytes, held_);
    admitted = admit_queued();
    changed();
  }
  for (auto& run : admitted) run();
}

std::vector<std::function<void()>> BodyBudget::admit_queued() {
  std::vector<std::function<void()>> admitted;
  while (!queue_.empty() && fits(queue_.front().bytes)) {
    held_ += queue_.front().bytes;
    admitted.push_back(std::move(queue_.front().admitted));
    queue_.pop_front();
  }
  return admitted;
}

std::size_t BodyBudget::held() const {
  std::lock_guard lock(mutex_);
  return held_;
}

std::size_t BodyBudget::waiting() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

}  // namespace airlock::host::http
