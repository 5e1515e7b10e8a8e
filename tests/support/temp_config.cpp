// Writes an airlock.toml into a fresh temporary directory.
#include "temp_config.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace airlock::test {

TempConfig::TempConfig(std::string_view toml, std::string_view file_name) {
  std::string pattern = (std::filesystem::temp_directory_path() / "airlock-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error(pattern + ": mkdtemp: " + std::strerror(errno));
  dir_ = pattern;
  path_ = dir_ / file_name;
  write(toml);
}

void TempConfig::write(std::string_view toml) {
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  out << toml;
  if (!out.flush()) throw std::runtime_error(path_.string() + ": cannot write");
}

TempConfig::~TempConfig() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned char>(c));
          out += escape;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string toml_dirs(std::initializer_list<std::filesystem::path> dirs) {
  std::string out = "dirs = [";
  bool first = true;
  for (const std::filesystem::path& dir : dirs) {
    if (!first) out += ", ";
    out += toml_string(dir.string());
    first = false;
  }
  return out + "]";
}

}  // namespace airlock::test
