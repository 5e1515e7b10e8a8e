// How thoroughly the contract checks run, and what they are fed.
#pragma once

#include "check/corpus.hpp"

#include <chrono>
#include <cstdint>
#include <vector>

namespace airlock::host {
class IsolatedPlugin;
}

namespace airlock::host::check {

enum class CheckDepth {
  full,  // `airlock check` and airlock::testing: every check, the full corpus
  fast,  // [plugins] require_check at start: small corpus, few repeats, no waiting
};

struct CheckOptions {
  std::uint64_t seed = 1;
  CheckDepth depth = CheckDepth::full;
  std::vector<CorpusItem> operator_corpus;  // --corpus DIR, added to the generated corpus
  unsigned threads = 8;                      // callers at once in the concurrency checks
  // One sanitizer call may take this long (the host's default step timeout).
  std::chrono::milliseconds call_budget{1000};
  // One tool call may take this long before it counts as hung.
  std::chrono::milliseconds tool_timeout{5000};
  // A cancellable tool must return this soon after it is cancelled.
  std::chrono::milliseconds cancel_bound{1000};
  // The worker the checked plugin runs in; null: in this process, where a
  // tool call runs in a forked child so the check survives it.
  IsolatedPlugin* worker = nullptr;
};

}  // namespace airlock::host::check
