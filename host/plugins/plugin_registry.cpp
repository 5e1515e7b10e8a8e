// Loading a directory of plugins: which files count, in what order, and what
// happens when one is bad.
#include "plugins/plugin_registry.hpp"

#include "audit/audit_trail.hpp"
#include "config/host_config.hpp"
#include "isolation/isolation_policy.hpp"
#include "packs/pack_verify.hpp"
#include "packs/sealed_object.hpp"
#include "packs/trust_keys.hpp"
#include "plugins/plugin_library.hpp"
#include "util/sha256.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <system_error>

namespace airlock::host {
namespace {

// What one plugin directory holds: loose *.so files, and packs (the
// subdirectories holding a pack.toml). Sorted together by name, so loading
// order (and so which of two clashing plugins wins) does not depend on the
// filesystem.
struct DirEntry {
  std::filesystem::path path;
  bool pack = false;
};

Result<std::vector<DirEntry>> plugin_entries(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return Error{fmt::format("{}: cannot read plugin directory: {}", dir.string(), ec.message())};
  std::vector<DirEntry> entries;
  for (const auto& entry : it) {
    if (entry.is_directory(ec)) {
      if (is_pack_dir(entry.path())) entries.push_back({entry.path(), true});
      continue;
    }
    if (entry.path().extension() != ".so") continue;
    if (!entry.is_regular_file(ec)) continue;  // follows symlinks
    entries.push_back({entry.path(), false});
  }
  std::sort(entries.begin(), entries.end(), [](const DirEntry& a, const DirEntry& b) { return a.path < b.path; });
  return entries;
}

// A directory as compared against [trust] unsigned_dirs: symlinks and ".."
// resolved where they exist.
std::filesystem::path normal_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(dir, ec);
  return (ec ? dir : canonical).lexically_normal();
}

bool loose_allowed(const Config& config, const std::filesystem::path& dir) {
  if (!config.trust.require_signed) return true;
  const auto here = normal_dir(dir);
  return std::any_of(config.trust.unsigned_dirs.begin(), config.trust.unsigned_dirs.end(),
                     [&](const std::filesystem::path& d) { return normal_dir(d) == here; });
}

// What an operator read in `airlock pack verify` before installing is the
// manifest's list; a plugin that registers something else (it may depend on
// its config, as airlock.fetch's names do) is loaded, but not silently.
void warn_if_unlike_manifest(const PluginLibrary& plugin, const PackObject& entry) {
  auto names = [](const auto& items) {
    std::vector<std::string> out;
    for (const auto& item : items) out.push_back(item.name);
    std::sort(out.begin(), out.end());
    return out;
  };
  auto sorted = [](std::vector<std::string> list) {
    std::sort(list.begin(), list.end());
    return list;
  };
  auto text = [](const std::vector<std::string>& list) {
    return list.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(list, ", "));
  };
  const auto tools = names(plugin.ctx().tools);
  const auto sanitizers = names(plugin.ctx().sanitizers);
  if (tools != sorted(entry.tools))
    spdlog::warn("{}: registers tools {}, but its pack.toml lists {}", plugin.file().string(), text(tools),
                 text(sorted(entry.tools)));
  if (sanitizers != sorted(entry.sanitizers))
    spdlog::warn("{}: registers sanitizers {}, but its pack.toml lists {}", plugin.file().string(),
                 text(sanitizers), text(sorted(entry.sanitizers)));
}

// SHA-256 of the object file as it is now (for a pack's object, the bytes
// that were verified a moment ago); empty when it cannot be read.
std::string object_digest(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return sha256_hex(sha256(bytes));
}

// A plugin or pack event for the audit trail. `reason` is the loader's
// message for a refusal: the file and what was wrong with it.
void audit_load(audit::Kind kind, std::string subject, std::string reason, boost::json::object detail) {
  if (!audit::enabled()) return;
  audit::Event event;
  event.kind = kind;
  event.failed = kind == audit::Kind::plugin_refused || kind == audit::Kind::pack_refused;
  event.outcome = event.failed ? "refused" : kind == audit::Kind::pack_verified ? "verified" : "loaded";
  event.subject = std::move(subject);
  event.reason = std::move(reason);
  event.detail = std::move(detail);
  audit::record(std::move(event));
}

}  // namespace

std::string PluginRegistry::file_of(const std::shared_ptr<PluginLibrary>& owner) {
  return owner ? owner->file().string() : std::string("(host)");
}

