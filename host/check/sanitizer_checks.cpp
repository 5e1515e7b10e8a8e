// The sanitizer checks. Each one holds the sanitizer to one clause of its
// contract (airlock.h, DESIGN.md "Sanitizers") over the corpus:
//
//   well-formed             every output is what the host accepts: text stays
//                           valid UTF-8, a result is a tool result, UNCHANGED
//                           comes without output, and each call fits the
//                           per-call time budget;
//   determinism             the same input again, in the same thread, in
//                           fresh threads, and (full depth) after the wall
//                           clock's second has changed, gives the same output:
//                           catches time, rand() and thread-local state;
//   idempotence             s(s(x)) == s(x): catches a suffix appended on
//                           every pass;
//   concurrency             T threads, each calling over its own shuffle of
//                           the corpus (own copies of the bytes), get exactly
//                           the sequential outputs, each mismatch confirmed by
//                           one more sequential call (so a clock's drift is
//                           not taken for a race): catches shared buffers.
//                           Skipped when determinism failed: outputs that
//                           vary one at a time cannot be compared;
//   no-side-effects         values never seen before, called first and then
//                           again in shuffled rounds, give their first output
//                           every time: catches per-value counts and caches;
//   destination-preserving  destinations.hpp: every URL or host of an output
//                           is in the input (or its inert form is): catches
//                           percent-decoding, resolving, reviving;
//   fail-closed             a sanitizer that changes a well-formed input must
//                           not pass the same input plus malformed bytes
//                           (invalid UTF-8; for results also cut or non-tool
//                           JSON) through unchanged: it errors, or cleans it.
//
// A failure is reported with the smallest failing input found: the smallest
// failing corpus item, shrunk by ddmin (shrink.hpp) while the check still
// fails on it. Races (concurrency) are reported as found.
#include "check/sanitizer_checks.hpp"

#include "check/destinations.hpp"
#include "check/sanitizer_subject.hpp"
#include "check/shrink.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <functional>
#include <latch>
#include <mutex>
#include <numeric>
#include <thread>

namespace airlock::host::check {
namespace {

using Clock = std::chrono::steady_clock;

// What a failing probe found: the evidence and the one-line reason.
struct Evidence {
  Counterexample example;
  std::string detail;
};
using Probe = std::function<std::optional<Evidence>(const Case&)>;

// Everything the checks of one sanitizer share: the corpus, each input as
// bytes, and the first (sequential) output of each.
struct Run {
  SanitizerSubject subject;
  const CheckOptions& options;
  bool full;
  std::vector<Case> cases;
  std::vector<std::string> inputs;
  std::vector<Outcome> baseline;
  std::vector<bool> ill_formed;  // well-formed found a problem with this output
  std::time_t baseline_last_second = 0;
  std::chrono::nanoseconds slowest{};
  Prng prng;

