// The catalog's locking: entries under one shared mutex (reads are many and
// short, changes rare), listeners under another, so a session hearing about
// a change never blocks a read. Nothing calls a plugin while holding either.
#include "plugins/content_catalog.hpp"

#include "plugins/host_api.hpp"
#include "plugins/plugin_library.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace airlock::host {

template <class T>
Page<T> ContentCatalog::page(const Entries<T>& entries, const std::optional<std::string>& after, std::size_t limit) {
  Page<T> out;
  auto it = after ? entries.upper_bound(*after) : entries.begin();
  for (; it != entries.end() && out.items.size() < limit; ++it) out.items.push_back(it->second);
  if (it != entries.end() && !out.items.empty()) out.next_after = std::prev(it)->first;
  return out;
}

void ContentCatalog::note_served(const ResourceTemplate* t, const Prompt* p) {
  if (t && t->on_complete) served_completions_ = true;
  if (p && p->on_complete) served_completions_ = true;
}

Result<void> ContentCatalog::adopt(const std::shared_ptr<PluginLibrary>& plugin, const std::string& file) {
  airlock_plugin_ctx& ctx = plugin->ctx();
  std::lock_guard ctx_lock(ctx.content_mutex);
  PendingContent& pending = ctx.pending_content;
  {
    std::unique_lock lock(mutex_);
    auto clash = [&](std::string_view kind, const std::string& key, const PluginLibrary* other) {
      return Error{fmt::format("{}: {} '{}' is already registered by {}", file, kind, key,
                               other ? other->file().string() : std::string("(host)"))};
    };
    for (const auto& r : pending.resources)
      if (auto it = resources_.find(r->uri); it != resources_.end()) return clash("resource", r->uri, it->second->owner.get());
    for (const auto& t : pending.templates)
      if (auto it = templates_.find(t->uri_template); it != templates_.end())
        return clash("resource template", t->uri_template, it->second->owner.get());
    for (const auto& p : pending.prompts)
      if (auto it = prompts_.find(p->name); it != prompts_.end()) return clash("prompt", p->name, it->second->owner.get());

    for (auto& r : pending.resources) {
      r->owner = plugin;
      r->plugin = &ctx;
      const std::string key = r->uri;
      resources_.emplace(key, std::move(r));
      served_resources_ = true;
    }
    for (auto& t : pending.templates) {
      t->owner = plugin;
      t->plugin = &ctx;
      note_served(t.get(), nullptr);
      const std::string key = t->uri_template;
      templates_.emplace(key, std::move(t));
      served_resources_ = true;
    }
    for (auto& p : pending.prompts) {
      p->owner = plugin;
      p->plugin = &ctx;
      note_served(nullptr, p.get());
      const std::string key = p->name;
      prompts_.emplace(key, std::move(p));
      served_prompts_ = true;
    }
    owners_.emplace(&ctx, plugin);
  }
  pending = PendingContent{};
  ctx.catalog = weak_from_this();
  return {};
}

namespace {

// Fills in who a later registration belongs to; false when that plugin was
// never adopted (it cannot be: only adopted plugins reach add()).
template <class T, class Owners>
bool own(T& entry, const Owners& owners) {
  auto it = owners.find(entry.plugin);
  if (it == owners.end()) return false;
  entry.owner = it->second;
  return true;
}

}  // namespace

bool ContentCatalog::add(std::shared_ptr<Resource> resource) {
  {
    std::unique_lock lock(mutex_);
    if (resources_.contains(resource->uri) || !own(*resource, owners_)) return false;
    const std::string key = resource->uri;
    resources_.emplace(key, std::move(resource));
    served_resources_ = true;
  }
  notify_list_changed(ContentList::resources);
  return true;
}

