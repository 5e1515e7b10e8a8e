#include "executor/inline_calls.hpp"

namespace airlock::host {
namespace {
thread_local std::vector<InlineCalls::Job>* open_sink = nullptr;
}

InlineCalls::InlineCalls(std::vector<Job>& sink) : previous_(open_sink) { open_sink = &sink; }

InlineCalls::~InlineCalls() { open_sink = previous_; }

bool InlineCalls::offer(Job& job) {
  if (!open_sink) return false;
  open_sink->push_back(std::move(job));
  return true;
}

}  // namespace airlock::host