  Outcome call(std::string_view input) {
    Outcome o = subject.call(input);
    slowest = std::max(slowest, o.took);
    return o;
  }
  ShrinkBudget shrink_budget() const {
    return full ? ShrinkBudget{} : ShrinkBudget{60, std::chrono::milliseconds(200)};
  }
};

std::vector<Case> build_cases(const SanitizerSubject& subject, const CheckOptions& options) {
  const bool full = options.depth == CheckDepth::full;
  std::vector<CorpusItem> items =
      generate_text_corpus(options.seed, full ? CorpusSize::full : CorpusSize::fast);
  for (const auto& item : options.operator_corpus) items.push_back(item);

  std::vector<Case> cases;
  if (subject.is_text()) {
    for (auto& item : items) cases.push_back({std::move(item.name), std::move(item.text), kRawShape});
    return cases;
  }
  // Results: an operator's JSON file as it is; every text in one shape
  // (rotating), and the short ones in every shape.
  std::size_t rotation = 0;
  for (auto& item : items) {
    if (item.name.starts_with("corpus file ") && item.name.ends_with(".json")) {
      cases.push_back({item.name, item.text, kRawShape});
      continue;
    }
    if (!valid_utf8(item.text)) continue;  // not JSON text: used by fail-closed only
    const bool short_text = item.text.size() <= 256;
    for (int shape = 0; shape < kResultShapes; ++shape) {
      const bool take = (full && short_text) || shape == static_cast<int>(rotation % kResultShapes);
      if (take) cases.push_back({fmt::format("{} in result shape {}", item.name, shape), item.text, shape});
    }
    ++rotation;
  }
  return cases;
}

// The smallest failing case, shrunk while `probe` still finds a failure.
Evidence smallest_evidence(Run& run, const std::vector<std::size_t>& failing, const std::vector<Evidence>& found,
                           const Probe& probe) {
  std::size_t best = 0;
  for (std::size_t k = 1; k < failing.size(); ++k)
    if (run.inputs[failing[k]].size() < run.inputs[failing[best]].size()) best = k;
  Evidence evidence = found[best];
  const Case& original = run.cases[failing[best]];
  evidence.example.found_bytes = run.inputs[failing[best]].size();
  // An operator's result file is shrunk as a whole or not at all: cutting
  // its bytes would only find ill-formed JSON.
  if (!probe || (original.shape == kRawShape && !run.subject.is_text())) return evidence;
  Evidence last = evidence;
  bool reproduced = false;
  shrink(
      original.text,
      [&](const std::string& text) {
        Case candidate{original.name, text, original.shape};
        auto e = probe(candidate);
        if (!e) return false;
        last = std::move(*e);
        reproduced = true;
        return true;
      },
      run.shrink_budget());
  if (!reproduced) return evidence;
  last.example.found_bytes = evidence.example.found_bytes;
  last.example.shrunk = last.example.input.size() < evidence.example.found_bytes;
  return last;
}

CheckResult failed(std::string check, Evidence evidence) {
  CheckResult r;
  r.check = std::move(check);
  r.verdict = Verdict::fail;
  r.detail = std::move(evidence.detail);
  r.example = std::move(evidence.example);
  return r;
}

// ---------------------------------------------------------------------------

void run_baseline(Run& run) {
  run.inputs.reserve(run.cases.size());
  run.baseline.reserve(run.cases.size());
  for (const Case& c : run.cases) {
    run.inputs.push_back(run.subject.input_of(c).value_or(std::string()));
    run.baseline.push_back(run.call(run.inputs.back()));
  }
  run.baseline_last_second = std::time(nullptr);
  run.ill_formed.assign(run.cases.size(), false);
}

CheckResult check_well_formed(Run& run) {
  std::vector<std::size_t> failing;
  std::vector<Evidence> found;
  bool slow = false;
  auto problem_of = [&](std::string_view input, const Outcome& o) -> std::optional<std::string> {
    if (auto p = run.subject.output_problem(input, o)) return p;
    if (o.took > run.options.call_budget)
      return fmt::format("one call took {}, over the {} ms budget per call", format_duration(o.took),
                         run.options.call_budget.count());
    return std::nullopt;
  };
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    auto problem = problem_of(run.inputs[i], run.baseline[i]);
    if (!problem) continue;
    run.ill_formed[i] = true;
    slow = slow || run.baseline[i].took > run.options.call_budget;
    failing.push_back(i);
    found.push_back({{run.inputs[i], "s(x)", show(run.baseline[i]), "", "", 0, false}, *problem});
  }
  CheckResult result{"well-formed", Verdict::pass, {}, {}, run.cases.size(), {}};
  if (failing.empty()) {
    // Not a violation (failing closed is always allowed), but worth seeing:
    // the host withholds every result such a sanitizer refuses.
    std::size_t errors = 0, on_malformed = 0;
    for (std::size_t i = 0; i < run.cases.size(); ++i) {
      if (run.baseline[i].produced()) continue;
      ++errors;
      on_malformed += run.subject.is_text() && !valid_utf8(run.inputs[i]);
    }
    if (errors)
      result.detail = fmt::format("returned an error status for {} of {} inputs, {} of them not UTF-8", errors,
                                  run.cases.size(), on_malformed);
    return result;
  }
  // A time overrun does not survive shrinking (a smaller input is faster);
  // report it as found.
  Probe probe;
  if (!slow)
    probe = [&](const Case& c) -> std::optional<Evidence> {
      auto input = run.subject.input_of(c);
      if (!input) return std::nullopt;
      const Outcome o = run.call(*input);
      auto problem = problem_of(*input, o);
      if (!problem) return std::nullopt;
      return Evidence{{*input, "s(x)", show(o), "", "", 0, false}, *problem};
    };
  result = failed("well-formed", smallest_evidence(run, failing, found, probe));
  result.cases = run.cases.size();
  return result;
}

// Part one of determinism: repeats now, in this thread and in fresh ones.
CheckResult check_determinism_now(Run& run) {
  CheckResult result{"determinism", Verdict::pass, {}, {}, 0, {}};
  std::vector<std::size_t> failing;
  std::vector<Evidence> found;
  auto compare = [&](std::size_t i, const Outcome& again, std::string label) {
    ++result.cases;
    if (same_outcome(again, run.baseline[i])) return;
    failing.push_back(i);
    found.push_back({{run.inputs[i], "first call", show(run.baseline[i]), std::move(label), show(again), 0, false},
                     "the same input gave a different output"});
  };
  const std::size_t repeats = run.full ? 3 : 1;
  for (std::size_t i = 0; i < run.cases.size() && failing.size() < 8; ++i) {
    const std::size_t k = run.inputs[i].size() > 256 * 1024 ? 1 : repeats;
    for (std::size_t r = 0; r < k; ++r) compare(i, run.call(run.inputs[i]), fmt::format("call {}", r + 2));
  }
  // Fresh threads, one at a time (concurrency is another check): state kept
  // per thread shows up here.
  const std::size_t fresh = run.full ? 16 : 4;
  for (std::size_t n = 0, i = 0; n < fresh && i < run.cases.size(); ++i) {
    if (run.inputs[i].size() > 64 * 1024) continue;
    Outcome again;
    std::thread([&] { again = run.subject.call(run.inputs[i]); }).join();
    compare(i, again, "call in a fresh thread");
    ++n;
  }
  if (failing.empty()) return result;
  const Probe probe = [&](const Case& c) -> std::optional<Evidence> {
    auto input = run.subject.input_of(c);
    if (!input) return std::nullopt;
    const Outcome first = run.call(*input);
    for (int r = 0; r < 7; ++r) {
      Outcome again = run.call(*input);
      if (!same_outcome(first, again))
        return Evidence{{*input, "first call", show(first), fmt::format("call {}", r + 2), show(again), 0, false},
                        "the same input gave a different output"};
    }
    return std::nullopt;
  };
  const std::size_t cases = result.cases;
  result = failed("determinism", smallest_evidence(run, failing, found, probe));
  result.cases = cases;
  return result;
}

// Part two (full depth): the same inputs once the wall clock's second has
// changed since the baseline, so a timestamp in the output shows.
void check_determinism_later(Run& run, CheckResult& result) {
  if (!run.full || result.verdict == Verdict::fail) return;
  while (std::time(nullptr) <= run.baseline_last_second) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::size_t n = 0;
  for (std::size_t i = 0; i < run.cases.size() && n < 32; ++i) {
    if (run.inputs[i].size() > 64 * 1024) continue;
    ++n;
    ++result.cases;
    const Outcome again = run.call(run.inputs[i]);
    if (same_outcome(again, run.baseline[i])) continue;
    const std::size_t cases = result.cases;
    const auto elapsed = result.elapsed;
    result = failed("determinism",
                    {{run.inputs[i], "first call", show(run.baseline[i]), "a second later", show(again), 0, false},
                     "the same input gave a different output once the clock moved on"});
    result.example->found_bytes = run.inputs[i].size();
    result.cases = cases;
    result.elapsed = elapsed;
    return;
  }
}

CheckResult check_idempotence(Run& run) {
  CheckResult result{"idempotence", Verdict::pass, {}, {}, 0, {}};
  std::vector<std::size_t> failing;
  std::vector<Evidence> found;
  auto evidence_for = [&](const std::string& x, const Outcome& once, const Outcome& twice) -> std::optional<Evidence> {
    if (twice.produced() && run.subject.same_value(once.output, twice.output)) return std::nullopt;
    return Evidence{{x, "s(x)", show(once), "s(s(x))", show(twice), 0, false},
                    twice.produced() ? "s(s(x)) differs from s(x)" : "s(s(x)) failed where s(x) succeeded"};
  };
  for (std::size_t i = 0; i < run.cases.size() && failing.size() < 8; ++i) {
    const Outcome& once = run.baseline[i];
    if (!once.produced() || run.ill_formed[i] || once.output == run.inputs[i]) continue;
    ++result.cases;
    if (auto e = evidence_for(run.inputs[i], once, run.call(once.output))) {
      failing.push_back(i);
      found.push_back(std::move(*e));
    }
  }
  if (failing.empty()) {
    if (result.cases == 0) result.detail = "changed no input, so nothing to apply twice";
    return result;
  }
  const Probe probe = [&](const Case& c) -> std::optional<Evidence> {
    auto x = run.subject.input_of(c);
    if (!x) return std::nullopt;
    const Outcome once = run.call(*x);
    if (!once.produced() || once.output == *x || run.subject.output_problem(*x, once)) return std::nullopt;
    return evidence_for(*x, once, run.call(once.output));
  };
  const std::size_t cases = result.cases;
  result = failed("idempotence", smallest_evidence(run, failing, found, probe));
  result.cases = cases;
  return result;
}

std::optional<Evidence> destination_evidence(const Run& run, const std::string& x, const Outcome& o) {
  if (!o.produced()) return std::nullopt;
  const auto made_up =
      made_up_destinations(run.subject.readable_text(x), run.subject.readable_text(o.output));
  if (made_up.empty()) return std::nullopt;
  return Evidence{{x, "s(x)", show(o), "", "", 0, false},
                  fmt::format("made up the destination \"{}\", which the input does not hold",
                              escape_bytes(made_up.front(), 200))};
}

CheckResult check_destinations(Run& run) {
  CheckResult result{"destination-preserving", Verdict::pass, {}, {}, 0, {}};
  std::vector<std::size_t> failing;
  std::vector<Evidence> found;
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    if (!run.baseline[i].produced()) continue;
    ++result.cases;
    if (auto e = destination_evidence(run, run.inputs[i], run.baseline[i])) {
      failing.push_back(i);
      found.push_back(std::move(*e));
    }
  }
  if (failing.empty()) return result;
  const Probe probe = [&](const Case& c) -> std::optional<Evidence> {
    auto x = run.subject.input_of(c);
    if (!x) return std::nullopt;
    return destination_evidence(run, *x, run.call(*x));
  };
  const std::size_t cases = result.cases;
  result = failed("destination-preserving", smallest_evidence(run, failing, found, probe));
  result.cases = cases;
  return result;
}

