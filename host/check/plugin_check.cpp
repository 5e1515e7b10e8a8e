#include "check/plugin_check.hpp"

#include "check/sanitizer_checks.hpp"
#include "check/sanitizer_subject.hpp"
#include "check/tool_checks.hpp"

#include <fmt/format.h>
#include <spdlog/logger.h>

namespace airlock::host::check {
namespace {

using Clock = std::chrono::steady_clock;

// The checks feed a plugin malformed input on purpose, and a well-behaved
// plugin may log every refusal; that is noise here, not news. Silences the
// plugin's logger for as long as it lives.
class QuietPlugin {
 public:
  explicit QuietPlugin(const PluginLibrary& plugin) : logger_(plugin.ctx().logger) {
    if (logger_) {
      level_ = logger_->level();
      logger_->set_level(spdlog::level::off);
    }
  }
  ~QuietPlugin() {
    if (logger_) logger_->set_level(level_);
  }
  QuietPlugin(const QuietPlugin&) = delete;
  QuietPlugin& operator=(const QuietPlugin&) = delete;

 private:
  std::shared_ptr<spdlog::logger> logger_;
  spdlog::level::level_enum level_ = spdlog::level::info;
};

}  // namespace

PluginReport check_plugin(const std::filesystem::path& file, const Config& config, const CheckOptions& options,
                          const IsolationSettings* isolation) {
  const auto start = Clock::now();
  PluginReport report;
  report.file = file.string();
  auto plugin = PluginLibrary::open(file, config, isolation);
  if (!plugin) {
    report.load_error = plugin.error().message;
    report.elapsed = Clock::now() - start;
    return report;
  }
  const PluginLibrary& library = **plugin;
  report.plugin = library.ctx().name;
  report.version = library.ctx().version;
  report.isolation = library.isolated() ? "process (" + library.isolated()->confinement() + ")" : "in-process";
  {
    QuietPlugin quiet(library);
    CheckOptions here = options;
    here.worker = (*plugin)->isolated_worker();
    for (const Sanitizer& s : library.ctx().sanitizers) report.components.push_back(check_sanitizer(s, here));
    for (const Tool& t : library.ctx().tools) report.components.push_back(check_tool(t, here));
  }
  report.elapsed = Clock::now() - start;
  return report;
}

Result<void> vet_sanitizers(const PluginLibrary& plugin) {
  CheckOptions options;
  options.depth = CheckDepth::fast;
  QuietPlugin quiet(plugin);
  for (const Sanitizer& s : plugin.ctx().sanitizers) {
    const ComponentReport report = check_sanitizer(s, options);
    const CheckResult* failure = report.first_failure();
    if (!failure) continue;
    std::string message = fmt::format("{}: sanitizer '{}' fails the {} check ({})", plugin.file().string(), s.name,
                                      failure->check, failure->detail);
    if (failure->example) message += " on input " + show(failure->example->input, 200);
    return Error{message + " (plugins.require_check)"};
  }
  return {};
}

}  // namespace airlock::host::check
