// airlock/sdk/plugin.hpp: the registrar handed to AIRLOCK_PLUGIN's body,
// the body of airlock_plugin_init, and the macro that defines both entry
// points. Part of the C++ layer over airlock.h; plugins include
// <airlock/airlock.hpp>.
#ifndef AIRLOCK_SDK_PLUGIN_HPP
#define AIRLOCK_SDK_PLUGIN_HPP

#include <airlock/sdk/content.hpp>
#include <airlock/sdk/sanitizers.hpp>
#include <airlock/sdk/tools.hpp>

namespace airlock::sdk {

// The registrar handed to the AIRLOCK_PLUGIN body; use it only inside that
// body, on the loading thread. Each registering member returns the host's
// status; the first failure is what airlock_plugin_init returns.
class Plugin {
 public:
  explicit Plugin(detail::PluginState& state) noexcept : s_(&state) {}

  // Names the plugin; must come first (set_plugin_info).
  airlock_status info(std::string_view name, std::string_view version = {}, std::string_view description = {}) {
    airlock_plugin_info info{};
    info.struct_size = sizeof info;
    info.name = to_str(name);
    info.version = to_str(version);
    info.description = to_str(description);
    info.plugin_data = s_;
    info.on_destroy = &detail::destroy;
    const airlock_status status = s_->host->set_plugin_info(s_->ctx, &info);
    if (status == AIRLOCK_STATUS_OK) s_->info_accepted = true;
    return record(status);
  }

  // [plugin."<name>"] of the host's config as JSON; {} when absent. Only
  // after info(). Throws std::invalid_argument if the host sent no object.
  boost::json::object config() const { return parse_object(to_view(s_->host->get_config(s_->ctx)), "config"); }

  template <class Fn>
  airlock_status tool(const ToolDef& def, Fn fn) {
    static_assert(std::is_invocable_v<const Fn&, const boost::json::object&, Call&>,
                  "a tool is R(const boost::json::object& args, airlock::sdk::Call& call) const");
    using R = std::invoke_result_t<const Fn&, const boost::json::object&, Call&>;
    auto entry = std::make_unique<detail::Entry<detail::ToolFn>>();
    entry->state = s_;
    entry->name = std::string(def.name);
    entry->fn = [fn = std::move(fn)](const boost::json::object& args, Call& call) {
      if constexpr (std::is_void_v<R>) {
        fn(args, call);
      } else {
        detail::deliver(call, fn(args, call));
      }
    };
    airlock_tool_def raw{};
    raw.struct_size = sizeof raw;
    raw.name = to_str(def.name);
    raw.title = to_str(def.title);
    raw.description = to_str(def.description);
    raw.input_schema = to_str(def.input_schema);
    raw.output_schema = to_str(def.output_schema);
    raw.annotations = to_str(def.annotations);
    raw.flags = def.flags;
    raw.tool_data = entry.get();
    raw.on_call = &detail::on_call;
    const std::string required =
        def.required_client_capabilities.empty() ? std::string() : boost::json::serialize(def.required_client_capabilities);
    raw.required_client_capabilities = to_str(required);
    s_->tools.push_back(std::move(entry));
    return raw_tool(raw);
  }

  // `fn(std::string_view text) const -> std::optional<std::string>`: nullopt
  // (or the same text) means unchanged. Must not block.
  template <class Fn>
  airlock_status text_sanitizer(const SanitizerDef& def, Fn fn) {
    static_assert(std::is_invocable_r_v<std::optional<std::string>, const Fn&, std::string_view>,
                  "a text sanitizer is std::optional<std::string>(std::string_view) const");
    auto entry = std::make_unique<detail::Entry<detail::TextFn>>();
    entry->state = s_;
    entry->name = std::string(def.name);
    entry->fn = std::move(fn);
    airlock_sanitizer_def raw = sanitizer_def(def, entry.get());
    raw.on_text = &detail::on_text;
    s_->text_sanitizers.push_back(std::move(entry));
    return raw_sanitizer(raw);
  }

  // `fn(const RequestContext&, std::string_view tool, const boost::json::object& args,
  //     boost::json::object result) const -> std::optional<boost::json::object>`:
  // nullopt means unchanged; else the complete replacement CallToolResult.
  template <class Fn>
  airlock_status result_sanitizer(const SanitizerDef& def, Fn fn) {
    static_assert(std::is_invocable_r_v<std::optional<boost::json::object>, const Fn&, const RequestContext&,
                                        std::string_view, const boost::json::object&, boost::json::object>,
                  "a result sanitizer is std::optional<boost::json::object>(const RequestContext&, "
                  "std::string_view, const boost::json::object&, boost::json::object) const");
    auto entry = std::make_unique<detail::Entry<detail::ResultFn>>();
    entry->state = s_;
    entry->name = std::string(def.name);
    entry->fn = std::move(fn);
    airlock_sanitizer_def raw = sanitizer_def(def, entry.get());
    raw.on_result = &detail::on_result;
    s_->result_sanitizers.push_back(std::move(entry));
    return raw_sanitizer(raw);
  }

