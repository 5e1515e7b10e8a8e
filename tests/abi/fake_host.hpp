// fake_host.hpp — an in-process airlock_host_api that records what a plugin
// hands it, for tests that drive plugins without the real host. The opaque
// handles of airlock.h are defined here as those records. Single-threaded.
#pragma once

#include <algorithm>
#include <cstring>
#include <airlock/airlock.h>

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The opaque handles, defined here as the fake host's records.
struct airlock_plugin_ctx {
  std::string config = "{}";
  bool named = false;
  airlock_plugin_info info{};
  std::string init_error;
  std::vector<std::string> logs;
  std::map<std::string, airlock_tool_def> tools;
  std::map<std::string, airlock_sanitizer_def> sanitizers;
  // ABI 1.3
  std::map<std::string, airlock_resource_def> resources;
  std::map<std::string, airlock_resource_template_def> templates;
  std::map<std::string, airlock_prompt_def> prompts;
  // A prompt's arguments JSON, copied: the C++ layer builds it for the call.
  std::map<std::string, std::string> prompt_arguments;
  std::vector<std::string> updated;       // resource_updated
  std::vector<std::string> unregistered;  // unregister_resource / unregister_prompt
};
struct airlock_call {
  bool cancelled = false;
  std::vector<std::string> texts;
  std::string structured;
  std::string error;
  std::vector<std::pair<std::string, std::string>> untrusted_texts;  // {source, text}
  std::vector<std::pair<std::string, std::string>> untrusted_marks;  // {pointer, source}
  // ABI 1.2: what the tool said to the client, and what the client answers.
  std::vector<double> progress;
  std::vector<std::string> progress_messages;
  std::vector<std::string> client_logs;                               // "<level> <logger>: <message>"
  std::vector<std::pair<std::string, std::string>> client_requests;  // {method, params}
  airlock_status client_status = AIRLOCK_STATUS_OK;  // call_client_request's status...
  std::string client_reply = "{}";                   // ...and its reply
  std::string capabilities = "{}";
  std::string meta = "{}";
  bool stream_ended = false;
};
struct airlock_text_writer {
  std::string out;
};
struct airlock_result_writer {
  std::string out;
};
// ABI 1.3: each entry "<uri>|<mime>|text:<text>" or "<uri>|<mime>|blob:<bytes>".
struct airlock_resource_writer {
  std::vector<std::string> contents;
};
// Each message "<role> text:<text>", "<role> image:<mime>:<bytes>",
// "<role> resource:<uri>:<mime>:<text>" or "<role> message:<json>".
struct airlock_prompt_writer {
  std::string description;
  std::vector<std::string> messages;
};
struct airlock_completion_writer {
  std::vector<std::string> values;
  uint64_t total = 0;
};

