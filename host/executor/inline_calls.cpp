#include "executor/inline_calls.hpp"

namespace airlock::host {
namespace {
thread_local std::vector<InlineCalls::Job>* open = nullptr;
}

InlineCalls::InlineCalls(std::vector<Job>& sink) : previous_(open) { open = &sink; }

InlineCalls::~InlineCalls() { open = previous_; }

std::vector<InlineCalls::Job>* InlineCalls::open_sink() { return open; }

}  // namespace airlock::host
