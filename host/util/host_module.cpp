#include "util/host_module.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

namespace airlock::host {
namespace {

// Every module loaded, for the life of the process: never destroyed, not
// even at exit, when a detached thread may still be inside one.
const boost::dll::shared_library* keep(std::unique_ptr<boost::dll::shared_library> library) {
  static std::mutex mutex;
  static auto* const kept = new std::vector<std::unique_ptr<boost::dll::shared_library>>();
  const std::lock_guard lock(mutex);
  kept->push_back(std::move(library));
  return kept->back().get();
}

}  // namespace

std::filesystem::path host_module_path(std::string_view file) {
  const auto readable = [](const std::filesystem::path& path) { return access(path.c_str(), R_OK) == 0; };
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    // An install under any prefix (a package, or one unpacked elsewhere),
    // then a build tree, where modules are built beside the server.
    if (auto installed = self.parent_path() / AIRLOCK_MODULE_DIR_FROM_BINDIR / file; readable(installed))
      return installed.lexically_normal();
    if (auto beside = self.parent_path() / file; readable(beside)) return beside;
  }
#ifdef AIRLOCK_BUILD_MODULE_DIR
  // A test binary of the build tree; a shipped server never looks there.
  if (auto built = std::filesystem::path(AIRLOCK_BUILD_MODULE_DIR) / file; readable(built)) return built;
#endif
  // Whatever else links the host (a vendor's test of libairlock-testing).
  return std::filesystem::path(AIRLOCK_MODULE_INSTALL_DIR) / file;
}

Result<const boost::dll::shared_library*> load_host_module(std::string_view file, const char* abi_symbol, int abi) {
  const auto path = host_module_path(file);
  boost::dll::fs::error_code ec;
  // Local: the module's own copies of anything never stand in for the host's.
  auto library = std::make_unique<boost::dll::shared_library>(
      path, ec, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  if (ec) {
    // Boost.DLL reports most dlopen failures with a generic code; dlerror()
    // still holds the real reason (a missing file or dependency).
    const char* reason = dlerror();
    return Error{fmt::format("{}: cannot be loaded: {}", path.string(), reason ? reason : ec.message())};
  }
  if (!library->has(abi_symbol))
    return Error{fmt::format("{}: is not an airlock module (no {})", path.string(), abi_symbol)};
  if (const int built = library->get<const int>(abi_symbol); built != abi)
    return Error{fmt::format("{}: was built for module ABI {}, this server needs {}; install the module that came "
                             "with this airlock",
                             path.string(), built, abi)};
  return keep(std::move(library));
}

}  // namespace airlock::host
