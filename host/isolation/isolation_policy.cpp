#include "isolation/isolation_policy.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>

#include <unistd.h>

namespace airlock::host {
namespace {

std::filesystem::path normal(const std::filesystem::path& dir) {
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(dir, ec);
  return (ec ? dir : canonical).lexically_normal();
}

bool same_dir(const std::filesystem::path& a, const std::filesystem::path& b) {
  auto strip = [](std::filesystem::path p) {
    p = normal(p);
    return p.has_filename() ? p : p.parent_path();
  };
  return strip(a) == strip(b);
}

std::optional<IsolationMode> environment_mode() {
  const char* value = std::getenv("AIRLOCK_ISOLATION");
  if (!value || !*value) return std::nullopt;
  const std::string_view v(value);
  if (v == "process") return IsolationMode::process;
  if (v == "in-process") return IsolationMode::in_process;
  spdlog::warn("AIRLOCK_ISOLATION={} is neither \"process\" nor \"in-process\"; ignored", v);
  return std::nullopt;
}

}  // namespace

std::filesystem::path worker_binary() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto beside = self.parent_path() / "airlock-worker";
    if (access(beside.c_str(), X_OK) == 0) return beside;
    // An install moved as a whole (a tarball unpacked under /opt, a
    // staged prefix) keeps the worker where it is relative to this binary;
    // the absolute path below would find another install's worker, or none.
    auto installed = (self.parent_path() / AIRLOCK_WORKER_FROM_BINDIR).lexically_normal();
    if (access(installed.c_str(), X_OK) == 0) return installed;
  }
#ifdef AIRLOCK_BUILD_WORKER_PATH
  // A test binary of the build tree loading plugins through the registry.
  if (access(AIRLOCK_BUILD_WORKER_PATH, X_OK) == 0) return AIRLOCK_BUILD_WORKER_PATH;
#endif
  return AIRLOCK_WORKER_INSTALL_PATH;
}

bool is_first_party_dir(const std::filesystem::path& dir) {
  return same_dir(dir, AIRLOCK_FIRST_PARTY_PLUGIN_DIR) || same_dir(dir, AIRLOCK_BUILD_PLUGIN_DIR);
}

IsolationPolicy::IsolationPolicy(const Config& config) : config_(config.isolation), forced_(environment_mode()) {
  settings_.worker = worker_binary();
  settings_.memory_mb = config_.memory_mb;
  settings_.max_workers = config_.max_workers;
  settings_.cancel_grace = std::chrono::milliseconds(config_.cancel_grace_ms);
  settings_.max_backoff = std::chrono::milliseconds(config_.max_backoff_ms);
  settings_.sanitizer_timeout = std::chrono::milliseconds(config.server.sanitizer_timeout_ms);
}

IsolationSettings IsolationPolicy::settings_for(const std::filesystem::path& file) const {
  IsolationSettings settings = settings_;
  if (auto it = config_.plugins.find(file.filename().string()); it != config_.plugins.end()) {
    if (it->second.memory_mb) settings.memory_mb = *it->second.memory_mb;
    if (it->second.max_workers) settings.max_workers = *it->second.max_workers;
  }
  return settings;
}

IsolationDecision IsolationPolicy::decide(const std::filesystem::path& dir, std::string_view pack) const {
  if (forced_)
    return *forced_ == IsolationMode::process
               ? IsolationDecision{true, "AIRLOCK_ISOLATION=process"}
               : IsolationDecision{false, "AIRLOCK_ISOLATION=in-process: trusted with everything the server has"};
  if (!pack.empty() && std::find(config_.in_process_packs.begin(), config_.in_process_packs.end(), pack) !=
                           config_.in_process_packs.end())
    return {false, "pack opted in by [isolation] in_process: trusted with everything the server has"};
  for (const auto& trusted : config_.in_process_dirs)
    if (same_dir(trusted, dir))
      return {false, "directory opted in by [isolation] in_process: trusted with everything the server has"};
  if (is_first_party_dir(dir)) return {false, "airlock's own plugin directory"};
  if (config_.mode == IsolationMode::in_process)
    return {false, "[isolation] mode = \"in-process\": trusted with everything the server has"};
  return {true, "third-party"};
}

}  // namespace airlock::host
