#include "packs/private_dir.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>

namespace airlock::host {

Result<PrivateDir> PrivateDir::create(const std::filesystem::path& parent, std::string_view prefix) {
  std::string tmpl = (parent / fmt::format("{}.XXXXXX", prefix)).string();
  if (!::mkdtemp(tmpl.data()))
    return Error{fmt::format("{}: cannot create a directory there: {}", parent.string(), std::strerror(errno))};
  return PrivateDir(std::filesystem::path(tmpl));
}

PrivateDir::PrivateDir(PrivateDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}

PrivateDir::~PrivateDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace airlock::host
