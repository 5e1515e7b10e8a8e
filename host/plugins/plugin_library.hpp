// One plugin shared object: opened with Boost.DLL, its ABI checked before any
// of its code runs, then initialized so it can register what it provides.
#pragma once

#include "packs/pack_verify.hpp"
#include "packs/sealed_object.hpp"
#include "plugins/host_api.hpp"
#include "util/error.hpp"

#include <boost/dll/shared_library.hpp>

#include <filesystem>
#include <memory>

namespace airlock::host {

class PluginLibrary {
 public:
  // Loads `file`, checks its ABI, runs its init. On success the plugin's
  // tools and sanitizers wait in ctx().tools / ctx().sanitizers for the
  // registry to take them (and point their `owner` back at the library).
  // Errors read "<file>: <reason>".
  static Result<std::shared_ptr<PluginLibrary>> open(const std::filesystem::path& file,
                                                     const Config& config);

  // The same, for a pack's object: maps `image` (the bytes that were
  // verified) rather than whatever `file` holds now, while `file` is still
  // the name in the context, in errors, in logs and in `airlock list`.
  static Result<std::shared_ptr<PluginLibrary>> open(const std::filesystem::path& file, SealedObject image,
                                                     const Config& config);

  // Calls the plugin's on_destroy, then unloads the library.
  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  const std::filesystem::path& file() const { return ctx_->file; }
  std::uint32_t abi_version() const { return abi_version_; }
  const airlock_plugin_ctx& ctx() const { return *ctx_; }
  airlock_plugin_ctx& ctx() { return *ctx_; }

  // The pack this plugin came from; null for a loose .so.
  const PackOrigin* pack() const { return pack_.get(); }
  void set_pack(std::shared_ptr<const PackOrigin> pack) { pack_ = std::move(pack); }

 private:
  PluginLibrary(std::optional<SealedObject> image, boost::dll::shared_library library,
                std::unique_ptr<airlock_plugin_ctx> ctx, std::uint32_t abi_version);
  static Result<std::shared_ptr<PluginLibrary>> load(const std::filesystem::path& file,
                                                     std::optional<SealedObject> image, const Config& config);

  // Outlives the library: its descriptor keeps the /proc/self/fd path that
  // was mapped from being reused while the mapping is loaded.
  std::optional<SealedObject> image_;
  // Declared before the context so it is destroyed after it: nothing of the
  // plugin may run after its code is unmapped.
  boost::dll::shared_library library_;
  std::unique_ptr<airlock_plugin_ctx> ctx_;
  std::uint32_t abi_version_;
  std::shared_ptr<const PackOrigin> pack_;
};

// Reads the ELF header and says why `file` cannot be a plugin for this host
// (not ELF, not a shared object, another architecture), or nothing.
std::optional<std::string> check_elf_header(const std::filesystem::path& file);

}  // namespace airlock::host
