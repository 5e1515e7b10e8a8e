// The resources, resource templates and prompts that plugins serve (ABI 1.3),
// and the sessions told when they change. Unlike tools, these may come and
// go while the server runs, so the catalog is shared, locked, and hands out
// entries as shared pointers that stay valid while a read or get runs.
#pragma once

#include "plugins/uri_template.hpp"
#include "util/error.hpp"

#include <airlock/airlock.h>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace airlock::host {

class PluginLibrary;

struct Resource {
  std::string uri;
  std::string name;
  std::string title;
  std::string description;
  std::string mime_type;
  std::optional<boost::json::object> annotations;
  void* data = nullptr;
  airlock_on_read_fn on_read = nullptr;
  const airlock_plugin_ctx* plugin = nullptr;  // who registered it
  std::shared_ptr<PluginLibrary> owner;        // keeps its code loaded while it can run
};

struct ResourceTemplate {
  std::string uri_template;
  UriTemplate parsed;
  std::string name;
  std::string title;
  std::string description;
  std::string mime_type;
  std::optional<boost::json::object> annotations;
  void* data = nullptr;
  airlock_on_read_fn on_read = nullptr;
  airlock_on_complete_fn on_complete = nullptr;
  const airlock_plugin_ctx* plugin = nullptr;
  std::shared_ptr<PluginLibrary> owner;
};

struct PromptArgument {
  std::string name;
  bool required = false;
};

struct Prompt {
  std::string name;
  std::string title;
  std::string description;
  boost::json::array arguments;           // as registered, for prompts/list
  std::vector<PromptArgument> argument_names;  // the same, for checking a get
  void* data = nullptr;
  airlock_on_get_fn on_get = nullptr;
  airlock_on_complete_fn on_complete = nullptr;
  const airlock_plugin_ctx* plugin = nullptr;
  std::shared_ptr<PluginLibrary> owner;
};

// What a plugin registered before the registry took it (during init, or on
// one of its threads before the registry got to it).
struct PendingContent {
  std::vector<std::shared_ptr<Resource>> resources;
  std::vector<std::shared_ptr<ResourceTemplate>> templates;
  std::vector<std::shared_ptr<Prompt>> prompts;
  bool empty() const { return resources.empty() && templates.empty() && prompts.empty(); }
};

// Which list changed, for notifications/<kind>/list_changed.
enum class ContentList { resources, prompts, tools };

// What a session implements to hear about changes. Called on the thread of
// whoever changed something (a plugin's), with the catalog's listener lock
// held: an implementation only queues a message, and never calls back into
// the catalog.
class ContentListener {
 public:
  virtual ~ContentListener() = default;
  virtual void resource_updated(std::string_view uri) = 0;
  virtual void list_changed(ContentList list) = 0;
};

// A read's target: the resource registered for the URI, or the template that
// matched it with the variables' values.
struct ResolvedResource {
  std::shared_ptr<const Resource> resource;
  std::shared_ptr<const ResourceTemplate> from_template;
  std::vector<std::pair<std::string, std::string>> variables;
};

// One page of a list, and where the next begins (nothing: the last page).
template <class T>
struct Page {
  std::vector<std::shared_ptr<const T>> items;
  std::optional<std::string> next_after;
};

class ContentCatalog : public std::enable_shared_from_this<ContentCatalog> {
 public:
  // Moves what `plugin` registered so far into the catalog, all or nothing:
  // a URI, template or prompt name another plugin serves is the error (house
  // form, naming `file`), and then nothing is taken. From then on the
  // plugin's later registrations come straight here.
  Result<void> adopt(const std::shared_ptr<PluginLibrary>& plugin, const std::string& file);

  // A registration after init (host_api.cpp): owner and plugin are filled
  // here. False, with nothing changed, when the key is taken. Listeners hear
  // that the list changed.
  bool add(std::shared_ptr<Resource> resource);
  bool add(std::shared_ptr<ResourceTemplate> resource_template);
  bool add(std::shared_ptr<Prompt> prompt);
  // Removes `plugin`'s own resource (exact URI) or template (exact template
  // text), or prompt. False when it has none by that key.
  bool remove_resource(const airlock_plugin_ctx* plugin, std::string_view uri);
  bool remove_prompt(const airlock_plugin_ctx* plugin, std::string_view name);

  // Tells the listeners that `uri` changed.
  void resource_updated(std::string_view uri);

  // Any thread. The entry a read goes to, or nothing.
  std::optional<ResolvedResource> resolve(std::string_view uri) const;
  std::shared_ptr<const Prompt> find_prompt(std::string_view name) const;
  std::shared_ptr<const ResourceTemplate> find_template(std::string_view uri_template) const;

  // Up to `limit` entries after the key `after` (all from the first when
  // nothing), in key order: a cursor stays meaningful as entries come and go.
  Page<Resource> resources(const std::optional<std::string>& after, std::size_t limit) const;
  Page<ResourceTemplate> templates(const std::optional<std::string>& after, std::size_t limit) const;
  Page<Prompt> prompts(const std::optional<std::string>& after, std::size_t limit) const;

  // Whether any plugin ever served these: what initialize declares.
  bool serves_resources() const { return served_resources_.load(); }
  bool serves_prompts() const { return served_prompts_.load(); }
  bool serves_completions() const { return served_completions_.load(); }

  void add_listener(ContentListener* listener);
  // After it returns, `listener` is never called again.
  void remove_listener(ContentListener* listener);

  // Tells the listeners a list changed: the catalog's own changes, and a
  // plugin's notify_list_changed (ABI 1.5), tools included.
  void notify_list_changed(ContentList list);

 private:
  template <class T>
  using Entries = std::map<std::string, std::shared_ptr<const T>, std::less<>>;

  template <class T>
  static Page<T> page(const Entries<T>& entries, const std::optional<std::string>& after, std::size_t limit);
  void note_served(const ResourceTemplate* t, const Prompt* p);

  mutable std::shared_mutex mutex_;  // guards resources_, templates_, prompts_, owners_
  Entries<Resource> resources_;
  Entries<ResourceTemplate> templates_;
  Entries<Prompt> prompts_;
  // The library of each adopted plugin, for what it registers later.
  std::unordered_map<const airlock_plugin_ctx*, std::shared_ptr<PluginLibrary>> owners_;

  std::atomic<bool> served_resources_{false};
  std::atomic<bool> served_prompts_{false};
  std::atomic<bool> served_completions_{false};

  std::mutex listeners_mutex_;  // guards listeners_; held while they are called
  std::vector<ContentListener*> listeners_;
};

}  // namespace airlock::host
