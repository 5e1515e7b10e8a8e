// Shared by the unit tests that load real plugins: where the build put them,
// a Config that points at them, and a registry loaded from it.
#pragma once

#include "config/host_config.hpp"
#include "plugins/plugin_registry.hpp"

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace airlock::unit {

namespace fs = std::filesystem;

// Set by tests/unit/CMakeLists.txt (airlock_unit_uses_plugins).
inline const fs::path kFixtureDir = AIRLOCK_FIXTURE_DIR;
inline const fs::path kPluginDir = AIRLOCK_PLUGIN_DIR;
inline constexpr bool kExamplesBuilt = AIRLOCK_EXAMPLES_BUILT != 0;

// Each fixture lives alone in its own directory, so a config can load just it.
inline fs::path fixture_dir(const std::string& name) { return kFixtureDir / name; }
inline fs::path fixture_file(const std::string& name) { return kFixtureDir / name / (name + ".so"); }
inline fs::path plugin_file(const std::string& name) { return kPluginDir / (name + ".so"); }

inline host::Config config_with_dirs(std::vector<fs::path> dirs,
                                     host::OnPluginError on_error = host::OnPluginError::fail) {
  host::Config config;
  config.plugins.dirs = std::move(dirs);
  config.plugins.on_error = on_error;
  return config;
}

// A registry that must load; throws (and so fails the test) with the loader's
// message when it does not.
inline std::unique_ptr<host::PluginRegistry> load_registry(const host::Config& config) {
  auto registry = host::PluginRegistry::load(config);
  if (!registry) throw std::runtime_error("registry did not load: " + registry.error().message);
  return std::move(*registry);
}

// A directory of its own under the system temp dir, removed with everything
// in it when the test ends.
class TempDir {
 public:
  explicit TempDir(const std::string& tag)
      : path_(fs::temp_directory_path() /
              ("airlock-unit-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(next_serial()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

 private:
  static unsigned next_serial() {
    static unsigned serial = 0;
    return ++serial;
  }
  fs::path path_;
};

}  // namespace airlock::unit
