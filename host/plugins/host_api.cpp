// The functions of airlock_host_api. Each one is a C entry point that a plugin
// calls, so none may throw: every body runs inside `guard`, which turns a C++
// failure (allocation, a JSON error) into a status.
#include "plugins/host_api.hpp"

#include "config/host_config.hpp"
#include "plugins/content_api.hpp"
#include "plugins/fetch_api.hpp"
#include "util/utf8.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace airlock::host {
namespace {

template <class Fn>
airlock_status guard(Fn&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return AIRLOCK_STATUS_INTERNAL;
  }
}

bool is_plugin_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
      return false;
  return true;
}

// "<namespace>.<name>": [A-Za-z0-9_-] segments joined by single dots, at
// least two segments, at most 128 bytes (the MCP limit on tool names).
bool is_component_name(std::string_view s) {
  if (s.size() < 3 || s.size() > 128) return false;
  bool dot = false;
  char prev = '.';
  for (char c : s) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-';
    if (c == '.') {
      if (prev == '.') return false;
      dot = true;
    } else if (!word) {
      return false;
    }
    prev = c;
  }
  return dot && prev != '.';
}

// MCP's tool name rule (2025-11-25, SEP-986): 1 to 64 of [A-Za-z0-9_.-].
// Namespaces are a convention for tools, not a rule: clients call tools by
// names other specs fix.
bool is_tool_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
          c == '-'))
      return false;
  return true;
}

void fail_registration(airlock_plugin_ctx* ctx, std::string message) {
  if (ctx->registration_error.empty()) ctx->registration_error = std::move(message);
}

// Parses one JSON-object field of a tool definition; empty means absent.
bool parse_schema_field(airlock_plugin_ctx* ctx, std::string_view tool, const char* field,
                        airlock_str text, std::optional<boost::json::object>& out) {
  if (view(text).empty()) return true;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(view(text), ec);
  if (ec) {
    fail_registration(ctx, fmt::format("tool '{}': {} is not valid JSON: {}", tool, field, ec.message()));
    return false;
  }
  if (!v.is_object()) {
    fail_registration(ctx, fmt::format("tool '{}': {} is not a JSON object", tool, field));
    return false;
  }
  out = std::move(v.as_object());
  return true;
}

airlock_status set_plugin_info(airlock_plugin_ctx* ctx, const airlock_plugin_info* raw) noexcept {
  return guard([&] {
    if (!ctx || !raw || !ctx->in_init) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    if (ctx->has_info) return AIRLOCK_STATUS_ALREADY_SET;
    const auto info = read_sized(raw);
    if (!is_plugin_name(view(info.name))) {
      fail_registration(ctx, fmt::format("plugin name '{}' is not [a-z0-9._-]{{1,64}}", view(info.name)));
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    }
    std::string name(view(info.name));
    boost::json::object settings;
    if (ctx->config) {
      auto it = ctx->config->plugin_settings.find(name);
      if (it != ctx->config->plugin_settings.end()) settings = it->second;
    }
    ctx->config_json = boost::json::serialize(settings);
    ctx->logger = make_plugin_logger(name);
    ctx->version = view(info.version);
    ctx->description = view(info.description);
    ctx->name = std::move(name);
    // Taken last, after everything that can throw: the host calls
    // on_destroy only for a plugin whose set_plugin_info returned OK.
    ctx->plugin_data = info.plugin_data;
    ctx->on_destroy = info.on_destroy;
    ctx->has_info = true;
    return AIRLOCK_STATUS_OK;
  });
}

airlock_str get_config(airlock_plugin_ctx* ctx) noexcept {
  if (!ctx || !ctx->in_init || !ctx->has_info) return airlock_str{nullptr, 0};
  return borrow(ctx->config_json);
}

