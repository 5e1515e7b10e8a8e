// ABI 1.3's host functions. A registration is checked and copied here into a
// catalog entry, then goes to one of two places: the plugin's pending list
// while the registry has not taken the plugin yet (during init, mostly), or
// straight into the shared catalog afterwards. A bad definition during init
// refuses the plugin, as for tools; later it refuses only itself, with a
// line in the operator's log, since the plugin is already serving.
#include "plugins/content_api.hpp"

#include "plugins/host_api.hpp"
#include "util/base64.hpp"
#include "util/utf8.hpp"

#include <boost/json/parse.hpp>
#include <fmt/format.h>
#include <spdlog/logger.h>

#include <algorithm>
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

constexpr std::size_t kMaxUriBytes = 2048;

// "scheme:rest": RFC 3986's scheme, then no space, control character or
// invalid UTF-8 anywhere.
bool is_absolute_uri(std::string_view uri) {
  if (uri.empty() || uri.size() > kMaxUriBytes || !valid_utf8(uri)) return false;
  const std::size_t colon = uri.find(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  for (std::size_t i = 0; i < colon; ++i) {
    const char c = uri[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!(alpha || (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')))) return false;
  }
  for (char c : uri)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return false;
  return true;
}

// MCP's name rule, as for tools: 1 to 64 of [A-Za-z0-9_.-].
bool is_prompt_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
          c == '-'))
      return false;
  return true;
}

bool is_role(std::string_view role) { return role == "user" || role == "assistant"; }

// Says why a registration is refused: during init the plugin fails to load
// with this message; later, the operator's log gets it and the plugin gets
// INVALID_ARGUMENT.
airlock_status refuse(airlock_plugin_ctx* ctx, std::string message) {
  if (ctx->in_init) {
    if (ctx->registration_error.empty()) ctx->registration_error = std::move(message);
  } else if (ctx->logger) {
    ctx->logger->error("{}; registration refused", message);
  }
  return AIRLOCK_STATUS_INVALID_ARGUMENT;
}

// The text fields every definition has, checked: UTF-8 everywhere, since
// they go to clients as JSON.
bool utf8_fields(std::initializer_list<airlock_str> fields) {
  for (airlock_str f : fields)
    if (!valid_utf8(view(f))) return false;
  return true;
}

// An annotations field: empty, or a JSON object.
bool parse_annotations(airlock_str text, std::optional<boost::json::object>& out) {
  if (view(text).empty()) return true;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(view(text), ec);
  if (ec || !v.is_object()) return false;
  out = std::move(v.get_object());
  return true;
}

// Takes a checked entry: into the plugin's pending list, or the catalog.
// `key` names it in messages; `same` finds a pending entry with its key.
template <class T, class Same>
airlock_status take(airlock_plugin_ctx* ctx, std::shared_ptr<T> entry, std::vector<std::shared_ptr<T>>& (*list)(PendingContent&),
                    std::string_view kind, const std::string& key, Same same) {
  entry->plugin = ctx;
  std::lock_guard lock(ctx->content_mutex);
  if (auto catalog = ctx->catalog.lock()) {
    if (!catalog->add(std::move(entry)))
      return refuse(ctx, fmt::format("{} '{}' is already served", kind, key));
    return AIRLOCK_STATUS_OK;
  }
  auto& pending = list(ctx->pending_content);
  if (std::any_of(pending.begin(), pending.end(), same))
    return refuse(ctx, fmt::format("{} '{}' is registered twice", kind, key));
  pending.push_back(std::move(entry));
  return AIRLOCK_STATUS_OK;
}

std::vector<std::shared_ptr<Resource>>& pending_resources(PendingContent& p) { return p.resources; }
std::vector<std::shared_ptr<ResourceTemplate>>& pending_templates(PendingContent& p) { return p.templates; }
std::vector<std::shared_ptr<Prompt>>& pending_prompts(PendingContent& p) { return p.prompts; }

// Checks a prompt's argument list and keeps what prompts/get needs of it.
std::optional<std::string> read_prompt_arguments(std::string_view text, Prompt& prompt) {
  if (text.empty()) return std::nullopt;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  if (ec || !v.is_array()) return "arguments is not a JSON array";
  for (std::size_t i = 0; i < v.get_array().size(); ++i) {
    const auto* arg = v.get_array()[i].if_object();
    if (!arg) return fmt::format("arguments[{}] is not an object", i);
    const auto* name = arg->if_contains("name");
    if (!name || !name->is_string() || name->get_string().empty())
      return fmt::format("arguments[{}].name is not a non-empty string", i);
    for (const char* field : {"title", "description"})
      if (const auto* f = arg->if_contains(field); f && !f->is_string())
        return fmt::format("arguments[{}].{} is not a string", i, field);
    const auto* required = arg->if_contains("required");
    if (required && !required->is_bool()) return fmt::format("arguments[{}].required is not a boolean", i);
    const std::string n(name->get_string());
    for (const auto& seen : prompt.argument_names)
      if (seen.name == n) return fmt::format("arguments[{}].name repeats an earlier argument's", i);
    prompt.argument_names.push_back({n, required && required->get_bool()});
  }
  prompt.arguments = std::move(v.get_array());
  return std::nullopt;
}

// One content block as MCP's ContentBlock, checked.
std::optional<std::string> content_block_error(const boost::json::object& block) {
  const auto* type = block.if_contains("type");
  if (!type || !type->is_string()) return "content.type is not a string";
  auto string_field = [&](const boost::json::object& o, const char* field, std::string_view where)
      -> std::optional<std::string> {
    const auto* f = o.if_contains(field);
    if (!f || !f->is_string()) return fmt::format("{}.{} is not a string", where, field);
    return std::nullopt;
  };
  const auto& t = type->get_string();
  if (t == "text") return string_field(block, "text", "content");
  if (t == "image" || t == "audio") {
    if (auto e = string_field(block, "mimeType", "content")) return e;
    if (auto e = string_field(block, "data", "content")) return e;
    if (!is_base64(block.at("data").get_string())) return "content.data is not base64";
    return std::nullopt;
  }
  if (t == "resource_link") {
    if (auto e = string_field(block, "uri", "content")) return e;
    return string_field(block, "name", "content");
  }
  if (t == "resource") {
    const auto* r = block.if_contains("resource");
    if (!r || !r->is_object()) return "content.resource is not an object";
    const auto& res = r->get_object();
    if (auto e = string_field(res, "uri", "content.resource")) return e;
    const auto* text = res.if_contains("text");
    const auto* blob = res.if_contains("blob");
    if ((text != nullptr) == (blob != nullptr)) return "content.resource needs exactly one of text and blob";
    if (text && !text->is_string()) return "content.resource.text is not a string";
    if (blob && (!blob->is_string() || !is_base64(blob->get_string()))) return "content.resource.blob is not base64";
    return std::nullopt;
  }
  return "content.type is not a known content type";
}

}  // namespace

