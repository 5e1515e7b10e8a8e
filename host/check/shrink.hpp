// Shrinking a failing input to a small one that still fails: delta debugging
// (Zeller's ddmin) over lines first, then over bytes, within a budget of
// attempts and time so a check stays bounded whatever the plugin does.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace airlock::host::check {

struct ShrinkBudget {
  std::size_t attempts = 400;
  std::chrono::milliseconds time{1500};
};

// Returns the smallest input found for which `fails` is true; `input` itself
// must fail. `fails` is called with candidates only, never with `input`.
std::string shrink(std::string input, const std::function<bool(const std::string&)>& fails,
                   ShrinkBudget budget = {});

}  // namespace airlock::host::check