// A malformed variant of a well-formed input: `variant` picks which.
std::optional<std::string> malformed(const Run& run, const Case& twin, std::size_t variant) {
  const auto pieces = malformed_utf8_pieces();
  const std::string_view piece = pieces[variant % pieces.size()];
  const bool after = (variant / pieces.size()) % 2 == 1;
  if (run.subject.is_text()) {
    const std::string& w = twin.text;
    return after ? w + " " + std::string(piece) : std::string(piece) + " " + w;
  }
  auto w = run.subject.input_of(twin);
  if (!w) return std::nullopt;
  if (after) return w->substr(0, w->size() / 2);  // JSON cut short
  // Invalid UTF-8 inside the first text string: no longer JSON text.
  const std::size_t at = w->find("\"text\":\"");
  if (at == std::string::npos) return std::nullopt;
  return w->substr(0, at + 8) + std::string(piece) + w->substr(at + 8);
}

std::size_t malformed_variants(const Run& run) {
  const std::size_t n = malformed_utf8_pieces().size() * 2;
  return run.full ? n : 4;
}

CheckResult check_fail_closed(Run& run) {
  CheckResult result{"fail-closed", Verdict::pass, {}, {}, 0, {}};
  // Twins: well-formed inputs the sanitizer changes, smallest first.
  std::vector<std::size_t> twins;
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    const Outcome& o = run.baseline[i];
    if (o.status != AIRLOCK_STATUS_OK || run.ill_formed[i] || run.subject.same_value(o.output, run.inputs[i])) continue;
    if (run.subject.is_text() && !valid_utf8(run.inputs[i])) continue;
    if (run.cases[i].shape == kRawShape && !run.subject.is_text()) continue;
    twins.push_back(i);
  }
  if (twins.empty()) {
    result.detail = "changes no well-formed input, so it has nothing to fail open";
    return result;
  }
  std::stable_sort(twins.begin(), twins.end(),
                   [&](std::size_t a, std::size_t b) { return run.inputs[a].size() < run.inputs[b].size(); });
  twins.resize(std::min<std::size_t>(twins.size(), run.full ? 6 : 2));

  auto echo_evidence = [&](const std::string& m, const Outcome& on_m, const Outcome& on_twin)
      -> std::optional<Evidence> {
    if (!on_m.produced() || on_m.output != m) return std::nullopt;
    return Evidence{{m, "s(x)", show(on_m), "s(x without its malformed bytes)", show(on_twin), 0, false},
                    "passed malformed input through unchanged, where it changes the same input well-formed"};
  };
  std::vector<std::size_t> failing;
  std::vector<Evidence> found;
  std::size_t failing_variant = 0;
  for (std::size_t i : twins) {
    for (std::size_t v = 0; v < malformed_variants(run); ++v) {
      auto m = malformed(run, run.cases[i], v);
      if (!m) continue;
      ++result.cases;
      if (auto e = echo_evidence(*m, run.call(*m), run.baseline[i])) {
        if (failing.empty()) failing_variant = v;
        if (v == failing_variant) {
          failing.push_back(i);
          found.push_back(std::move(*e));
        }
        break;
      }
    }
  }
  // Input that is not a tool result at all, for a result sanitizer.
  if (!run.subject.is_text() && failing.empty()) {
    // Not JSON objects at all. (A JSON object that is not a tool result is
    // not held against it: the host checks the shape of what comes out.)
    for (std::string_view m : {"not json at all", "[]", "null", "{\"content\":[{\"type\":\"text\",\"text\":\"x\"}]"}) {
      ++result.cases;
      if (auto e = echo_evidence(std::string(m), run.call(m), run.baseline[twins.front()])) {
        e->example.second_label = "s(a well-formed result)";
        e->example.found_bytes = m.size();
        const std::size_t cases = result.cases;
        result = failed("fail-closed", std::move(*e));
        result.cases = cases;
        return result;
      }
    }
  }
  if (failing.empty()) return result;
  const Probe probe = [&](const Case& c) -> std::optional<Evidence> {
    auto w = run.subject.input_of(c);
    if (!w) return std::nullopt;
    const Outcome on_twin = run.call(*w);
    if (on_twin.status != AIRLOCK_STATUS_OK || run.subject.same_value(on_twin.output, *w)) return std::nullopt;
    auto m = malformed(run, c, failing_variant);
    if (!m) return std::nullopt;
    return echo_evidence(*m, run.call(*m), on_twin);
  };
  const std::size_t cases = result.cases;
  result = failed("fail-closed", smallest_evidence(run, failing, found, probe));
  result.cases = cases;
  return result;
}

