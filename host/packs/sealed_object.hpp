// Bytes that were verified, made loadable without touching the disk again:
// a sealed memfd, so what dlopen maps is exactly what was hashed, whatever
// happens to the file on disk between the check and the load.
#pragma once

#include "util/error.hpp"

#include <filesystem>
#include <string_view>

namespace airlock::host {

class SealedObject {
 public:
  // A memfd named `name` (shown in /proc/<pid>/maps) holding `bytes`,
  // sealed against every write, shrink and grow, and against unsealing.
  static Result<SealedObject> create(std::string_view name, std::string_view bytes);

  SealedObject(SealedObject&& other) noexcept;
  SealedObject& operator=(SealedObject&& other) noexcept;
  SealedObject(const SealedObject&) = delete;
  SealedObject& operator=(const SealedObject&) = delete;
  ~SealedObject();

  // "/proc/self/fd/<n>": the path dlopen takes. The descriptor stays open as
  // long as this object lives, so the number is not reused (glibc would take
  // a second library at the same path for the first one).
  std::filesystem::path path() const;
  int fd() const { return fd_; }

 private:
  explicit SealedObject(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace airlock::host