  // The C registrations, for hooks written against airlock.h directly. The
  // caller owns what tool_data / sanitizer_data point to.
  airlock_status raw_tool(const airlock_tool_def& def) { return record(s_->host->register_tool(s_->ctx, &def)); }
  airlock_status raw_sanitizer(const airlock_sanitizer_def& def) {
    return record(s_->host->register_sanitizer(s_->ctx, &def));
  }

  void log(airlock_log_level level, std::string_view message) const noexcept {
    s_->host->log(s_->ctx, level, to_str(message));
  }
  // The reason the host prints when init fails; a thrown exception sets it too.
  void set_init_error(std::string_view message) const noexcept { s_->host->set_init_error(s_->ctx, to_str(message)); }

  // ABI 1.3. `fn(const ReadRequest&, Contents&) const`, returning void or
  // Text: serves `def.uri`. Throw NotFound for "nothing there".
  template <class Fn>
  airlock_status resource(const ResourceDef& def, Fn fn) {
    if (!offers_content()) return content_unsupported();
    auto entry = std::make_shared<detail::ContentEntry<detail::ReadFn>>(
        detail::ContentEntry<detail::ReadFn>{s_, std::string(def.uri), detail::make_read(std::move(fn))});
    airlock_resource_def raw{};
    raw.struct_size = sizeof raw;
    raw.uri = to_str(def.uri);
    raw.name = to_str(def.name);
    raw.title = to_str(def.title);
    raw.description = to_str(def.description);
    raw.mime_type = to_str(def.mime_type);
    raw.annotations = to_str(def.annotations);
    raw.resource_data = entry.get();
    raw.on_read = &detail::on_read;
    s_->content.push_back(entry);
    return record(s_->host->register_resource(s_->ctx, &raw));
  }

  // Serves every URI `def.uri_template` matches; `completers` complete its
  // variables, by name.
  template <class Fn>
  airlock_status resource_template(const ResourceTemplateDef& def, Fn fn, Completers completers = {}) {
    if (!offers_content()) return content_unsupported();
    auto entry = std::make_shared<detail::ContentEntry<detail::ReadFn>>(detail::ContentEntry<detail::ReadFn>{
        s_, std::string(def.uri_template), detail::make_read(std::move(fn)), std::move(completers)});
    airlock_resource_template_def raw{};
    raw.struct_size = sizeof raw;
    raw.uri_template = to_str(def.uri_template);
    raw.name = to_str(def.name);
    raw.title = to_str(def.title);
    raw.description = to_str(def.description);
    raw.mime_type = to_str(def.mime_type);
    raw.annotations = to_str(def.annotations);
    raw.template_data = entry.get();
    raw.on_read = &detail::on_read;
    raw.on_complete = entry->completers.empty() ? nullptr : &detail::on_complete<detail::ReadFn>;
    s_->content.push_back(entry);
    return record(s_->host->register_resource_template(s_->ctx, &raw));
  }

  // `fn(const PromptRequest&, Messages&) const`; `completers` complete its
  // arguments, by name. Throw StatusError(AIRLOCK_STATUS_INVALID_ARGUMENT,
  // ...) for an argument value it cannot use.
  template <class Fn>
  airlock_status prompt(const PromptDef& def, Fn fn, Completers completers = {}) {
    static_assert(std::is_invocable_v<const Fn&, const PromptRequest&, Messages&>,
                  "a prompt is void(const airlock::sdk::PromptRequest&, airlock::sdk::Messages&) const");
    if (!offers_content()) return content_unsupported();
    auto entry = std::make_shared<detail::ContentEntry<detail::GetFn>>(detail::ContentEntry<detail::GetFn>{
        s_, std::string(def.name), detail::GetFn(std::move(fn)), std::move(completers)});
    boost::json::array arguments;
    for (const PromptArgument& a : def.arguments) {
      boost::json::object argument{{"name", a.name}};
      if (!a.title.empty()) argument["title"] = a.title;
      if (!a.description.empty()) argument["description"] = a.description;
      argument["required"] = a.required;
      arguments.push_back(std::move(argument));
    }
    const std::string arguments_json = def.arguments.empty() ? std::string() : boost::json::serialize(arguments);
    airlock_prompt_def raw{};
    raw.struct_size = sizeof raw;
    raw.name = to_str(def.name);
    raw.title = to_str(def.title);
    raw.description = to_str(def.description);
    raw.arguments = to_str(arguments_json);
    raw.prompt_data = entry.get();
    raw.on_get = &detail::on_get;
    raw.on_complete = entry->completers.empty() ? nullptr : &detail::on_complete<detail::GetFn>;
    s_->content.push_back(entry);
    return record(s_->host->register_prompt(s_->ctx, &raw));
  }