// A value the sanitizer cannot have seen: the case with a random tag.
Case fresh(Run& run, const Case& c) {
  return Case{c.name, fmt::format("{} #{:016x}", c.text, run.prng.next()), c.shape};
}

CheckResult check_no_side_effects(Run& run) {
  CheckResult result{"no-side-effects", Verdict::pass, {}, {}, 0, {}};
  std::vector<std::size_t> pool;
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    const Case& c = run.cases[i];
    if (run.inputs[i].size() > 4096 || (c.shape == kRawShape && !run.subject.is_text())) continue;
    if (c.shape != kRawShape && !valid_utf8(c.text)) continue;
    pool.push_back(i);
  }
  const std::size_t count = std::min<std::size_t>(pool.size(), run.full ? 24 : 8);
  std::vector<std::size_t> picked;
  for (std::size_t n = 0; n < count; ++n) picked.push_back(pool[(n * pool.size()) / count]);

  std::vector<Case> values;
  std::vector<std::string> bytes;
  std::vector<Outcome> first;
  for (std::size_t i : picked) {
    values.push_back(fresh(run, run.cases[i]));
    bytes.push_back(run.subject.input_of(values.back()).value_or(std::string()));
    first.push_back(run.call(bytes.back()));
    ++result.cases;
  }
  std::vector<std::size_t> failing;
  std::vector<Evidence> found;
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  const int rounds = run.full ? 3 : 1;
  for (int round = 0; round < rounds && failing.empty(); ++round) {
    for (std::size_t k = order.size(); k > 1; --k) std::swap(order[k - 1], order[run.prng.below(k)]);
    for (std::size_t j : order) {
      ++result.cases;
      const Outcome again = run.call(bytes[j]);
      if (same_outcome(again, first[j])) continue;
      failing.push_back(picked[j]);
      found.push_back({{bytes[j], "first call", show(first[j]),
                        fmt::format("call {} (after other values)", round + 2), show(again), 0, false},
                       "the output of a value changed after the value had been seen"});
      break;
    }
  }
  if (failing.empty()) return result;
  const Probe probe = [&](const Case& c) -> std::optional<Evidence> {
    auto x = run.subject.input_of(fresh(run, c));
    if (!x) return std::nullopt;
    const Outcome once = run.call(*x);
    for (int n = 2; n <= 5; ++n) {
      const Outcome again = run.call(*x);
      if (!same_outcome(once, again))
        return Evidence{{*x, "first call", show(once), fmt::format("call {}", n), show(again), 0, false},
                        "the output of a value changed after the value had been seen"};
    }
    return std::nullopt;
  };
  // Shrinks the corpus case, not its tagged value: each probe tags afresh.
  const std::size_t cases = result.cases;
  result = failed("no-side-effects", smallest_evidence(run, failing, found, probe));
  result.cases = cases;
  return result;
}