airlock_status register_tool(airlock_plugin_ctx* ctx, const airlock_tool_def* raw) noexcept {
  return guard([&] {
    if (!ctx || !raw) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    if (!ctx->in_init || !ctx->has_info) {
      fail_registration(ctx, "register_tool called before set_plugin_info or after init");
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    }
    const auto def = read_sized(raw);
    Tool tool;
    tool.name = view(def.name);
    if (!is_tool_name(tool.name)) {
      fail_registration(ctx, fmt::format("tool name '{}' is not 1 to 64 of [A-Za-z0-9_.-]", tool.name));
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    }
    if (!def.on_call) {
      fail_registration(ctx, fmt::format("tool '{}': on_call is NULL", tool.name));
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    }
    tool.title = view(def.title);
    tool.description = view(def.description);
    std::optional<boost::json::object> input;
    if (!parse_schema_field(ctx, tool.name, "input_schema", def.input_schema, input) ||
        !parse_schema_field(ctx, tool.name, "output_schema", def.output_schema, tool.output_schema) ||
        !parse_schema_field(ctx, tool.name, "annotations", def.annotations, tool.annotations))
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    tool.input_schema = input ? std::move(*input) : boost::json::object{{"type", "object"}};
    if (auto type = tool.input_schema.if_contains("type"); !type || *type != "object") {
      fail_registration(ctx, fmt::format("tool '{}': input_schema must have \"type\": \"object\"", tool.name));
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    }
    // Compiled here, once: a schema the validator cannot fully check refuses
    // the plugin rather than letting a call pass unchecked.
    auto input_validator = SchemaValidator::compile(tool.input_schema);
    if (!input_validator) {
      fail_registration(ctx, fmt::format("tool '{}': input_schema: {}", tool.name, input_validator.error().message));
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    }
    tool.input_validator = std::move(*input_validator);
    if (tool.output_schema) {
      auto output_validator = SchemaValidator::compile(*tool.output_schema);
      if (!output_validator) {
        fail_registration(ctx,
                          fmt::format("tool '{}': output_schema: {}", tool.name, output_validator.error().message));
        return AIRLOCK_STATUS_INVALID_ARGUMENT;
      }
      tool.output_validator = std::move(*output_validator);
    }
    auto headers = header_params(tool.input_schema);
    if (!headers) {
      fail_registration(ctx, fmt::format("tool '{}': input_schema: {}", tool.name, headers.error().message));
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    }
    tool.header_params = std::move(*headers);
    std::optional<boost::json::object> required;
    if (!parse_schema_field(ctx, tool.name, "required_client_capabilities", def.required_client_capabilities,
                            required))
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    if (required) tool.required_client_capabilities = std::move(*required);
    tool.flags = def.flags;
    tool.tool_data = def.tool_data;
    tool.on_call = def.on_call;
    ctx->tools.push_back(std::move(tool));
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status register_sanitizer(airlock_plugin_ctx* ctx, const airlock_sanitizer_def* raw) noexcept {
  return guard([&] {
    if (!ctx || !raw) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    if (!ctx->in_init || !ctx->has_info) {
      fail_registration(ctx, "register_sanitizer called before set_plugin_info or after init");
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    }
    const auto def = read_sized(raw);
    Sanitizer s;
    s.name = view(def.name);
    if (!is_component_name(s.name)) {
      fail_registration(ctx, fmt::format("sanitizer name '{}' is not '<namespace>.<name>'", s.name));
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    }
    if ((def.on_text == nullptr) == (def.on_result == nullptr)) {
      fail_registration(ctx, fmt::format("sanitizer '{}': set exactly one of on_text and on_result", s.name));
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    }
    s.description = view(def.description);
    s.kind = def.on_text ? SanitizerKind::text : SanitizerKind::result;
    s.data = def.sanitizer_data;
    s.on_text = def.on_text;
    s.on_result = def.on_result;
    ctx->sanitizers.push_back(std::move(s));
    return AIRLOCK_STATUS_OK;
  });
}

void set_init_error(airlock_plugin_ctx* ctx, airlock_str message) noexcept {
  try {
    if (ctx) ctx->init_error = view(message);
  } catch (...) {
  }
}

void log(airlock_plugin_ctx* ctx, airlock_log_level level, airlock_str message) noexcept {
  try {
    if (!ctx || !ctx->logger) return;
    static constexpr spdlog::level::level_enum kLevels[] = {
        spdlog::level::trace, spdlog::level::debug, spdlog::level::info, spdlog::level::warn,
        spdlog::level::err};
    const auto lvl = level >= 0 && level <= AIRLOCK_LOG_ERROR ? kLevels[level] : spdlog::level::info;
    ctx->logger->log(lvl, "{}", view(message));
  } catch (...) {
  }
}

// Parses a plugin's JSON into an object, or says why not.
airlock_status parse_object(airlock_str text, boost::json::object& out) {
  boost::system::error_code ec;
  boost::json::parse_options opts;
  opts.max_depth = 128;
  boost::json::value v = boost::json::parse(view(text), ec, {}, opts);
  if (ec || !v.is_object()) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  out = std::move(v.as_object());
  return AIRLOCK_STATUS_OK;
}

airlock_status result_set_structured(airlock_call* call, airlock_str json) noexcept {
  return guard([&] {
    if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    if (call->output.structured) return AIRLOCK_STATUS_ALREADY_SET;
    boost::json::object obj;
    if (auto st = parse_object(json, obj); st != AIRLOCK_STATUS_OK) return st;
    call->output.structured = std::move(obj);
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status result_add_text(airlock_call* call, airlock_str text) noexcept {
  return guard([&] {
    if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    // Built in place: an initializer list goes through value_ref and a
    // temporary, twice the cost of the text block itself.
    boost::json::object block(2);
    block.emplace("type", "text");
    block.emplace("text", view(text));
    call->output.content.emplace_back(std::move(block));
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status result_set_json(airlock_call* call, airlock_str json) noexcept {
  return guard([&] {
    if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    boost::json::object obj;
    if (auto st = parse_object(json, obj); st != AIRLOCK_STATUS_OK) return st;
    call->output.whole = std::move(obj);
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status result_set_error(airlock_call* call, airlock_str message) noexcept {
  return guard([&] {
    if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    call->output.error_message = std::string(view(message));
    return AIRLOCK_STATUS_OK;
  });
}

// RFC 6901 syntax only ("" or "/..." with "~" followed by 0 or 1); whether
// it names a string is checked on the final payload.
bool is_json_pointer(std::string_view p) {
  if (!p.empty() && p.front() != '/') return false;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p[i] == '~' && (i + 1 >= p.size() || (p[i + 1] != '0' && p[i + 1] != '1'))) return false;
  return true;
}

airlock_status result_add_untrusted_text(airlock_call* call, airlock_str source, airlock_str text) noexcept {
  return guard([&] {
    if (!call || !is_untrusted_source(view(source))) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    call->output.content.push_back(boost::json::object{
        {"type", "text"},
        {"text", view(text)},
        {"_meta", boost::json::object{{kUntrustedMetaKey, boost::json::object{{"source", view(source)}}}}}});
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status result_mark_untrusted(airlock_call* call, airlock_str pointer, airlock_str source) noexcept {
  return guard([&] {
    if (!call || !is_untrusted_source(view(source)) || !is_json_pointer(view(pointer)))
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    call->output.untrusted_fields.push_back({std::string(view(pointer)), std::string(view(source))});
    return AIRLOCK_STATUS_OK;
  });
}

int32_t is_cancelled(const airlock_call* call) noexcept {
  return call && call->cancelled && call->cancelled->load(std::memory_order_relaxed) ? 1 : 0;
}

airlock_status text_write(airlock_text_writer* out, airlock_str piece) noexcept {
  return guard([&] {
    if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    out->out->append(view(piece));
    out->written = true;
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status result_write(airlock_result_writer* out, airlock_str json) noexcept {
  return guard([&] {
    if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    out->json.assign(view(json));
    out->written = true;
    return AIRLOCK_STATUS_OK;
  });
}

// --- ABI 1.2: the call's way to its client. Arguments are checked here, so
// every channel sees valid UTF-8, a known level and a finite progress.

constexpr std::string_view kEmptyObject = "{}";
constexpr std::chrono::milliseconds kDefaultClientRequestTimeout{60'000};

airlock_status call_progress(airlock_call* call, double progress, double total, airlock_str message) noexcept {
  return guard([&] {
    if (!call || !std::isfinite(progress) || !valid_utf8(view(message))) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    // An infinite total is no more a number JSON can carry than NaN.
    if (!std::isfinite(total)) total = 0;
    if (!call->channel) return AIRLOCK_STATUS_OK;
    return call->channel->progress(progress, total, view(message));
  });
}

airlock_status call_log(airlock_call* call, airlock_client_log_level level, airlock_str logger,
                        airlock_str message) noexcept {
  return guard([&] {
    if (!call || level < AIRLOCK_CLIENT_LOG_DEBUG || level > AIRLOCK_CLIENT_LOG_EMERGENCY ||
        !valid_utf8(view(logger)) || !valid_utf8(view(message)))
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    if (!call->channel) return AIRLOCK_STATUS_OK;
    return call->channel->log(level, view(logger), view(message));
  });
}

airlock_status call_client_request(airlock_call* call, airlock_str method, airlock_str params_json,
                                   uint32_t timeout_ms, airlock_str* reply) noexcept {
  if (reply) *reply = airlock_str{nullptr, 0};
  return guard([&] {
    if (!call || !reply) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    // Parsed and written again, compact: the plugin's text may hold newlines
    // (which would split a stdio message) or invalid UTF-8.
    std::string params(kEmptyObject);
    if (!view(params_json).empty()) {
      boost::json::object parsed;
      if (parse_object(params_json, parsed) != AIRLOCK_STATUS_OK) return AIRLOCK_STATUS_INVALID_ARGUMENT;
      params = boost::json::serialize(parsed);
    }
    if (!call->channel) return AIRLOCK_STATUS_UNSUPPORTED;
    const auto timeout = timeout_ms ? std::chrono::milliseconds(timeout_ms) : kDefaultClientRequestTimeout;
    CallChannel::Reply answer = call->channel->request(view(method), params, timeout);
    if (answer.status == AIRLOCK_STATUS_OK || answer.status == AIRLOCK_STATUS_TOOL_ERROR) {
      std::lock_guard lock(call->replies_mutex);
      const std::string& kept = call->replies.emplace_back(std::move(answer.json));
      *reply = borrow(kept);
    }
    return answer.status;
  });
}

// A question's key: what the client's inputResponses name it by.
bool is_input_key(std::string_view key) {
  if (key.empty() || key.size() > 64) return false;
  for (char c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') return false;
  return true;
}

// The body of the three keyed input requests: checks, asks `channel`, and
// keeps the answer in `replies` (guarded by `mutex` when there is one).
airlock_status input_request(CallChannel* channel, LentStrings& replies, std::mutex* mutex,
                             airlock_str key, airlock_str method, airlock_str params_json, uint32_t timeout_ms,
                             airlock_str* reply) {
  if (!reply || !is_input_key(view(key))) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  std::string params(kEmptyObject);
  if (!view(params_json).empty()) {
    boost::json::object parsed;
    if (parse_object(params_json, parsed) != AIRLOCK_STATUS_OK) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    params = boost::json::serialize(parsed);
  }
  if (!channel) return AIRLOCK_STATUS_UNSUPPORTED;
  const auto timeout = timeout_ms ? std::chrono::milliseconds(timeout_ms) : kDefaultClientRequestTimeout;
  CallChannel::Reply answer = channel->request_keyed(view(key), view(method), params, timeout);
  if (answer.status == AIRLOCK_STATUS_OK || answer.status == AIRLOCK_STATUS_TOOL_ERROR) {
    std::unique_lock<std::mutex> lock;
    if (mutex) lock = std::unique_lock(*mutex);
    *reply = borrow(replies.emplace_back(std::move(answer.json)));
  }
  return answer.status;
}

airlock_status call_input_request(airlock_call* call, airlock_str key, airlock_str method, airlock_str params_json,
                                  uint32_t timeout_ms, airlock_str* reply) noexcept {
  if (reply) *reply = airlock_str{nullptr, 0};
  return guard([&] {
    if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    return input_request(call->channel, call->replies, &call->replies_mutex, key, method, params_json, timeout_ms,
                         reply);
  });
}

airlock_status prompt_input_request(airlock_prompt_writer* out, airlock_str key, airlock_str method,
                                    airlock_str params_json, uint32_t timeout_ms, airlock_str* reply) noexcept {
  if (reply) *reply = airlock_str{nullptr, 0};
  return guard([&] {
    if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    return input_request(out->channel, out->replies, nullptr, key, method, params_json, timeout_ms, reply);
  });
}

airlock_status resource_input_request(airlock_resource_writer* out, airlock_str key, airlock_str method,
                                      airlock_str params_json, uint32_t timeout_ms, airlock_str* reply) noexcept {
  if (reply) *reply = airlock_str{nullptr, 0};
  return guard([&] {
    if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    return input_request(out->channel, out->replies, nullptr, key, method, params_json, timeout_ms, reply);
  });
}

airlock_status notify_list_changed(airlock_plugin_ctx* ctx, uint32_t list) noexcept {
  return guard([&] {
    if (!ctx || list < AIRLOCK_LIST_TOOLS || list > AIRLOCK_LIST_RESOURCES) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    std::shared_ptr<ContentCatalog> catalog;
    {
      std::lock_guard lock(ctx->content_mutex);
      catalog = ctx->catalog.lock();
    }
    // Before the registry adopted the plugin nobody listens yet.
    if (catalog)
      catalog->notify_list_changed(list == AIRLOCK_LIST_TOOLS     ? ContentList::tools
                                   : list == AIRLOCK_LIST_PROMPTS ? ContentList::prompts
                                                                  : ContentList::resources);
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status call_start_task(airlock_call* call) noexcept {
  return guard([&] {
    if (!call) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    return call->channel ? call->channel->start_task() : AIRLOCK_STATUS_UNSUPPORTED;
  });
}

airlock_str call_client_capabilities(const airlock_call* call) noexcept {
  if (!call || !call->channel) return borrow(kEmptyObject);
  return borrow(call->channel->client_capabilities());
}

void call_end_stream(airlock_call* call) noexcept {
  try {
    if (call && call->channel) call->channel->end_stream();
  } catch (...) {
  }
}

airlock_str call_request_meta(const airlock_call* call) noexcept {
  if (!call || !call->channel) return borrow(kEmptyObject);
  return borrow(call->channel->request_meta());
}

constexpr airlock_host_api kHostApi = {
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
    content_api::register_resource,
    content_api::register_resource_template,
    content_api::register_prompt,
    content_api::unregister_resource,
    content_api::unregister_prompt,
    content_api::resource_updated,
    content_api::resource_add_text,
    content_api::resource_add_blob,
    content_api::prompt_set_description,
    content_api::prompt_add_text,
    content_api::prompt_add_image,
    content_api::prompt_add_resource,
    content_api::prompt_add_message,
    content_api::completion_add,
    content_api::completion_set_total,
    fetch_api::call_fetch,
    call_input_request,
    prompt_input_request,
    resource_input_request,
    notify_list_changed,
    call_start_task,
};

}  // namespace

const airlock_host_api& host_api() { return kHostApi; }

bool is_untrusted_source(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
          c == ':' || c == '@' || c == '/' || c == '-'))
      return false;
  return true;
}

std::shared_ptr<spdlog::logger> make_plugin_logger(const std::string& name) {
  const auto& sinks = spdlog::default_logger()->sinks();
  auto logger = std::make_shared<spdlog::logger>(name, sinks.begin(), sinks.end());
  logger->set_level(spdlog::default_logger()->level());
  return logger;
}

}  // namespace airlock::host
