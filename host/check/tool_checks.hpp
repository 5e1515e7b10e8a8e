// The contract checks of one tool. tool_checks.cpp opens with what each check
// does and what it catches.
#pragma once

#include "check/check_options.hpp"
#include "check/check_report.hpp"
#include "plugins/plugin_types.hpp"

#include <array>
#include <string_view>

namespace airlock::host::check {

// The checks' names, in the order a report lists them.
inline constexpr std::array<std::string_view, 4> kToolChecks = {"arguments", "output-schema", "reentrancy",
                                                                 "cancellation"};

// The annotation by which a tool declares that equal arguments give equal
// results, so the reentrancy check may require them even where a few calls
// in a row happen to agree anyway.
inline constexpr std::string_view kDeterministicAnnotation = "airlock/deterministic";

// Runs every tool check on `tool`. Each call of the tool happens in a forked
// child (isolated.hpp), so a crash or a hang is a failed check, not the end
// of the run; call it while the process runs no other threads.
ComponentReport check_tool(const Tool& tool, const CheckOptions& options);

}  // namespace airlock::host::check