namespace airlock::test {

inline std::string text_of(airlock_str s) { return s.ptr == nullptr ? std::string() : std::string(s.ptr, s.len); }

inline const airlock_host_api kFakeHost = [] {
  airlock_host_api h{};
  h.struct_size = sizeof h;
  h.abi_version = AIRLOCK_ABI_VERSION;
  h.set_plugin_info = [](airlock_plugin_ctx* ctx, const airlock_plugin_info* info) -> airlock_status {
    if (ctx->named) return AIRLOCK_STATUS_ALREADY_SET;
    if (info->name.len == 0) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    ctx->named = true;
    ctx->info = *info;
    return AIRLOCK_STATUS_OK;
  };
  h.get_config = [](airlock_plugin_ctx* ctx) { return airlock_str{ctx->config.data(), ctx->config.size()}; };
  h.register_tool = [](airlock_plugin_ctx* ctx, const airlock_tool_def* def) -> airlock_status {
    if (text_of(def->name).starts_with("reject.")) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    // As the host does: only the bytes the plugin compiled (an older plugin's
    // def is shorter); the rest stays zero.
    airlock_tool_def copy{};
    std::memcpy(&copy, def, std::min<std::size_t>(def->struct_size, sizeof copy));
    ctx->tools[text_of(def->name)] = copy;
    return AIRLOCK_STATUS_OK;
  };
  h.register_sanitizer = [](airlock_plugin_ctx* ctx, const airlock_sanitizer_def* def) -> airlock_status {
    ctx->sanitizers[text_of(def->name)] = *def;
    return AIRLOCK_STATUS_OK;
  };
  h.set_init_error = [](airlock_plugin_ctx* ctx, airlock_str message) { ctx->init_error = text_of(message); };
  h.log = [](airlock_plugin_ctx* ctx, airlock_log_level, airlock_str message) {
    ctx->logs.push_back(text_of(message));
  };
  h.result_set_structured = [](airlock_call* call, airlock_str json) -> airlock_status {
    if (!call->structured.empty()) return AIRLOCK_STATUS_ALREADY_SET;
    call->structured = text_of(json);
    return AIRLOCK_STATUS_OK;
  };
  h.result_add_text = [](airlock_call* call, airlock_str text) -> airlock_status {
    call->texts.push_back(text_of(text));
    return AIRLOCK_STATUS_OK;
  };
  h.result_set_json = [](airlock_call*, airlock_str) -> airlock_status { return AIRLOCK_STATUS_OK; };
  h.result_set_error = [](airlock_call* call, airlock_str message) -> airlock_status {
    call->error = text_of(message);
    return AIRLOCK_STATUS_OK;
  };
  h.is_cancelled = [](const airlock_call* call) -> int32_t { return call->cancelled ? 1 : 0; };
  h.text_write = [](airlock_text_writer* out, airlock_str piece) -> airlock_status {
    out->out += text_of(piece);
    return AIRLOCK_STATUS_OK;
  };
  h.result_write = [](airlock_result_writer* out, airlock_str json) -> airlock_status {
    out->out = text_of(json);
    return AIRLOCK_STATUS_OK;
  };
  // ABI 1.1. An empty source stands for every source the real host refuses.
  h.result_add_untrusted_text = [](airlock_call* call, airlock_str source, airlock_str text) -> airlock_status {
    if (source.len == 0) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    call->untrusted_texts.emplace_back(text_of(source), text_of(text));
    return AIRLOCK_STATUS_OK;
  };
  h.result_mark_untrusted = [](airlock_call* call, airlock_str pointer, airlock_str source) -> airlock_status {
    if (source.len == 0) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    call->untrusted_marks.emplace_back(text_of(pointer), text_of(source));
    return AIRLOCK_STATUS_OK;
  };
  // ABI 1.2, checking what the real host checks that a test relies on.
  h.call_progress = [](airlock_call* call, double progress, double, airlock_str message) -> airlock_status {
    if (call->cancelled) return AIRLOCK_STATUS_CANCELLED;
    if (!call->progress.empty() && progress <= call->progress.back()) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    call->progress.push_back(progress);
    call->progress_messages.push_back(text_of(message));
    return AIRLOCK_STATUS_OK;
  };
  h.call_log = [](airlock_call* call, airlock_client_log_level level, airlock_str logger,
                  airlock_str message) -> airlock_status {
    if (call->cancelled) return AIRLOCK_STATUS_CANCELLED;
    if (level < AIRLOCK_CLIENT_LOG_DEBUG || level > AIRLOCK_CLIENT_LOG_EMERGENCY) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    call->client_logs.push_back(std::to_string(level) + " " + text_of(logger) + ": " + text_of(message));
    return AIRLOCK_STATUS_OK;
  };
  h.call_client_request = [](airlock_call* call, airlock_str method, airlock_str params, uint32_t,
                             airlock_str* reply) -> airlock_status {
    *reply = airlock_str{nullptr, 0};
    if (call->cancelled) return AIRLOCK_STATUS_CANCELLED;
    call->client_requests.emplace_back(text_of(method), text_of(params));
    if (call->client_status == AIRLOCK_STATUS_OK || call->client_status == AIRLOCK_STATUS_TOOL_ERROR)
      *reply = airlock_str{call->client_reply.data(), call->client_reply.size()};
    return call->client_status;
  };
  h.call_client_capabilities = [](const airlock_call* call) {
    return airlock_str{call->capabilities.data(), call->capabilities.size()};
  };
  h.call_end_stream = [](airlock_call* call) { call->stream_ended = true; };
  h.call_request_meta = [](const airlock_call* call) { return airlock_str{call->meta.data(), call->meta.size()}; };
  // ABI 1.3. A key starting with "reject." stands for what the real host refuses.
  h.register_resource = [](airlock_plugin_ctx* ctx, const airlock_resource_def* def) -> airlock_status {
    if (text_of(def->uri).starts_with("reject.") || !def->on_read) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    ctx->resources[text_of(def->uri)] = *def;
    return AIRLOCK_STATUS_OK;
  };
  h.register_resource_template = [](airlock_plugin_ctx* ctx,
                                     const airlock_resource_template_def* def) -> airlock_status {
    if (text_of(def->uri_template).starts_with("reject.") || !def->on_read) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    ctx->templates[text_of(def->uri_template)] = *def;
    return AIRLOCK_STATUS_OK;
  };
  h.register_prompt = [](airlock_plugin_ctx* ctx, const airlock_prompt_def* def) -> airlock_status {
    if (text_of(def->name).starts_with("reject.") || !def->on_get) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    ctx->prompts[text_of(def->name)] = *def;
    ctx->prompt_arguments[text_of(def->name)] = text_of(def->arguments);
    return AIRLOCK_STATUS_OK;
  };
  h.unregister_resource = [](airlock_plugin_ctx* ctx, airlock_str uri) -> airlock_status {
    if (ctx->resources.erase(text_of(uri)) + ctx->templates.erase(text_of(uri)) == 0) return AIRLOCK_STATUS_NOT_FOUND;
    ctx->unregistered.push_back(text_of(uri));
    return AIRLOCK_STATUS_OK;
  };
  h.unregister_prompt = [](airlock_plugin_ctx* ctx, airlock_str name) -> airlock_status {
    if (ctx->prompts.erase(text_of(name)) == 0) return AIRLOCK_STATUS_NOT_FOUND;
    ctx->unregistered.push_back(text_of(name));
    return AIRLOCK_STATUS_OK;
  };
  h.resource_updated = [](airlock_plugin_ctx* ctx, airlock_str uri) -> airlock_status {
    ctx->updated.push_back(text_of(uri));
    return AIRLOCK_STATUS_OK;
  };
  h.resource_add_text = [](airlock_resource_writer* out, airlock_str uri, airlock_str mime,
                           airlock_str text) -> airlock_status {
    out->contents.push_back(text_of(uri) + "|" + text_of(mime) + "|text:" + text_of(text));
    return AIRLOCK_STATUS_OK;
  };
  h.resource_add_blob = [](airlock_resource_writer* out, airlock_str uri, airlock_str mime, const void* bytes,
                           size_t len) -> airlock_status {
    out->contents.push_back(text_of(uri) + "|" + text_of(mime) + "|blob:" +
                            std::string(static_cast<const char*>(bytes), len));
    return AIRLOCK_STATUS_OK;
  };
  h.prompt_set_description = [](airlock_prompt_writer* out, airlock_str text) -> airlock_status {
    out->description = text_of(text);
    return AIRLOCK_STATUS_OK;
  };
  h.prompt_add_text = [](airlock_prompt_writer* out, airlock_str role, airlock_str text) -> airlock_status {
    if (text_of(role) != "user" && text_of(role) != "assistant") return AIRLOCK_STATUS_INVALID_ARGUMENT;
    out->messages.push_back(text_of(role) + " text:" + text_of(text));
    return AIRLOCK_STATUS_OK;
  };
  h.prompt_add_image = [](airlock_prompt_writer* out, airlock_str role, airlock_str mime, const void* bytes,
                          size_t len) -> airlock_status {
    out->messages.push_back(text_of(role) + " image:" + text_of(mime) + ":" +
                            std::string(static_cast<const char*>(bytes), len));
    return AIRLOCK_STATUS_OK;
  };
  h.prompt_add_resource = [](airlock_prompt_writer* out, airlock_str role, airlock_str uri, airlock_str mime,
                             airlock_str text) -> airlock_status {
    out->messages.push_back(text_of(role) + " resource:" + text_of(uri) + ":" + text_of(mime) + ":" + text_of(text));
    return AIRLOCK_STATUS_OK;
  };
  h.prompt_add_message = [](airlock_prompt_writer* out, airlock_str json) -> airlock_status {
    out->messages.push_back("message:" + text_of(json));
    return AIRLOCK_STATUS_OK;
  };
  h.completion_add = [](airlock_completion_writer* out, airlock_str value) -> airlock_status {
    out->values.push_back(text_of(value));
    return AIRLOCK_STATUS_OK;
  };
  h.completion_set_total = [](airlock_completion_writer* out, uint64_t total) -> airlock_status {
    out->total = total;
    return AIRLOCK_STATUS_OK;
  };
  return h;
}();

// The same host as an ABI 1.2 host compiled it: its table ends after
// call_request_meta, so the 1.3 members do not exist for a plugin.
inline const airlock_host_api kFakeHostAbi12 = [] {
  airlock_host_api h = kFakeHost;
  h.struct_size = offsetof(airlock_host_api, call_request_meta) + sizeof h.call_request_meta;
  h.abi_version = 0x00010002u;
  return h;
}();

// The same host as an ABI 1.1 host compiled it: its table ends after
// result_mark_untrusted, so the 1.2 members do not exist for a plugin.
inline const airlock_host_api kFakeHostAbi11 = [] {
  airlock_host_api h = kFakeHost;
  h.struct_size = offsetof(airlock_host_api, result_mark_untrusted) + sizeof h.result_mark_untrusted;
  h.abi_version = 0x00010001u;
  return h;
}();

// The same host as an ABI 1.0 host compiled it: its table ends after
// result_write, so the 1.1 members do not exist for a plugin.
inline const airlock_host_api kFakeHostAbi10 = [] {
  airlock_host_api h = kFakeHost;
  h.struct_size = offsetof(airlock_host_api, result_write) + sizeof h.result_write;
  h.abi_version = 0x00010000u;
  return h;
}();

}  // namespace airlock::test
