// One plugin shared object: opened with Boost.DLL, its ABI checked before any
// of its code runs, then initialized so it can register what it provides.
#pragma once

#include "packs/pack_verify.hpp"
#include "packs/sealed_object.hpp"
#include "isolation/isolated_plugin.hpp"
#include "plugins/host_api.hpp"
#include "plugins/plugin_object.hpp"
#include "util/error.hpp"

#include <filesystem>
#include <memory>

namespace airlock::host {

class PluginLibrary {
 public:
  // Loads `file`, checks its ABI, runs its init: in this process, or in a
  // confined worker process of its own when `isolation` is given (the
  // plugin cannot tell which). On success the plugin's tools and sanitizers
  // wait in ctx().tools / ctx().sanitizers for the registry to take them
  // (and point their `owner` back at the library). Errors read
  // "<file>: <reason>", the same either way.
  static Result<std::shared_ptr<PluginLibrary>> open(const std::filesystem::path& file, const Config& config,
                                                     const IsolationSettings* isolation = nullptr);

  // The same, for a pack's object: maps `image` (the bytes that were
  // verified) rather than whatever `file` holds now, while `file` is still
  // the name in the context, in errors, in logs and in `airlock list`.
  static Result<std::shared_ptr<PluginLibrary>> open(const std::filesystem::path& file, SealedObject image,
                                                     const Config& config,
                                                     const IsolationSettings* isolation = nullptr);

  // Calls the plugin's on_destroy, then unloads the library.
  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  const std::filesystem::path& file() const { return ctx_->file; }
  std::uint32_t abi_version() const { return abi_version_; }
  const airlock_plugin_ctx& ctx() const { return *ctx_; }
  airlock_plugin_ctx& ctx() { return *ctx_; }

  // The worker the plugin runs in; null when it runs in this process.
  const IsolatedPlugin* isolated() const { return isolated_.get(); }
  IsolatedPlugin* isolated_worker() { return isolated_.get(); }

  // Why the plugin runs the way it does ("third-party", "airlock's own
  // plugin directory", an operator's opt-in), for the log and `airlock list`.
  const std::string& isolation() const { return isolation_; }
  void set_isolation(std::string reason) { isolation_ = std::move(reason); }

  // The pack this plugin came from; null for a loose .so.
  const PackOrigin* pack() const { return pack_.get(); }
  void set_pack(std::shared_ptr<const PackOrigin> pack) { pack_ = std::move(pack); }

 private:
  PluginLibrary(std::optional<SealedObject> image, boost::dll::shared_library library,
                std::unique_ptr<IsolatedPlugin> isolated, std::unique_ptr<airlock_plugin_ctx> ctx,
                std::uint32_t abi_version);
  static Result<std::shared_ptr<PluginLibrary>> load(const std::filesystem::path& file,
                                                     std::optional<SealedObject> image, const Config& config,
                                                     const IsolationSettings* isolation);

  // Outlives the library: its descriptor keeps the /proc/self/fd path that
  // was mapped from being reused while the mapping is loaded.
  std::optional<SealedObject> image_;
  // Declared before the context so it is destroyed after it: nothing of the
  // plugin may run after its code is unmapped.
  boost::dll::shared_library library_;  // empty when isolated
  // Stops the worker when destroyed, after the context (whose on_destroy
  // asks the worker to run the plugin's own) is gone.
  std::unique_ptr<IsolatedPlugin> isolated_;
  std::unique_ptr<airlock_plugin_ctx> ctx_;
  std::uint32_t abi_version_;
  std::shared_ptr<const PackOrigin> pack_;
  std::string isolation_;
};

}  // namespace airlock::host
