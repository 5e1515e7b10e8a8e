// The contract checks of one sanitizer, text or result (airlock.h: "Contract,
// checked by the harness"). sanitizer_checks.cpp opens with what each check
// does and what it catches.
#pragma once

#include "check/check_options.hpp"
#include "check/check_report.hpp"
#include "plugins/plugin_types.hpp"

#include <array>
#include <string_view>

namespace airlock::host::check {

// The checks' names, in the order a report lists them.
inline constexpr std::array<std::string_view, 7> kSanitizerChecks = {
    "well-formed",     "determinism",          "idempotence", "concurrency",
    "no-side-effects", "destination-preserving", "fail-closed"};

// Runs every sanitizer check on `sanitizer` (options.depth picks the full set
// or the fast load-time subset). Calls the sanitizer from this thread and
// from threads of its own, which it joins before returning.
ComponentReport check_sanitizer(const Sanitizer& sanitizer, const CheckOptions& options);

}  // namespace airlock::host::check
