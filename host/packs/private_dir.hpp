// A directory only this process writes to (mkdtemp, mode 0700), removed
// with everything in it when the object goes, unless released: where an
// archive is extracted and where an install is staged.
#pragma once

#include "util/error.hpp"

#include <filesystem>
#include <string_view>

namespace airlock::host {

class PrivateDir {
 public:
  // "<parent>/<prefix>.XXXXXX" (mkdtemp fills the X's).
  static Result<PrivateDir> create(const std::filesystem::path& parent, std::string_view prefix);

  PrivateDir(PrivateDir&& other) noexcept;
  PrivateDir& operator=(PrivateDir&&) = delete;
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  ~PrivateDir();

  const std::filesystem::path& path() const { return path_; }
  // Keeps the directory (it was renamed into place).
  void release() { path_.clear(); }

 private:
  explicit PrivateDir(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
};

}  // namespace airlock::host
