// airlock.h's function table inside a worker: each function encodes its
// arguments, forwards them to the server, and returns what the server's own
// implementation returned there, so a plugin cannot tell it is isolated.
// Validation stays where it is in-process: on the server, in host_api.cpp.
//
// Answered here without a round trip: is_cancelled (a flag the server's
// cancel frame sets), the call's capabilities and _meta (sent with the
// call), and the sanitizer writers (their output travels back with the
// hook's answer).
#include "isolation/worker/worker_plugin.hpp"
#include "plugins/abi_values.hpp"

#include <boost/json/parse.hpp>

#include <cstring>
#include <exception>

namespace airlock::isolation {
namespace {

WorkerChannel* g_channel = nullptr;
WorkerPlugin* g_plugin = nullptr;

using host::read_sized;
using host::view;

std::string_view bytes(const void* p, std::size_t n) {
  return p ? std::string_view(static_cast<const char*>(p), n) : std::string_view();
}

// Forwards one function and reads its status; `reply` gets the rest.
airlock_status forward(std::uint64_t scope, Fn fn, const WireWriter& args, std::string* rest = nullptr) noexcept {
  try {
    const std::string body = g_channel->call(scope, fn, args.body());
    WireReader r(body);
    const airlock_status status = r.i32();
    if (!r.ok()) return AIRLOCK_STATUS_INTERNAL;
    if (rest) *rest = body.substr(sizeof(std::int32_t));
    return status;
  } catch (const std::exception&) {
    return AIRLOCK_STATUS_INTERNAL;
  }
}

// A string the server handed back (a reply, a config): an optional
// airlock_str, kept in `kept` until the hook returns.
airlock_str kept_optional(WireReader& r, airlock_worker_keep& kept) {
  const bool present = r.u8() != 0;
  const std::string_view s = r.str();
  if (!r.ok() || !present) return airlock_str{nullptr, 0};
  return kept.keep(std::string(s));
}

// --- init and the plugin -------------------------------------------------

airlock_status set_plugin_info(airlock_plugin_ctx* ctx, const airlock_plugin_info* raw) noexcept {
  if (!ctx || !raw) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  const auto info = read_sized(raw);
  WireWriter w;
  w.str(view(info.name)).str(view(info.version)).str(view(info.description));
  const airlock_status status = forward(0, Fn::set_plugin_info, w);
  // The server keeps its own on_destroy (which asks the worker to stop);
  // the plugin's runs here, when the worker is told to shut down.
  if (status == AIRLOCK_STATUS_OK) {
    g_plugin->plugin_data = info.plugin_data;
    g_plugin->on_destroy = info.on_destroy;
  }
  return status;
}

airlock_str get_config(airlock_plugin_ctx* ctx) noexcept {
  if (!ctx) return airlock_str{nullptr, 0};
  static airlock_worker_keep kept;
  std::string rest;
  if (forward(0, Fn::get_config, WireWriter{}, &rest) != AIRLOCK_STATUS_OK) return airlock_str{nullptr, 0};
  WireReader r(rest);
  return kept_optional(r, kept);
}

template <class Hooks>
std::uint32_t add_hooks(std::deque<Hooks>& list, Hooks hooks) {
  std::lock_guard lock(g_plugin->mutex);
  list.push_back(hooks);
  return static_cast<std::uint32_t>(list.size() - 1);
}

airlock_status register_tool(airlock_plugin_ctx* ctx, const airlock_tool_def* raw) noexcept {
  if (!ctx || !raw) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  const auto def = read_sized(raw);
  WireWriter w;
  w.u32(add_hooks(g_plugin->tools, ToolHooks{def.tool_data, def.on_call}));
  w.str(view(def.name)).str(view(def.title)).str(view(def.description)).str(view(def.input_schema));
  w.str(view(def.output_schema)).str(view(def.annotations)).u32(def.flags).u8(def.on_call != nullptr);
  w.str(view(def.required_client_capabilities));
  return forward(0, Fn::register_tool, w);
}

airlock_status register_sanitizer(airlock_plugin_ctx* ctx, const airlock_sanitizer_def* raw) noexcept {
  if (!ctx || !raw) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  const auto def = read_sized(raw);
  WireWriter w;
  w.u32(add_hooks(g_plugin->sanitizers, SanitizerHooks{def.sanitizer_data, def.on_text, def.on_result}));
  w.str(view(def.name)).str(view(def.description)).u8(def.on_text != nullptr).u8(def.on_result != nullptr);
  return forward(0, Fn::register_sanitizer, w);
}

void set_init_error(airlock_plugin_ctx* ctx, airlock_str message) noexcept {
  if (!ctx) return;
  WireWriter w;
  w.str(view(message));
  forward(0, Fn::set_init_error, w);
}

void log(airlock_plugin_ctx* ctx, airlock_log_level level, airlock_str message) noexcept {
  if (!ctx) return;
  try {
    WireWriter w;
    w.i32(level).str(view(message));
    g_channel->post(0, Fn::log, w.body());
  } catch (const std::exception&) {
  }
}

// --- a tool call ----------------------------------------------------------


// Queues a setter for the done frame; the server applies the queue, in
// order, before it reads the result.
airlock_status defer(airlock_call* call, Fn fn, airlock_str s) noexcept {
  try {
    call->deferred.u32(static_cast<std::uint32_t>(fn)).str(view(s));
    ++call->deferred_count;
    return AIRLOCK_STATUS_OK;
  } catch (const std::exception&) {
    return AIRLOCK_STATUS_INTERNAL;
  }
}

// What host_api.cpp's parse_object accepts: a JSON object, nested at most
// 128 deep. Checked here too so the setter's status is known at once.
bool is_json_object(airlock_str text) {
  boost::system::error_code ec;
  boost::json::parse_options options;
  options.max_depth = 128;
  const boost::json::value v = boost::json::parse(view(text), ec, {}, options);
  return !ec && v.is_object();
}

airlock_status result_set_structured(airlock_call* call, airlock_str json) noexcept {
  if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  if (call->structured_set) return AIRLOCK_STATUS_ALREADY_SET;
  try {
    if (!is_json_object(json)) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  } catch (const std::exception&) {
    return AIRLOCK_STATUS_INTERNAL;
  }
  call->structured_set = true;
  return defer(call, Fn::result_set_structured, json);
}
airlock_status result_add_text(airlock_call* call, airlock_str text) noexcept {
  if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  return defer(call, Fn::result_add_text, text);
}
airlock_status result_set_json(airlock_call* call, airlock_str json) noexcept {
  if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  try {
    if (!is_json_object(json)) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  } catch (const std::exception&) {
    return AIRLOCK_STATUS_INTERNAL;
  }
  return defer(call, Fn::result_set_json, json);
}
airlock_status result_set_error(airlock_call* call, airlock_str message) noexcept {
  if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  return defer(call, Fn::result_set_error, message);
}

airlock_status result_add_untrusted_text(airlock_call* call, airlock_str source, airlock_str text) noexcept {
  if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.str(view(source)).str(view(text));
  return forward(call->id, Fn::result_add_untrusted_text, w);
}

airlock_status result_mark_untrusted(airlock_call* call, airlock_str pointer, airlock_str source) noexcept {
  if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.str(view(pointer)).str(view(source));
  return forward(call->id, Fn::result_mark_untrusted, w);
}

int32_t is_cancelled(const airlock_call* call) noexcept {
  return call && call->cancelled.load(std::memory_order_relaxed) ? 1 : 0;
}

airlock_status text_write(airlock_text_writer* out, airlock_str piece) noexcept {
  if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  try {
    out->out.append(view(piece));
    out->written = true;
    return AIRLOCK_STATUS_OK;
  } catch (const std::exception&) {
    return AIRLOCK_STATUS_INTERNAL;
  }
}

airlock_status result_write(airlock_result_writer* out, airlock_str json) noexcept {
  if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  try {
    out->json.assign(view(json));
    out->written = true;
    return AIRLOCK_STATUS_OK;
  } catch (const std::exception&) {
    return AIRLOCK_STATUS_INTERNAL;
  }
}

airlock_status call_progress(airlock_call* call, double progress, double total, airlock_str message) noexcept {
  if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.f64(progress).f64(total).str(view(message));
  return forward(call->id, Fn::call_progress, w);
}

airlock_status call_log(airlock_call* call, airlock_client_log_level level, airlock_str logger,
                        airlock_str message) noexcept {
  if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.i32(level).str(view(logger)).str(view(message));
  return forward(call->id, Fn::call_log, w);
}

// A question to the client, keyed or not, from a call, a read or a get.
airlock_status ask(std::uint64_t scope, Fn fn, airlock_worker_keep& kept, airlock_str key, airlock_str method,
                   airlock_str params, uint32_t timeout_ms, airlock_str* reply) noexcept {
  if (!reply) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  *reply = airlock_str{nullptr, 0};
  WireWriter w;
  w.str(view(key)).str(view(method)).str(view(params)).u32(timeout_ms);
  std::string rest;
  const airlock_status status = forward(scope, fn, w, &rest);
  WireReader r(rest);
  *reply = kept_optional(r, kept);
  return status;
}

airlock_status call_client_request(airlock_call* call, airlock_str method, airlock_str params_json,
                                   uint32_t timeout_ms, airlock_str* reply) noexcept {
  if (reply) *reply = airlock_str{nullptr, 0};  // whatever happens next
  if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  return ask(call->id, Fn::call_client_request, call->kept, airlock_str{nullptr, 0}, method, params_json, timeout_ms,
             reply);
}

airlock_str call_client_capabilities(const airlock_call* call) noexcept {
  if (!call) return airlock_str{"{}", 2};
  return airlock_str{call->capabilities.data(), call->capabilities.size()};
}

void call_end_stream(airlock_call* call) noexcept {
  if (!call) return;
  try {
    g_channel->post(call->id, Fn::call_end_stream, {});
  } catch (const std::exception&) {
  }
}

airlock_str call_request_meta(const airlock_call* call) noexcept {
  if (!call) return airlock_str{"{}", 2};
  return airlock_str{call->meta.data(), call->meta.size()};
}

// --- resources, prompts, completions (ABI 1.3) ------------------------------

airlock_status register_resource(airlock_plugin_ctx* ctx, const airlock_resource_def* raw) noexcept {
  if (!ctx || !raw) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  const auto def = read_sized(raw);
  WireWriter w;
  w.u32(add_hooks(g_plugin->resources, ContentHooks{def.resource_data, def.on_read, nullptr, nullptr}));
  w.str(view(def.uri)).str(view(def.name)).str(view(def.title)).str(view(def.description));
  w.str(view(def.mime_type)).str(view(def.annotations)).u8(def.on_read != nullptr);
  return forward(0, Fn::register_resource, w);
}

airlock_status register_resource_template(airlock_plugin_ctx* ctx, const airlock_resource_template_def* raw) noexcept {
  if (!ctx || !raw) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  const auto def = read_sized(raw);
  WireWriter w;
  w.u32(add_hooks(g_plugin->templates, ContentHooks{def.template_data, def.on_read, nullptr, def.on_complete}));
  w.str(view(def.uri_template)).str(view(def.name)).str(view(def.title)).str(view(def.description));
  w.str(view(def.mime_type)).str(view(def.annotations)).u8(def.on_read != nullptr).u8(def.on_complete != nullptr);
  return forward(0, Fn::register_resource_template, w);
}

airlock_status register_prompt(airlock_plugin_ctx* ctx, const airlock_prompt_def* raw) noexcept {
  if (!ctx || !raw) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  const auto def = read_sized(raw);
  WireWriter w;
  w.u32(add_hooks(g_plugin->prompts, ContentHooks{def.prompt_data, nullptr, def.on_get, def.on_complete}));
  w.str(view(def.name)).str(view(def.title)).str(view(def.description)).str(view(def.arguments));
  w.u8(def.on_get != nullptr).u8(def.on_complete != nullptr);
  return forward(0, Fn::register_prompt, w);
}

airlock_status plugin_string(Fn fn, airlock_str s) noexcept {
  WireWriter w;
  w.str(view(s));
  return forward(0, fn, w);
}

airlock_status unregister_resource(airlock_plugin_ctx* ctx, airlock_str uri) noexcept {
  if (!ctx) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  return plugin_string(Fn::unregister_resource, uri);
}
airlock_status unregister_prompt(airlock_plugin_ctx* ctx, airlock_str name) noexcept {
  if (!ctx) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  return plugin_string(Fn::unregister_prompt, name);
}
airlock_status resource_updated(airlock_plugin_ctx* ctx, airlock_str uri) noexcept {
  if (!ctx) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  return plugin_string(Fn::resource_updated, uri);
}

airlock_status resource_add_text(airlock_resource_writer* out, airlock_str uri, airlock_str mime_type,
                                 airlock_str text) noexcept {
  if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.str(view(uri)).str(view(mime_type)).str(view(text));
  return forward(out->id, Fn::resource_add_text, w);
}

airlock_status resource_add_blob(airlock_resource_writer* out, airlock_str uri, airlock_str mime_type,
                                 const void* data, size_t len) noexcept {
  if (!out || (!data && len)) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.str(view(uri)).str(view(mime_type)).str(bytes(data, len));
  return forward(out->id, Fn::resource_add_blob, w);
}

airlock_status prompt_set_description(airlock_prompt_writer* out, airlock_str description) noexcept {
  if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.str(view(description));
  return forward(out->id, Fn::prompt_set_description, w);
}

airlock_status prompt_add_text(airlock_prompt_writer* out, airlock_str role, airlock_str text) noexcept {
  if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.str(view(role)).str(view(text));
  return forward(out->id, Fn::prompt_add_text, w);
}

airlock_status prompt_add_image(airlock_prompt_writer* out, airlock_str role, airlock_str mime_type,
                                const void* data, size_t len) noexcept {
  if (!out || (!data && len)) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.str(view(role)).str(view(mime_type)).str(bytes(data, len));
  return forward(out->id, Fn::prompt_add_image, w);
}

airlock_status prompt_add_resource(airlock_prompt_writer* out, airlock_str role, airlock_str uri,
                                   airlock_str mime_type, airlock_str text) noexcept {
  if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.str(view(role)).str(view(uri)).str(view(mime_type)).str(view(text));
  return forward(out->id, Fn::prompt_add_resource, w);
}

airlock_status prompt_add_message(airlock_prompt_writer* out, airlock_str message_json) noexcept {
  if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.str(view(message_json));
  return forward(out->id, Fn::prompt_add_message, w);
}

airlock_status completion_add(airlock_completion_writer* out, airlock_str value) noexcept {
  if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.str(view(value));
  return forward(out->id, Fn::completion_add, w);
}

airlock_status completion_set_total(airlock_completion_writer* out, uint64_t total) noexcept {
  if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.u64(total);
  return forward(out->id, Fn::completion_set_total, w);
}

// --- egress (ABI 1.4) ------------------------------------------------------

airlock_status call_fetch(airlock_call* call, const airlock_fetch_request* raw,
                          airlock_fetch_response* response) noexcept {
  if (!call || !raw || !response) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  const auto request = read_sized(raw);
  if (!request.headers && request.header_count) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.u32(request.flags).str(view(request.method)).str(view(request.url));
  w.u32(static_cast<std::uint32_t>(request.header_count));
  for (std::size_t i = 0; i < request.header_count; ++i)
    w.str(view(request.headers[i].name)).str(view(request.headers[i].value));
  w.str(view(request.body)).u32(request.timeout_ms).u64(request.max_response_bytes);
  std::string rest;
  const airlock_status status = forward(call->id, Fn::call_fetch, w, &rest);

  // Written back only as far as the plugin's struct reaches.
  airlock_fetch_response out{};
  out.struct_size = response->struct_size;
  WireReader r(rest);
  out.http_status = r.i32();
  const std::string_view final_url = r.str();
  const std::string_view content_type = r.str();
  const std::string_view body = r.str();
  out.truncated = r.i32();
  const std::string_view error = r.str();
  if (r.ok()) {
    out.final_url = call->kept.keep(std::string(final_url));
    out.content_type = call->kept.keep(std::string(content_type));
    out.body = call->kept.keep(std::string(body));
    out.error = call->kept.keep(std::string(error));
  }
  std::memcpy(response, &out, std::min<std::size_t>(response->struct_size, sizeof out));
  return status;
}

// --- ABI 1.5 ---------------------------------------------------------------

airlock_status call_input_request(airlock_call* call, airlock_str key, airlock_str method, airlock_str params_json,
                                  uint32_t timeout_ms, airlock_str* reply) noexcept {
  if (reply) *reply = airlock_str{nullptr, 0};  // whatever happens next
  if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  return ask(call->id, Fn::call_input_request, call->kept, key, method, params_json, timeout_ms, reply);
}

airlock_status prompt_input_request(airlock_prompt_writer* out, airlock_str key, airlock_str method,
                                    airlock_str params_json, uint32_t timeout_ms, airlock_str* reply) noexcept {
  if (reply) *reply = airlock_str{nullptr, 0};  // whatever happens next
  if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  return ask(out->id, Fn::prompt_input_request, out->kept, key, method, params_json, timeout_ms, reply);
}

airlock_status resource_input_request(airlock_resource_writer* out, airlock_str key, airlock_str method,
                                      airlock_str params_json, uint32_t timeout_ms, airlock_str* reply) noexcept {
  if (reply) *reply = airlock_str{nullptr, 0};  // whatever happens next
  if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  return ask(out->id, Fn::resource_input_request, out->kept, key, method, params_json, timeout_ms, reply);
}

airlock_status notify_list_changed(airlock_plugin_ctx* ctx, uint32_t list) noexcept {
  if (!ctx) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  WireWriter w;
  w.u32(list);
  return forward(0, Fn::notify_list_changed, w);
}

airlock_status call_start_task(airlock_call* call) noexcept {
  if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  return forward(call->id, Fn::call_start_task, WireWriter{});
}

constexpr airlock_host_api kRemoteHostApi = {
    sizeof(airlock_host_api),
    AIRLOCK_ABI_VERSION,
    set_plugin_info,
    get_config,
    register_tool,
    register_sanitizer,
    set_init_error,
    log,
    result_set_structured,
    result_add_text,
    result_set_json,
    result_set_error,
    is_cancelled,
    text_write,
    result_write,
    result_add_untrusted_text,
    result_mark_untrusted,
    call_progress,
    call_log,
    call_client_request,
    call_client_capabilities,
    call_end_stream,
    call_request_meta,
    register_resource,
    register_resource_template,
    register_prompt,
    unregister_resource,
    unregister_prompt,
    resource_updated,
    resource_add_text,
    resource_add_blob,
    prompt_set_description,
    prompt_add_text,
    prompt_add_image,
    prompt_add_resource,
    prompt_add_message,
    completion_add,
    completion_set_total,
    call_fetch,
    call_input_request,
    prompt_input_request,
    resource_input_request,
    notify_list_changed,
    call_start_task,
};

}  // namespace

const airlock_host_api& remote_host_api(WorkerChannel& channel, WorkerPlugin& plugin) {
  g_channel = &channel;
  g_plugin = &plugin;
  return kRemoteHostApi;
}

}  // namespace airlock::isolation
