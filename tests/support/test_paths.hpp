// Where the build put the binary, the plugins and the fixture plugins.
#pragma once

#include <filesystem>
#include <string>

namespace airlock::test {

// Set by tests/support/CMakeLists.txt from the targets themselves.
inline const std::string kAirlockBinary = AIRLOCK_BINARY;
inline const std::filesystem::path kPluginDir = AIRLOCK_PLUGIN_DIR;
inline const std::filesystem::path kFixtureDir = AIRLOCK_FIXTURE_DIR;
inline const std::string kAirlockVersion = AIRLOCK_EXPECTED_VERSION;

// A fixture lives alone in its own directory, so a config can load just it.
inline std::filesystem::path fixture_dir(const std::string& name) { return kFixtureDir / name; }
inline std::filesystem::path fixture_file(const std::string& name) {
  return kFixtureDir / name / (name + ".so");
}
inline std::filesystem::path plugin_file(const std::string& name) {
  return kPluginDir / (name + ".so");
}

}  // namespace airlock::test