// `determinism` is the result of that check: outputs that vary one call at
// a time cannot be compared with concurrent ones.
CheckResult check_concurrency(Run& run, const CheckResult& determinism) {
  CheckResult result{"concurrency", Verdict::pass, {}, {}, 0, {}};
  if (determinism.verdict == Verdict::fail)
    return CheckResult{"concurrency", Verdict::skip,
                       "outputs vary even one call at a time (see determinism): nothing to compare with", {}, 0, {}};
  std::vector<std::size_t> pool;
  for (std::size_t i = 0; i < run.cases.size(); ++i)
    if (run.inputs[i].size() <= 64 * 1024 && !run.ill_formed[i]) pool.push_back(i);
  if (pool.empty()) return result;
  const unsigned threads = std::max(2u, run.full ? run.options.threads : std::min(run.options.threads, 4u));
  const std::size_t calls = run.full ? 64 : 16;
  const int rounds = run.full ? 3 : 1;

  // Candidates, confirmed afterwards one call at a time: an output that a
  // sequential call gives too just drifted (a clock), it did not race.
  struct Mismatch {
    std::size_t index;
    Outcome concurrent;
  };
  constexpr std::size_t kMaxCandidates = 16;
  std::mutex mutex;  // guards candidates and slowest
  std::vector<Mismatch> candidates;
  std::chrono::nanoseconds slowest{};
  std::optional<Evidence> confirmed;
  for (int round = 0; round < rounds && !confirmed; ++round) {
    std::latch start(threads);
    std::vector<std::thread> workers;
    const std::uint64_t round_seed = run.prng.next();
    for (unsigned t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        Prng prng(round_seed + t);
        std::string local;
        std::chrono::nanoseconds thread_slowest{};
        start.arrive_and_wait();
        for (std::size_t n = 0; n < calls; ++n) {
          const std::size_t i = pool[prng.below(pool.size())];
          local.assign(run.inputs[i]);  // an equivalent input: same bytes, another buffer
          Outcome o = run.subject.call(local);
          thread_slowest = std::max(thread_slowest, o.took);
          if (same_outcome(o, run.baseline[i])) continue;
          std::lock_guard lock(mutex);
          if (candidates.size() < kMaxCandidates) candidates.push_back({i, std::move(o)});
        }
        std::lock_guard lock(mutex);
        slowest = std::max(slowest, thread_slowest);
      });
    }
    for (auto& w : workers) w.join();
    result.cases += threads * calls;
    // The smallest input first: the report shows one confirmed mismatch.
    std::sort(candidates.begin(), candidates.end(), [&](const Mismatch& a, const Mismatch& b) {
      return run.inputs[a.index].size() < run.inputs[b.index].size();
    });
    for (const Mismatch& m : candidates) {
      const Outcome sequential = run.call(run.inputs[m.index]);
      if (same_outcome(sequential, m.concurrent)) continue;
      confirmed = Evidence{{run.inputs[m.index], "sequential", show(sequential), "concurrent", show(m.concurrent),
                            run.inputs[m.index].size(), false},
                           fmt::format("with {} threads calling at once, an output differs from the sequential "
                                       "output of the same input",
                                       threads)};
      break;
    }
    candidates.clear();
  }
  run.slowest = std::max(run.slowest, slowest);
  if (!confirmed) return result;
  const std::size_t cases = result.cases;
  result = failed("concurrency", std::move(*confirmed));
  result.cases = cases;
  return result;
}