bool ContentCatalog::add(std::shared_ptr<ResourceTemplate> resource_template) {
  {
    std::unique_lock lock(mutex_);
    if (templates_.contains(resource_template->uri_template) || !own(*resource_template, owners_)) return false;
    note_served(resource_template.get(), nullptr);
    const std::string key = resource_template->uri_template;
    templates_.emplace(key, std::move(resource_template));
    served_resources_ = true;
  }
  notify_list_changed(ContentList::resources);
  return true;
}

bool ContentCatalog::add(std::shared_ptr<Prompt> prompt) {
  {
    std::unique_lock lock(mutex_);
    if (prompts_.contains(prompt->name) || !own(*prompt, owners_)) return false;
    note_served(nullptr, prompt.get());
    const std::string key = prompt->name;
    prompts_.emplace(key, std::move(prompt));
    served_prompts_ = true;
  }
  notify_list_changed(ContentList::prompts);
  return true;
}

bool ContentCatalog::remove_resource(const airlock_plugin_ctx* plugin, std::string_view uri) {
  {
    std::unique_lock lock(mutex_);
    if (auto it = resources_.find(uri); it != resources_.end() && it->second->plugin == plugin) {
      resources_.erase(it);
    } else if (auto t = templates_.find(uri); t != templates_.end() && t->second->plugin == plugin) {
      templates_.erase(t);
    } else {
      return false;
    }
  }
  notify_list_changed(ContentList::resources);
  return true;
}

bool ContentCatalog::remove_prompt(const airlock_plugin_ctx* plugin, std::string_view name) {
  {
    std::unique_lock lock(mutex_);
    auto it = prompts_.find(name);
    if (it == prompts_.end() || it->second->plugin != plugin) return false;
    prompts_.erase(it);
  }
  notify_list_changed(ContentList::prompts);
  return true;
}

std::optional<ResolvedResource> ContentCatalog::resolve(std::string_view uri) const {
  std::shared_lock lock(mutex_);
  if (auto it = resources_.find(uri); it != resources_.end()) return ResolvedResource{it->second, nullptr, {}};
  for (const auto& [text, t] : templates_)
    if (auto values = t->parsed.match(uri)) return ResolvedResource{nullptr, t, std::move(*values)};
  return std::nullopt;
}

std::shared_ptr<const Prompt> ContentCatalog::find_prompt(std::string_view name) const {
  std::shared_lock lock(mutex_);
  auto it = prompts_.find(name);
  return it == prompts_.end() ? nullptr : it->second;
}

std::shared_ptr<const ResourceTemplate> ContentCatalog::find_template(std::string_view uri_template) const {
  std::shared_lock lock(mutex_);
  auto it = templates_.find(uri_template);
  return it == templates_.end() ? nullptr : it->second;
}

Page<Resource> ContentCatalog::resources(const std::optional<std::string>& after, std::size_t limit) const {
  std::shared_lock lock(mutex_);
  return page(resources_, after, limit);
}

Page<ResourceTemplate> ContentCatalog::templates(const std::optional<std::string>& after, std::size_t limit) const {
  std::shared_lock lock(mutex_);
  return page(templates_, after, limit);
}

Page<Prompt> ContentCatalog::prompts(const std::optional<std::string>& after, std::size_t limit) const {
  std::shared_lock lock(mutex_);
  return page(prompts_, after, limit);
}

void ContentCatalog::resource_updated(std::string_view uri) {
  std::lock_guard lock(listeners_mutex_);
  for (ContentListener* l : listeners_) l->resource_updated(uri);
}

void ContentCatalog::notify_list_changed(ContentList list) {
  std::lock_guard lock(listeners_mutex_);
  for (ContentListener* l : listeners_) l->list_changed(list);
}

void ContentCatalog::add_listener(ContentListener* listener) {
  std::lock_guard lock(listeners_mutex_);
  listeners_.push_back(listener);
}

void ContentCatalog::remove_listener(ContentListener* listener) {
  std::lock_guard lock(listeners_mutex_);
  listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), listener), listeners_.end());
}

}  // namespace airlock::host
