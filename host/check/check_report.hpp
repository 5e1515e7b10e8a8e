// What a contract check found: one line per check per component, and for a
// failure the smallest input that shows it and the two outputs that differ.
// Rendered for people (like a test runner) and as JSON for machines.
#pragma once

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host::check {

enum class Verdict { pass, fail, skip };

// The evidence of a failure. `input` is raw bytes (a text leaf, a result or
// arguments as JSON); the outputs are already in display form (see show()).
struct Counterexample {
  std::string input;
  std::string first_label;  // e.g. "s(x)"
  std::string first;
  std::string second_label;  // e.g. "s(s(x))"; empty when there is one output
  std::string second;
  std::size_t found_bytes = 0;  // the input's size before shrinking
  bool shrunk = false;
};

struct CheckResult {
  std::string check;  // a stable name: "idempotence", "destination-preserving", …
  Verdict verdict = Verdict::pass;
  std::string detail;  // on failure what was wrong; on skip why; on pass may say what was covered
  std::optional<Counterexample> example;
  std::size_t cases = 0;  // inputs (or calls) the check tried
  std::chrono::nanoseconds elapsed{};
};

struct ComponentReport {
  std::string name;
  std::string kind;  // "text sanitizer", "result sanitizer", "tool"
  std::vector<CheckResult> checks;
  std::chrono::nanoseconds elapsed{};
  std::chrono::nanoseconds slowest_call{};

  bool passed() const;
  // The first failed check, or null.
  const CheckResult* first_failure() const;
};

struct PluginReport {
  std::string file;
  std::string plugin;  // the name it gave itself; empty when it did not load
  std::string version;
  // How it ran: "in-process", or "process (<confinement layers>)".
  std::string isolation;
  std::optional<std::string> load_error;
  std::vector<ComponentReport> components;
  std::chrono::nanoseconds elapsed{};

  bool passed() const;
};

// Bytes as ASCII that is safe to print on a terminal and reads back exactly:
// printable ASCII as is, `\` and `"` escaped, \n \r \t, other code points as
// \u{XXXX} (so bidi overrides and zero-width characters show), invalid bytes
// as \xNN. Past `limit` input bytes, "… (N bytes)" ends it.
std::string escape_bytes(std::string_view bytes, std::size_t limit);

// `bytes` quoted and escaped, for an input or an output in a report.
std::string show(std::string_view bytes, std::size_t limit = 64 * 1024);

// The whole run as a test runner prints it: render_header, each plugin's
// lines (one per check per component, a failure followed by its input and
// the two outputs, a closing line per component with its time), then the
// summary line. The parts are there to print a long run as it goes.
std::string render_text(const std::vector<PluginReport>& reports, std::uint64_t seed);
std::string render_header(std::uint64_t seed);
std::string render_plugin_text(const PluginReport& plugin);
std::string render_summary(const std::vector<PluginReport>& reports);

// One line: "N plugins, N components, N checks: N passed, N failed, N skipped in T".
std::string summary_line(const std::vector<PluginReport>& reports);

boost::json::object to_json(const std::vector<PluginReport>& reports, std::uint64_t seed);

// "1.23 s", "45.6 ms", "789 µs"
std::string format_duration(std::chrono::nanoseconds d);

}  // namespace airlock::host::check