  // For the plugin's tools and its own threads, after init (ABI 1.3).
  Host host_handle() const noexcept { return Host(*s_->host, s_->ctx); }

  // Host::notify_list_changed (ABI 1.5). The host sends nothing before init
  // returned OK, so tools and the plugin's threads call it on host_handle().
  airlock_status notify_list_changed(List list) const noexcept { return host_handle().notify_list_changed(list); }

  const airlock_host_api& host() const noexcept { return *s_->host; }
  airlock_plugin_ctx* ctx() const noexcept { return s_->ctx; }

 private:
  airlock_status record(airlock_status status) noexcept {
    if (status != AIRLOCK_STATUS_OK && s_->first_failure == AIRLOCK_STATUS_OK) s_->first_failure = status;
    return status;
  }
  bool offers_content() const noexcept {
    return s_->host->struct_size >=
           offsetof(airlock_host_api, completion_set_total) + sizeof s_->host->completion_set_total;
  }
  airlock_status content_unsupported() noexcept {
    set_init_error("resources and prompts need a host of ABI 1.3 or later");
    return record(AIRLOCK_STATUS_UNSUPPORTED);
  }
  static airlock_sanitizer_def sanitizer_def(const SanitizerDef& def, void* data) noexcept {
    airlock_sanitizer_def raw{};
    raw.struct_size = sizeof raw;
    raw.name = to_str(def.name);
    raw.description = to_str(def.description);
    raw.sanitizer_data = data;
    return raw;
  }
  detail::PluginState* s_;
};

namespace detail {

// The body of airlock_plugin_init: allocates the plugin's state, runs the
// plugin's registrations in a barrier, and frees the state itself only when
// the host never took it (set_plugin_info did not succeed).
inline airlock_status run_init(const airlock_host_api* host, airlock_plugin_ctx* ctx,
                               void (*body)(Plugin&)) noexcept {
  if (host == nullptr || ctx == nullptr) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  // A 1.x host's table always covers every 1.0 member; refuse anything less.
  if (host->struct_size < offsetof(airlock_host_api, result_write) + sizeof host->result_write)
    return AIRLOCK_STATUS_UNSUPPORTED;
  auto* state = new (std::nothrow) PluginState{host, ctx};
  if (state == nullptr) return AIRLOCK_STATUS_INTERNAL;
  Plugin plugin(*state);
  airlock_status status = barrier(
      [&] {
        body(plugin);
        return state->first_failure;
      },
      [&](Caught c) noexcept {
        host->set_init_error(ctx, to_str(c.what));
        return failure(c.kind == Caught::Kind::status_error ? c.status : AIRLOCK_STATUS_INTERNAL);
      });
  if (status == AIRLOCK_STATUS_OK && !state->info_accepted) {
    host->set_init_error(ctx, to_str("the plugin never named itself (call plugin.info first)"));
    status = AIRLOCK_STATUS_INVALID_ARGUMENT;
  }
  if (!state->info_accepted) delete state;
  return status;
}

}  // namespace detail

}  // namespace airlock::sdk

// Defines both entry points. The braces that follow are the body of a
// function taking `airlock::sdk::Plugin& name`, run once on the loading thread.
// The two definitions keep airlock.h's declarations (no noexcept, which would
// change their C++ type); they only call the noexcept run_init.
#define AIRLOCK_PLUGIN(name)                                                              \
  static void airlock_sdk_plugin_body(::airlock::sdk::Plugin& name);                      \
  extern "C" AIRLOCK_PLUGIN_EXPORT uint32_t airlock_plugin_abi_version(void) {            \
    return AIRLOCK_ABI_VERSION;                                                           \
  }                                                                                       \
  extern "C" AIRLOCK_PLUGIN_EXPORT airlock_status airlock_plugin_init(                    \
      const airlock_host_api* host, airlock_plugin_ctx* ctx) {                            \
    return ::airlock::sdk::detail::run_init(host, ctx, &airlock_sdk_plugin_body);         \
  }                                                                                       \
  static void airlock_sdk_plugin_body(::airlock::sdk::Plugin& name)

#endif  // AIRLOCK_SDK_PLUGIN_HPP
