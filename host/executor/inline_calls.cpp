#include "executor/inline_calls.hpp"

namespace airlock::host {
namespace {
thread_local std::vector<InlineCalls::Job>* open = nullptr;
}

InlineCalls::InlineCalls(std::vector<Job>& sink) : previous_(open) { open = &sink; }

InlineCalls::~InlineCalls() { open = previous_; }

std::vector<InlineCalls::Job>* InlineCalls::open_sink() { return open; }

std::function<void()> InlineCalls::timed(const Job& job) {
  return [run = job.run, cost = job.cost] {
    const auto started = std::chrono::steady_clock::now();
    run();
    if (cost) cost->observe(std::chrono::steady_clock::now() - started);
  };
}

}  // namespace airlock::host
