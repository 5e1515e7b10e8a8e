// The contract harness's entry points: check a plugin file (what `airlock
// check` and airlock::testing run), or vet an already loaded plugin at start
// ([plugins] require_check).
#pragma once

#include "check/check_options.hpp"
#include "check/check_report.hpp"
#include "config/host_config.hpp"
#include "plugins/plugin_library.hpp"
#include "util/error.hpp"

#include <filesystem>

namespace airlock::host::check {

// Loads `file` exactly as the host does (PluginLibrary::open with `config`,
// so the plugin gets its [plugin."<name>"] table; in a confined worker when
// `isolation` is given, so confinement failures show here before an
// operator meets them) and runs every check on every sanitizer and tool it
// registers, sanitizers first, each in the order registered. A plugin that
// does not load is a report with load_error.
PluginReport check_plugin(const std::filesystem::path& file, const Config& config, const CheckOptions& options,
                          const IsolationSettings* isolation = nullptr);

// The fast subset on every sanitizer `plugin` registered (before the
// registry takes them). The error names the sanitizer, the check and the
// counterexample: "sanitizer 'acme.x' fails the idempotence check (s(s(x))
// differs from s(x)) on input \"a\" (plugins.require_check)".
Result<void> vet_sanitizers(const PluginLibrary& plugin);

}  // namespace airlock::host::check
