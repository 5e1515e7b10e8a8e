// Loading one plugin: its object opened and judged (plugin_object.cpp), then
// its init run, here or in its worker, against the host's function table.
#include "plugins/plugin_library.hpp"

#include <fmt/format.h>

namespace airlock::host {

PluginLibrary::PluginLibrary(std::optional<SealedObject> image, boost::dll::shared_library library,
                             std::unique_ptr<IsolatedPlugin> isolated, std::unique_ptr<airlock_plugin_ctx> ctx,
                             std::uint32_t abi_version)
    : image_(std::move(image)),
      library_(std::move(library)),
      isolated_(std::move(isolated)),
      ctx_(std::move(ctx)),
      abi_version_(abi_version) {}

PluginLibrary::~PluginLibrary() {
  ctx_->tools.clear();
  ctx_->sanitizers.clear();
  if (ctx_->on_destroy) ctx_->on_destroy(ctx_->plugin_data);
}

Result<std::shared_ptr<PluginLibrary>> PluginLibrary::open(const std::filesystem::path& file, const Config& config,
                                                           const IsolationSettings* isolation) {
  return load(file, std::nullopt, config, isolation);
}

Result<std::shared_ptr<PluginLibrary>> PluginLibrary::open(const std::filesystem::path& file, SealedObject image,
                                                           const Config& config, const IsolationSettings* isolation) {
  return load(file, std::move(image), config, isolation);
}

// `file` is the name shown everywhere; what is read and mapped is `image`
// when given, else `file` itself.
Result<std::shared_ptr<PluginLibrary>> PluginLibrary::load(const std::filesystem::path& file,
                                                           std::optional<SealedObject> image, const Config& config,
                                                           const IsolationSettings* isolation) {
  const std::string where = file.string();
  auto ctx = std::make_unique<airlock_plugin_ctx>();
  ctx->file = file;
  ctx->config = &config;
  ctx->logger = make_plugin_logger(file.stem().string());

  boost::dll::shared_library library;
  std::unique_ptr<IsolatedPlugin> worker;
  std::uint32_t abi = 0;
  airlock_status status = AIRLOCK_STATUS_INTERNAL;
  if (isolation) {
    auto started = IsolatedPlugin::start(file, image ? image->fd() : -1, *ctx, *isolation);
    if (!started) return started.error();
    abi = started->abi_version;
    status = started->init_status;
    worker = std::move(started->plugin);
  } else {
    auto object = open_plugin_object(where, image ? image->path() : file);
    if (!object) return object.error();
    abi = object->abi_version;
    status = object->init(&host_api(), ctx.get());
    library = std::move(object->library);
  }
  ctx->in_init = false;
  ctx->config = nullptr;
  ctx->config_json.clear();

  // From here the library is owned, so a failure below still runs on_destroy.
  std::shared_ptr<PluginLibrary> plugin(
      new PluginLibrary(std::move(image), std::move(library), std::move(worker), std::move(ctx), abi));
  auto& c = plugin->ctx();
  if (status != AIRLOCK_STATUS_OK) {
    std::string reason = !c.init_error.empty()           ? c.init_error
                         : !c.registration_error.empty() ? c.registration_error
                                                         : fmt::format("status {}", status);
    return Error{fmt::format("{}: init failed: {}", where, reason)};
  }
  if (!c.registration_error.empty()) return Error{fmt::format("{}: {}", where, c.registration_error)};
  if (!c.has_info) return Error{where + ": init did not call set_plugin_info"};
  return plugin;
}

}  // namespace airlock::host