std::optional<std::string> prompt_message_shape_error(const boost::json::object& message) {
  const auto* role = message.if_contains("role");
  if (!role || !role->is_string() || !is_role(role->get_string())) return "role is not \"user\" or \"assistant\"";
  const auto* content = message.if_contains("content");
  if (!content || !content->is_object()) return "content is not an object";
  return content_block_error(content->get_object());
}

namespace content_api {

airlock_status register_resource(airlock_plugin_ctx* ctx, const airlock_resource_def* raw) noexcept {
  return guard([&] {
    if (!ctx || !raw) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    if (!ctx->has_info) return refuse(ctx, "register_resource called before set_plugin_info");
    const auto def = read_sized(raw);
    auto r = std::make_shared<Resource>();
    r->uri = view(def.uri);
    if (!is_absolute_uri(r->uri))
      return refuse(ctx, fmt::format("resource uri '{}' is not an absolute URI of at most {} bytes",
                                     valid_utf8(r->uri) ? r->uri : "(not UTF-8)", kMaxUriBytes));
    if (view(def.name).empty()) return refuse(ctx, fmt::format("resource '{}': name is empty", r->uri));
    if (!def.on_read) return refuse(ctx, fmt::format("resource '{}': on_read is NULL", r->uri));
    if (!utf8_fields({def.name, def.title, def.description, def.mime_type}))
      return refuse(ctx, fmt::format("resource '{}': a text field is not valid UTF-8", r->uri));
    if (!parse_annotations(def.annotations, r->annotations))
      return refuse(ctx, fmt::format("resource '{}': annotations is not a JSON object", r->uri));
    r->name = view(def.name);
    r->title = view(def.title);
    r->description = view(def.description);
    r->mime_type = view(def.mime_type);
    r->data = def.resource_data;
    r->on_read = def.on_read;
    const std::string key = r->uri;
    return take(ctx, std::move(r), &pending_resources, "resource", key,
                [&](const auto& other) { return other->uri == key; });
  });
}

airlock_status register_resource_template(airlock_plugin_ctx* ctx, const airlock_resource_template_def* raw) noexcept {
  return guard([&] {
    if (!ctx || !raw) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    if (!ctx->has_info) return refuse(ctx, "register_resource_template called before set_plugin_info");
    const auto def = read_sized(raw);
    const std::string text(view(def.uri_template));
    if (!is_absolute_uri(text))
      return refuse(ctx, fmt::format("resource template '{}' is not an absolute URI template of at most {} bytes",
                                     valid_utf8(text) ? text : "(not UTF-8)", kMaxUriBytes));
    auto parsed = UriTemplate::parse(text);
    if (!parsed) return refuse(ctx, fmt::format("resource template '{}': {}", text, parsed.error().message));
    if (view(def.name).empty()) return refuse(ctx, fmt::format("resource template '{}': name is empty", text));
    if (!def.on_read) return refuse(ctx, fmt::format("resource template '{}': on_read is NULL", text));
    auto t = std::make_shared<ResourceTemplate>();
    t->uri_template = text;
    t->parsed = std::move(*parsed);
    if (!utf8_fields({def.name, def.title, def.description, def.mime_type}))
      return refuse(ctx, fmt::format("resource template '{}': a text field is not valid UTF-8", text));
    if (!parse_annotations(def.annotations, t->annotations))
      return refuse(ctx, fmt::format("resource template '{}': annotations is not a JSON object", text));
    t->name = view(def.name);
    t->title = view(def.title);
    t->description = view(def.description);
    t->mime_type = view(def.mime_type);
    t->data = def.template_data;
    t->on_read = def.on_read;
    t->on_complete = def.on_complete;
    return take(ctx, std::move(t), &pending_templates, "resource template", text,
                [&](const auto& other) { return other->uri_template == text; });
  });
}

airlock_status register_prompt(airlock_plugin_ctx* ctx, const airlock_prompt_def* raw) noexcept {
  return guard([&] {
    if (!ctx || !raw) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    if (!ctx->has_info) return refuse(ctx, "register_prompt called before set_plugin_info");
    const auto def = read_sized(raw);
    auto p = std::make_shared<Prompt>();
    p->name = view(def.name);
    if (!is_prompt_name(p->name))
      return refuse(ctx, fmt::format("prompt name '{}' is not 1 to 64 of [A-Za-z0-9_.-]",
                                     valid_utf8(p->name) ? p->name : "(not UTF-8)"));
    if (!def.on_get) return refuse(ctx, fmt::format("prompt '{}': on_get is NULL", p->name));
    if (!utf8_fields({def.title, def.description}))
      return refuse(ctx, fmt::format("prompt '{}': a text field is not valid UTF-8", p->name));
    if (auto bad = read_prompt_arguments(view(def.arguments), *p))
      return refuse(ctx, fmt::format("prompt '{}': {}", p->name, *bad));
    p->title = view(def.title);
    p->description = view(def.description);
    p->data = def.prompt_data;
    p->on_get = def.on_get;
    p->on_complete = def.on_complete;
    const std::string key = p->name;
    return take(ctx, std::move(p), &pending_prompts, "prompt", key,
                [&](const auto& other) { return other->name == key; });
  });
}

airlock_status unregister_resource(airlock_plugin_ctx* ctx, airlock_str uri) noexcept {
  return guard([&] {
    if (!ctx) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    std::lock_guard lock(ctx->content_mutex);
    if (auto catalog = ctx->catalog.lock())
      return catalog->remove_resource(ctx, view(uri)) ? AIRLOCK_STATUS_OK : AIRLOCK_STATUS_NOT_FOUND;
    auto& pending = ctx->pending_content;
    const auto before = pending.resources.size() + pending.templates.size();
    std::erase_if(pending.resources, [&](const auto& r) { return r->uri == view(uri); });
    std::erase_if(pending.templates, [&](const auto& t) { return t->uri_template == view(uri); });
    return before != pending.resources.size() + pending.templates.size() ? AIRLOCK_STATUS_OK
                                                                          : AIRLOCK_STATUS_NOT_FOUND;
  });
}

airlock_status unregister_prompt(airlock_plugin_ctx* ctx, airlock_str name) noexcept {
  return guard([&] {
    if (!ctx) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    std::lock_guard lock(ctx->content_mutex);
    if (auto catalog = ctx->catalog.lock())
      return catalog->remove_prompt(ctx, view(name)) ? AIRLOCK_STATUS_OK : AIRLOCK_STATUS_NOT_FOUND;
    auto& pending = ctx->pending_content.prompts;
    const auto before = pending.size();
    std::erase_if(pending, [&](const auto& p) { return p->name == view(name); });
    return before != pending.size() ? AIRLOCK_STATUS_OK : AIRLOCK_STATUS_NOT_FOUND;
  });
}

airlock_status resource_updated(airlock_plugin_ctx* ctx, airlock_str uri) noexcept {
  return guard([&] {
    if (!ctx || !valid_utf8(view(uri))) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    std::shared_ptr<ContentCatalog> catalog;
    {
      std::lock_guard lock(ctx->content_mutex);
      catalog = ctx->catalog.lock();
    }
    if (catalog) catalog->resource_updated(view(uri));
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status resource_add_text(airlock_resource_writer* out, airlock_str uri, airlock_str mime_type,
                                 airlock_str text) noexcept {
  return guard([&] {
    if (!out || !valid_utf8(view(uri)) || !valid_utf8(view(mime_type)) || !valid_utf8(view(text)))
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    boost::json::object content{{"uri", view(uri).empty() ? out->uri : view(uri)}};
    if (auto mime = view(mime_type).empty() ? out->mime_type : view(mime_type); !mime.empty())
      content["mimeType"] = mime;
    content["text"] = view(text);
    out->contents.push_back(std::move(content));
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status resource_add_blob(airlock_resource_writer* out, airlock_str uri, airlock_str mime_type,
                                 const void* bytes, size_t len) noexcept {
  return guard([&] {
    if (!out || (!bytes && len) || !valid_utf8(view(uri)) || !valid_utf8(view(mime_type)))
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    boost::json::object content{{"uri", view(uri).empty() ? out->uri : view(uri)}};
    if (auto mime = view(mime_type).empty() ? out->mime_type : view(mime_type); !mime.empty())
      content["mimeType"] = mime;
    content["blob"] = to_base64(bytes, len);
    out->contents.push_back(std::move(content));
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status prompt_set_description(airlock_prompt_writer* out, airlock_str description) noexcept {
  return guard([&] {
    if (!out || !valid_utf8(view(description))) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    out->description = std::string(view(description));
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status prompt_add_text(airlock_prompt_writer* out, airlock_str role, airlock_str text) noexcept {
  return guard([&] {
    if (!out || !is_role(view(role)) || !valid_utf8(view(text))) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    out->messages.push_back(boost::json::object{
        {"role", view(role)}, {"content", boost::json::object{{"type", "text"}, {"text", view(text)}}}});
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status prompt_add_image(airlock_prompt_writer* out, airlock_str role, airlock_str mime_type,
                                const void* bytes, size_t len) noexcept {
  return guard([&] {
    if (!out || !is_role(view(role)) || view(mime_type).empty() || !valid_utf8(view(mime_type)) || (!bytes && len))
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    out->messages.push_back(boost::json::object{
        {"role", view(role)},
        {"content", boost::json::object{
                        {"type", "image"}, {"data", to_base64(bytes, len)}, {"mimeType", view(mime_type)}}}});
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status prompt_add_resource(airlock_prompt_writer* out, airlock_str role, airlock_str uri,
                                   airlock_str mime_type, airlock_str text) noexcept {
  return guard([&] {
    if (!out || !is_role(view(role)) || view(uri).empty() || !valid_utf8(view(uri)) ||
        !valid_utf8(view(mime_type)) || !valid_utf8(view(text)))
      return AIRLOCK_STATUS_INVALID_ARGUMENT;
    boost::json::object resource{{"uri", view(uri)}};
    if (!view(mime_type).empty()) resource["mimeType"] = view(mime_type);
    resource["text"] = view(text);
    out->messages.push_back(boost::json::object{
        {"role", view(role)},
        {"content", boost::json::object{{"type", "resource"}, {"resource", std::move(resource)}}}});
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status prompt_add_message(airlock_prompt_writer* out, airlock_str message_json) noexcept {
  return guard([&] {
    if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    boost::system::error_code ec;
    boost::json::parse_options options;
    options.max_depth = 64;
    boost::json::value v = boost::json::parse(view(message_json), ec, {}, options);
    if (ec || !v.is_object() || prompt_message_shape_error(v.get_object())) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    out->messages.push_back(std::move(v));
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status completion_add(airlock_completion_writer* out, airlock_str value) noexcept {
  return guard([&] {
    if (!out || !valid_utf8(view(value))) return AIRLOCK_STATUS_INVALID_ARGUMENT;
    ++out->added;
    if (out->values.size() < airlock_completion_writer::kMaxCompletionValues) out->values.emplace_back(view(value));
    return AIRLOCK_STATUS_OK;
  });
}

airlock_status completion_set_total(airlock_completion_writer* out, uint64_t total) noexcept {
  if (!out) return AIRLOCK_STATUS_INVALID_ARGUMENT;
  out->total = total;
  return AIRLOCK_STATUS_OK;
}

}  // namespace content_api
}  // namespace airlock::host