template <class Fn>
CheckResult timed(Fn&& fn) {
  const auto start = Clock::now();
  CheckResult r = fn();
  r.elapsed = Clock::now() - start;
  return r;
}

}  // namespace

ComponentReport check_sanitizer(const Sanitizer& sanitizer, const CheckOptions& options) {
  const auto start = Clock::now();
  Run run{SanitizerSubject(sanitizer), options, options.depth == CheckDepth::full, {}, {}, {}, {}, 0, {},
          Prng(options.seed ^ 0x5a5a5a5a5a5a5a5aull)};
  run.cases = build_cases(run.subject, options);

  ComponentReport report;
  report.name = sanitizer.name;
  report.kind = sanitizer.kind == SanitizerKind::text ? "text sanitizer" : "result sanitizer";

  const auto baseline_start = Clock::now();
  run_baseline(run);
  const auto baseline_time = Clock::now() - baseline_start;

  // Run in this order (determinism's late repeat needs the others' time to
  // pass first), reported in the order of the contract.
  CheckResult well_formed = timed([&] { return check_well_formed(run); });
  well_formed.elapsed += baseline_time;
  CheckResult determinism = timed([&] { return check_determinism_now(run); });
  CheckResult idempotence = timed([&] { return check_idempotence(run); });
  CheckResult destinations = timed([&] { return check_destinations(run); });
  CheckResult fail_closed = timed([&] { return check_fail_closed(run); });
  CheckResult side_effects = timed([&] { return check_no_side_effects(run); });
  CheckResult concurrency = timed([&] { return check_concurrency(run, determinism); });
  const auto later_start = Clock::now();
  check_determinism_later(run, determinism);
  determinism.elapsed += Clock::now() - later_start;

  report.checks = {std::move(well_formed), std::move(determinism), std::move(idempotence), std::move(concurrency),
                   std::move(side_effects), std::move(destinations), std::move(fail_closed)};
  report.elapsed = Clock::now() - start;
  report.slowest_call = run.slowest;
  return report;
}

}  // namespace airlock::host::check
