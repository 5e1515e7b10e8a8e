// ddmin, on units that are lines and then bytes: split the input into n
// chunks; if the input without one chunk still fails, keep that and coarsen
// (n - 1); otherwise refine (2n) until the chunks are single units. Lines
// first because a hazard is usually one line of a large input, and removing
// whole lines reaches it in a few attempts where bytes would need thousands.
#include "check/shrink.hpp"

#include <algorithm>
#include <vector>

namespace airlock::host::check {
namespace {

using Clock = std::chrono::steady_clock;

struct Attempts {
  const std::function<bool(const std::string&)>& fails;
  std::size_t left;
  Clock::time_point deadline;

  bool exhausted() const { return left == 0 || Clock::now() >= deadline; }
  bool operator()(const std::string& candidate) {
    if (exhausted()) return false;
    --left;
    return fails(candidate);
  }
};

std::string join(const std::vector<std::string_view>& units, std::size_t skip_from, std::size_t skip_to) {
  std::string out;
  for (std::size_t i = 0; i < units.size(); ++i)
    if (i < skip_from || i >= skip_to) out += units[i];
  return out;
}

// One ddmin run over `units` (views into `input`); returns the reduced input.
std::string ddmin(const std::string& input, std::vector<std::string_view> units, Attempts& attempts) {
  std::string current = input;
  std::size_t n = 2;
  while (units.size() >= 2 && !attempts.exhausted()) {
    const std::size_t chunk = (units.size() + n - 1) / n;
    bool reduced = false;
    for (std::size_t from = 0; from < units.size() && !attempts.exhausted(); from += chunk) {
      const std::size_t to = std::min(units.size(), from + chunk);
      std::string candidate = join(units, from, to);
      if (!attempts(candidate)) continue;
      // Keep the complement: rebuild the units as views into the new text.
      std::vector<std::string_view> kept;
      current = std::move(candidate);
      std::size_t at = 0;
      for (std::size_t i = 0; i < units.size(); ++i) {
        if (i >= from && i < to) continue;
        kept.emplace_back(current.data() + at, units[i].size());
        at += units[i].size();
      }
      units = std::move(kept);
      n = std::max<std::size_t>(n - 1, 2);
      reduced = true;
      break;
    }
    if (!reduced) {
      if (n >= units.size()) break;
      n = std::min(units.size(), n * 2);
    }
  }
  return current;
}

std::vector<std::string_view> lines_of(const std::string& s) {
  std::vector<std::string_view> lines;
  std::size_t at = 0;
  while (at < s.size()) {
    const std::size_t nl = s.find('\n', at);
    const std::size_t end = nl == std::string::npos ? s.size() : nl + 1;
    lines.emplace_back(s.data() + at, end - at);
    at = end;
  }
  return lines;
}

std::vector<std::string_view> bytes_of(const std::string& s) {
  std::vector<std::string_view> bytes;
  bytes.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) bytes.emplace_back(s.data() + i, 1);
  return bytes;
}

}  // namespace

std::string shrink(std::string input, const std::function<bool(const std::string&)>& fails, ShrinkBudget budget) {
  Attempts attempts{fails, budget.attempts, Clock::now() + budget.time};
  if (attempts(std::string())) return {};
  input = ddmin(input, lines_of(input), attempts);
  // Byte granularity only once the input is small; on a large one the byte
  // pass would spend the whole budget on halving.
  if (input.size() <= 64 * 1024) input = ddmin(input, bytes_of(input), attempts);
  return input;
}

}  // namespace airlock::host::check
