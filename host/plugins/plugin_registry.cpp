// Loading a directory of plugins: which files count, in what order, and what
// happens when one is bad.
#include "plugins/plugin_registry.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <system_error>

namespace airlock::host {
namespace {

// The *.so files of one directory, sorted so loading order (and so which of
// two clashing plugins wins) does not depend on the filesystem.
Result<std::vector<std::filesystem::path>> plugin_files(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return Error{fmt::format("{}: cannot read plugin directory: {}", dir.string(), ec.message())};
  std::vector<std::filesystem::path> files;
  for (const auto& entry : it) {
    if (entry.path().extension() != ".so") continue;
    if (!entry.is_regular_file(ec)) continue;  // follows symlinks; skips directories
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::string PluginRegistry::file_of(const std::shared_ptr<PluginLibrary>& owner) {
  return owner ? owner->file().string() : std::string("(host)");
}

Result<std::unique_ptr<PluginRegistry>> PluginRegistry::load(const Config& config, const PluginVetter& vet) {
  auto registry = std::make_unique<PluginRegistry>();
  const bool skip = config.plugins.on_error == OnPluginError::skip;
  auto refuse = [&](const std::string& message) -> bool {
    if (!skip) return false;
    spdlog::error("{} (skipped: plugins.on_error = \"skip\")", message);
    ++registry->skipped_;
    return true;
  };

  for (const auto& dir : config.plugins.dirs) {
    auto files = plugin_files(dir);
    if (!files) {
      if (refuse(files.error().message)) continue;
      return files.error();
    }
    for (const auto& file : *files) {
      auto plugin = PluginLibrary::open(file, config);
      if (!plugin) {
        if (refuse(plugin.error().message)) continue;
        return plugin.error();
      }
      if (vet) {
        if (auto vetted = vet(**plugin); !vetted) {
          if (refuse(vetted.error().message)) continue;
          return vetted.error();
        }
      }
      if (auto added = registry->add(std::move(*plugin)); !added) {
        if (refuse(added.error().message)) continue;
        return added.error();
      }
    }
  }

  for (const auto& tool : registry->tools_) registry->sorted_tools_.push_back(&tool);
  std::sort(registry->sorted_tools_.begin(), registry->sorted_tools_.end(),
            [](const Tool* a, const Tool* b) { return a->name < b->name; });
  return registry;
}

Result<void> PluginRegistry::add(std::shared_ptr<PluginLibrary> plugin) {
  auto& ctx = plugin->ctx();
  const std::string file = plugin->file().string();

  // Check every name before taking any, so a refused plugin leaves nothing
  // half-registered behind.
  auto clash = [&](std::string_view kind, const std::string& name, const std::string& other) {
    return Error{fmt::format("{}: {} '{}' is already registered by {}", file, kind, name, other)};
  };
  std::vector<std::string_view> seen;
  for (const auto& tool : ctx.tools) {
    if (auto it = tools_by_name_.find(tool.name); it != tools_by_name_.end())
      return clash("tool", tool.name, file_of(it->second->owner));
    if (std::find(seen.begin(), seen.end(), tool.name) != seen.end())
      return clash("tool", tool.name, file);
    seen.push_back(tool.name);
  }
  seen.clear();
  for (const auto& sanitizer : ctx.sanitizers) {
    if (auto it = sanitizers_by_name_.find(sanitizer.name); it != sanitizers_by_name_.end())
      return clash("sanitizer", sanitizer.name, file_of(it->second->owner));
    if (std::find(seen.begin(), seen.end(), sanitizer.name) != seen.end())
      return clash("sanitizer", sanitizer.name, file);
    seen.push_back(sanitizer.name);
  }

  // All or nothing, so it goes last of what can fail: a clash leaves the
  // catalog as it was.
  if (auto adopted = content_->adopt(plugin, file); !adopted) return adopted.error();

  // Moved out of the plugin's context: a tool owns its library, and the
  // library must not own the tool back.
  for (auto& tool : std::exchange(ctx.tools, {})) {
    tool.owner = plugin;
    tools_.push_back(std::move(tool));
    tools_by_name_.emplace(tools_.back().name, &tools_.back());
  }
  for (auto& sanitizer : std::exchange(ctx.sanitizers, {})) {
    sanitizer.owner = plugin;
    sanitizers_.push_back(std::move(sanitizer));
    sanitizers_by_name_.emplace(sanitizers_.back().name, &sanitizers_.back());
  }
  plugins_.push_back(std::move(plugin));
  return {};
}

const Tool* PluginRegistry::find_tool(std::string_view name) const {
  auto it = tools_by_name_.find(name);
  return it == tools_by_name_.end() ? nullptr : it->second;
}

const Sanitizer* PluginRegistry::find_sanitizer(std::string_view name) const {
  auto it = sanitizers_by_name_.find(name);
  return it == sanitizers_by_name_.end() ? nullptr : it->second;
}

}  // namespace airlock::host
