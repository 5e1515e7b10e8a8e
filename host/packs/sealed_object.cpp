#include "packs/sealed_object.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace airlock::host {

Result<SealedObject> SealedObject::create(std::string_view name, std::string_view bytes) {
  const std::string label(name.substr(0, 200));
  const int fd = ::memfd_create(label.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return Error{fmt::format("{}: cannot create a memfd: {}", label, std::strerror(errno))};
  SealedObject object(fd);
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{fmt::format("{}: cannot write the memfd: {}", label, std::strerror(errno))};
    done += static_cast<std::size_t>(n);
  }
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
    return Error{fmt::format("{}: cannot seal the memfd: {}", label, std::strerror(errno))};
  return object;
}

SealedObject::SealedObject(SealedObject&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

SealedObject& SealedObject::operator=(SealedObject&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

SealedObject::~SealedObject() {
  if (fd_ >= 0) ::close(fd_);
}

std::filesystem::path SealedObject::path() const { return fmt::format("/proc/self/fd/{}", fd_); }

}  // namespace airlock::host