Result<std::unique_ptr<PluginRegistry>> PluginRegistry::load(const Config& config, const PluginVetter& vet) {
  auto registry = std::make_unique<PluginRegistry>();
  const bool skip = config.plugins.on_error == OnPluginError::skip;
  auto refuse = [&](const std::string& message) -> bool {
    audit_load(audit::Kind::plugin_refused, message.substr(0, message.find(": ")), message,
               {{"fatal", !skip}});
    if (!skip) return false;
    spdlog::error("{} (skipped: plugins.on_error = \"skip\")", message);
    ++registry->skipped_;
    return true;
  };

  // Keys are decoded before any plugin loads: a bad one is a config error,
  // never skipped.
  auto trust = trust_policy(config.trust);
  if (!trust) return trust.error();

  // One plugin file: opened (from its verified bytes, for a pack's object),
  // vetted and added; false when refused and skipped, an error when fatal.
  auto take = [&](Result<std::shared_ptr<PluginLibrary>> plugin) -> Result<void> {
    if (!plugin) {
      if (refuse(plugin.error().message)) return {};
      return plugin.error();
    }
    if (vet) {
      if (auto vetted = vet(**plugin); !vetted) {
        if (refuse(vetted.error().message)) return {};
        return vetted.error();
      }
    }
    if (auto added = registry->add(std::move(*plugin)); !added) {
      if (refuse(added.error().message)) return {};
      return added.error();
    }
    return {};
  };

  const IsolationPolicy isolation(config);
  if (isolation.forced())
    spdlog::warn("AIRLOCK_ISOLATION overrides [isolation]: every plugin runs {}",
                 *isolation.forced() == IsolationMode::process ? "in a worker process" : "in-process");
  // One plugin's way to run: the settings for a worker, or null for
  // in-process. The decision is kept for the log and `airlock list`.
  // The worker's settings for a plugin file, or none for in-process;
  // copied by the plugin, so a temporary serves.
  std::optional<IsolationSettings> settings;
  auto settings_for = [&](const IsolationDecision& d, const std::filesystem::path& file) -> const IsolationSettings* {
    if (!d.isolated) return nullptr;
    settings = isolation.settings_for(file);
    return &*settings;
  };

  for (const auto& dir : config.plugins.dirs) {
    auto entries = plugin_entries(dir);
    if (!entries) {
      if (refuse(entries.error().message)) continue;
      return entries.error();
    }
    const bool loose_ok = loose_allowed(config, dir);
    for (const auto& entry : *entries) {
      if (!entry.pack) {
        if (!loose_ok) {
          Error e{fmt::format("{}: not in a signed pack ([trust] require_signed = true; list its directory in "
                              "[trust] unsigned_dirs to allow loose plugins there)",
                              entry.path.string())};
          if (refuse(e.message)) continue;
          return e;
        }
        const auto decision = isolation.decide(dir, "");
        auto plugin = PluginLibrary::open(entry.path, config, settings_for(decision, entry.path));
        if (plugin) (*plugin)->set_isolation(decision.reason);
        if (auto ok = take(std::move(plugin)); !ok) return ok.error();
        continue;
      }
      auto pack = verify_pack_dir(entry.path, *trust);
      if (!pack) {
        audit_load(audit::Kind::pack_refused, entry.path.string(), pack.error().message, {});
        if (refuse(pack.error().message)) continue;
        return pack.error();
      }
      audit_load(audit::Kind::pack_verified, pack->manifest.name,
                 {}, {{"path", entry.path.string()}, {"version", pack->origin().version},
                      {"signer", pack->origin().signer}});
      for (const auto& warning : pack->warnings) spdlog::warn("{}", warning);
      auto origin = std::make_shared<const PackOrigin>(pack->origin());
      for (auto& object : pack->objects) {
        auto image = SealedObject::create(object.entry.file, object.bytes);
        std::string().swap(object.bytes);  // the memfd holds them now
        if (!image) {
          if (auto ok = take(image.error()); !ok) return ok.error();
          continue;
        }
        const auto decision = isolation.decide(dir, origin->name);
        auto plugin = PluginLibrary::open(object.file, std::move(*image), config, settings_for(decision, object.file));
        if (plugin) {
          (*plugin)->set_isolation(decision.reason);
          (*plugin)->set_pack(origin);
          warn_if_unlike_manifest(**plugin, object.entry);
        }
        if (auto ok = take(std::move(plugin)); !ok) return ok.error();
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
  if (audit::enabled()) {
    boost::json::object detail{{"file", file},
                               {"version", ctx.version},
                               {"isolated", plugin->isolated() != nullptr},
                               {"isolation", plugin->isolation()},
                               {"sha256", object_digest(plugin->file())}};
    if (const PackOrigin* pack = plugin->pack()) detail["pack"] = pack->name;
    if (const IsolatedPlugin* worker = plugin->isolated()) detail["confinement"] = worker->confinement();
    audit_load(audit::Kind::plugin_loaded, ctx.name, {}, std::move(detail));
  }
  if (const IsolatedPlugin* worker = plugin->isolated())
    spdlog::info("{}: {} runs isolated: {}{}", file, ctx.name, worker->confinement(),
                 worker->fully_confined() ? "" : " (some layers unavailable on this kernel)");
  else
    spdlog::info("{}: {} runs in-process ({})", file, ctx.name, plugin->isolation());
  plugins_.push_back(std::move(plugin));
  return {};
}

const Tool* PluginRegistry::find_tool(std::string_view name) const {
  auto it = tools_by_name_.find(name);
  return it == tools_by_name_.end() ? nullptr : it->second;
}

void PluginRegistry::withdraw_tool(std::string_view name) {
  auto it = tools_by_name_.find(name);
  if (it == tools_by_name_.end()) return;
  const Tool* tool = it->second;
  std::erase(sorted_tools_, tool);
  withdrawn_.push_back(tool->name);
  tools_by_name_.erase(it);
}

const Sanitizer* PluginRegistry::find_sanitizer(std::string_view name) const {
  auto it = sanitizers_by_name_.find(name);
  return it == sanitizers_by_name_.end() ? nullptr : it->second;
}

}  // namespace airlock::host
