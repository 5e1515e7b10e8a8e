// Every plugin of the configured directories, loaded, and the tools and
// sanitizers they provide, by name.
#pragma once

#include "plugins/content_catalog.hpp"
#include "plugins/plugin_types.hpp"
#include "util/error.hpp"

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace airlock::host {

// Only referred to here. Code that reads a plugin's library includes
// plugins/plugin_library.hpp (Boost.DLL, the worker, the pack checks)
// itself, so a caller that only looks tools up does not compile those.
struct Config;
class PluginLibrary;

// Heterogeneous lookup, so the hot path finds a tool by string_view without
// building a std::string.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
template <class V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

// Judges a plugin after it loaded and before anything it provides is
// registered; an error refuses the plugin like a load error would. The
// `airlock` command passes the contract checks' load-time subset here when
// [plugins] require_check is set.
using PluginVetter = std::function<Result<void>(const PluginLibrary&)>;

class PluginRegistry {
 public:
  // Scans [plugins] dirs for *.so files and packs (subdirectories holding a
  // pack.toml; verified against [trust], then their objects load from the
  // verified bytes, in manifest order), in directory order, then name
  // order; loads each and registers what it provides. Under [trust]
  // require_signed a loose .so outside [trust] unsigned_dirs is refused. With on_error = "fail" the
  // first bad plugin is the error; with "skip" each one is logged, counted in
  // skipped(), and the rest load.
  static Result<std::unique_ptr<PluginRegistry>> load(const Config& config, const PluginVetter& vet = {});

  const Tool* find_tool(std::string_view name) const;
  const Sanitizer* find_sanitizer(std::string_view name) const;

  // Tools sorted by name: the order of tools/list, stable across restarts.
  const std::vector<const Tool*>& tools() const { return sorted_tools_; }
  const std::deque<Sanitizer>& sanitizers() const { return sanitizers_; }
  const std::vector<std::shared_ptr<PluginLibrary>>& plugins() const { return plugins_; }
  std::size_t skipped() const { return skipped_; }
  // The resources, templates and prompts the plugins serve (ABI 1.3); they
  // may change while the server runs, so the catalog locks on its own.
  ContentCatalog& content() const { return *content_; }

  // Takes a loaded tool out of service (a changed definition its pin
  // refuses): no route, no tools/list entry, no call. Its name is kept in
  // withdrawn(), so a [tools."<name>"] binding for it is not a config error.
  void withdraw_tool(std::string_view name);
  const std::vector<std::string>& withdrawn() const { return withdrawn_; }

  // The plugin file that registered a tool or sanitizer.
  static std::string file_of(const std::shared_ptr<PluginLibrary>& owner);

 private:
  // Adds one loaded plugin, or says which name clashes with what.
  Result<void> add(std::shared_ptr<PluginLibrary> plugin);

  std::vector<std::shared_ptr<PluginLibrary>> plugins_;
  // Deques: references stay valid as plugins are added.
  std::deque<Tool> tools_;
  std::deque<Sanitizer> sanitizers_;
  StringMap<const Tool*> tools_by_name_;
  StringMap<const Sanitizer*> sanitizers_by_name_;
  std::vector<const Tool*> sorted_tools_;
  std::size_t skipped_ = 0;
  std::vector<std::string> withdrawn_;
  // Shared: each adopted plugin's context points back at it (weakly), for
  // what the plugin registers after init.
  std::shared_ptr<ContentCatalog> content_ = std::make_shared<ContentCatalog>();
};

}  // namespace airlock::host
