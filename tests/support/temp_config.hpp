// Writes an airlock.toml into a fresh temporary directory.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

namespace airlock::test {

// A config file in a directory of its own, removed with it on destruction.
class TempConfig {
 public:
  explicit TempConfig(std::string_view toml, std::string_view file_name = "airlock.toml");
  ~TempConfig();

  TempConfig(const TempConfig&) = delete;
  TempConfig& operator=(const TempConfig&) = delete;

  // Replaces the file's contents (for text that depends on dir()).
  void write(std::string_view toml);

  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path path_;
};

// A TOML basic string holding `text`, quotes included.
std::string toml_string(std::string_view text);

// `dirs = ["<a>", "<b>"]`, for the [plugins] table.
std::string toml_dirs(std::initializer_list<std::filesystem::path> dirs);

}  // namespace airlock::test
