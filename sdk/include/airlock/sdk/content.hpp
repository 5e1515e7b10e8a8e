// airlock/sdk/content.hpp: ABI 1.3: resources, resource templates, prompts and
// completions, and the Host handle a plugin's own threads keep.
// Part of the C++ layer over airlock.h; plugins include <airlock/airlock.hpp>.
#ifndef AIRLOCK_SDK_CONTENT_HPP
#define AIRLOCK_SDK_CONTENT_HPP

#include <airlock/sdk/plugin_state.hpp>

namespace airlock::sdk {

// Thrown by a resource read that finds nothing there: the client gets
// -32002 "Resource not found".
class NotFound : public StatusError {
 public:
  explicit NotFound(const std::string& message = "not found") : StatusError(AIRLOCK_STATUS_NOT_FOUND, message) {}
};

// A resource as airlock_resource_def has it; `annotations` is a JSON object
// text or empty. The host copies all of it during registration.
struct ResourceDef {
  std::string_view uri{};
  std::string_view name{};
  std::string_view title{};
  std::string_view description{};
  std::string_view mime_type{};
  std::string_view annotations{};
};

// A resource template ("docs://pages/{page}": RFC 6570 level 1).
struct ResourceTemplateDef {
  std::string_view uri_template{};
  std::string_view name{};
  std::string_view title{};
  std::string_view description{};
  std::string_view mime_type{};
  std::string_view annotations{};
};

struct PromptArgument {
  std::string name;
  std::string description{};
  bool required = false;
  std::string title{};
};

struct PromptDef {
  std::string_view name{};
  std::string_view title{};
  std::string_view description{};
  std::vector<PromptArgument> arguments{};
};

// What a read asks for: the URI, and for a template its variables' values
// ({"page":"1"}, as they appear in the URI).
struct ReadRequest {
  std::string_view uri;
  boost::json::object variables;
  RequestContext context;
};

// Where a read writes its contents. Valid only inside the read, on its
// thread. Empty `mime_type` / `uri`: the resource's own / the URI read. A
// read may ask the client (ABI 1.5; input and the keyed elicit, sample and
// list_roots of detail::AsksClient), on a host of ABI 1.5 or later.
class Contents : public detail::AsksClient<Contents> {
 public:
  Contents(const airlock_host_api& host, airlock_resource_writer* out) noexcept : host_(&host), out_(out) {}
  // Call::ask_input for a read (resource_input_request); UNSUPPORTED from a
  // host older than 1.5. Never throws for the client's answer.
  ClientReply ask_input(std::string_view key, std::string_view method, std::string_view params_json = {},
                        std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    const auto fn = asker();
    if (fn == nullptr) return ClientReply{AIRLOCK_STATUS_UNSUPPORTED, {}};
    airlock_str reply{nullptr, 0};
    const airlock_status status =
        fn(out_, to_str(key), to_str(method), to_str(params_json), detail::timeout_ms(timeout), &reply);
    return ClientReply{status, std::string(to_view(reply))};
  }
  void add_text(std::string_view text, std::string_view mime_type = {}, std::string_view uri = {}) {
    check(host_->resource_add_text(out_, to_str(uri), to_str(mime_type), to_str(text)), "resource_add_text");
  }
  // The host base64-encodes `bytes`.
  void add_blob(std::string_view bytes, std::string_view mime_type = {}, std::string_view uri = {}) {
    check(host_->resource_add_blob(out_, to_str(uri), to_str(mime_type), bytes.data(), bytes.size()),
          "resource_add_blob");
  }

 private:
  friend class detail::AsksClient<Contents>;
  decltype(airlock_host_api::resource_input_request) asker() const noexcept {
    return detail::offered(*host_, &airlock_host_api::resource_input_request,
                           offsetof(airlock_host_api, resource_input_request));
  }
  void require_asking(std::string_view method) const {
    if (asker() == nullptr)
      throw StatusError(AIRLOCK_STATUS_TOOL_ERROR,
                        std::string(method) + ": a resource read can ask the client only on a host of ABI 1.5 or later");
  }
  // A refused write is the plugin's own bug, not a bad request: INTERNAL.
  static void check(airlock_status status, const char* what) {
    if (status != AIRLOCK_STATUS_OK)
      throw StatusError(AIRLOCK_STATUS_INTERNAL, std::string(what) + " failed with status " + std::to_string(status));
  }
  const airlock_host_api* host_;
  airlock_resource_writer* out_;
};

// What a prompts/get asks for; every required argument is there.
struct PromptRequest {
  std::string_view name;
  boost::json::object arguments;
  RequestContext context;
};

// Where a prompt writes its messages, in order. `role` is "user" or
// "assistant". Valid only inside the get, on its thread. A get may ask the
// client (ABI 1.5; input and the keyed elicit, sample and list_roots of
// detail::AsksClient), on a host of ABI 1.5 or later.
class Messages : public detail::AsksClient<Messages> {
 public:
  Messages(const airlock_host_api& host, airlock_prompt_writer* out) noexcept : host_(&host), out_(out) {}
  // Call::ask_input for a get (prompt_input_request); UNSUPPORTED from a
  // host older than 1.5. Never throws for the client's answer.
  ClientReply ask_input(std::string_view key, std::string_view method, std::string_view params_json = {},
                        std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    const auto fn = asker();
    if (fn == nullptr) return ClientReply{AIRLOCK_STATUS_UNSUPPORTED, {}};
    airlock_str reply{nullptr, 0};
    const airlock_status status =
        fn(out_, to_str(key), to_str(method), to_str(params_json), detail::timeout_ms(timeout), &reply);
    return ClientReply{status, std::string(to_view(reply))};
  }
  void description(std::string_view text) {
    check(host_->prompt_set_description(out_, to_str(text)), "prompt_set_description");
  }
  void text(std::string_view role, std::string_view text) {
    check(host_->prompt_add_text(out_, to_str(role), to_str(text)), "prompt_add_text");
  }
  // The host base64-encodes `bytes`.
  void image(std::string_view role, std::string_view mime_type, std::string_view bytes) {
    check(host_->prompt_add_image(out_, to_str(role), to_str(mime_type), bytes.data(), bytes.size()),
          "prompt_add_image");
  }
  // An embedded text resource.
  void resource(std::string_view role, std::string_view uri, std::string_view mime_type, std::string_view text) {
    check(host_->prompt_add_resource(out_, to_str(role), to_str(uri), to_str(mime_type), to_str(text)),
          "prompt_add_resource");
  }
  // Any PromptMessage: {"role", "content": {...}}, bytes in base64.
  void message(const boost::json::object& message) {
    const std::string json = boost::json::serialize(message);
    check(host_->prompt_add_message(out_, to_str(json)), "prompt_add_message");
  }

 private:
  friend class detail::AsksClient<Messages>;
  decltype(airlock_host_api::prompt_input_request) asker() const noexcept {
    return detail::offered(*host_, &airlock_host_api::prompt_input_request,
                           offsetof(airlock_host_api, prompt_input_request));
  }
  void require_asking(std::string_view method) const {
    if (asker() == nullptr)
      throw StatusError(AIRLOCK_STATUS_TOOL_ERROR,
                        std::string(method) + ": a prompt can ask the client only on a host of ABI 1.5 or later");
  }
  static void check(airlock_status status, const char* what) {
    if (status != AIRLOCK_STATUS_OK)
      throw StatusError(AIRLOCK_STATUS_INTERNAL, std::string(what) + " failed with status " + std::to_string(status));
  }
  const airlock_host_api* host_;
  airlock_prompt_writer* out_;
};

// Completes one prompt argument or template variable: what the user typed
// so far, and the values already chosen for the others; returns candidates
// (the client sees the first 100). Must not block for long.
using Completer = std::function<std::vector<std::string>(std::string_view typed, const boost::json::object& chosen)>;
// By argument / variable name.
using Completers = std::map<std::string, Completer, std::less<>>;

// The host, for the plugin's own threads after init: thread-safe, copyable,
// valid until on_destroy begins.
class Host {
 public:
  Host(const airlock_host_api& host, airlock_plugin_ctx* ctx) noexcept : host_(&host), ctx_(ctx) {}
  // Clients that subscribed to exactly `uri` get notifications/resources/updated.
  void resource_updated(std::string_view uri) const noexcept {
    if (covers()) host_->resource_updated(ctx_, to_str(uri));
  }
  // Stops serving this plugin's resource (or template, by its text) / prompt;
  // false when it serves none by that name.
  bool unregister_resource(std::string_view uri) const noexcept {
    return covers() && host_->unregister_resource(ctx_, to_str(uri)) == AIRLOCK_STATUS_OK;
  }
  bool unregister_prompt(std::string_view name) const noexcept {
    return covers() && host_->unregister_prompt(ctx_, to_str(name)) == AIRLOCK_STATUS_OK;
  }
  // ABI 1.5: tells clients that a list changed because what the plugin's
  // entries say or do changed (registering and unregistering tell them
  // already). Returns the host's status; UNSUPPORTED from a host older than
  // 1.5. Sends nothing before init returned OK.
  airlock_status notify_list_changed(List list) const noexcept {
    const auto fn = detail::offered(*host_, &airlock_host_api::notify_list_changed,
                                    offsetof(airlock_host_api, notify_list_changed));
    return fn == nullptr ? AIRLOCK_STATUS_UNSUPPORTED : fn(ctx_, static_cast<std::uint32_t>(list));
  }

 private:
  bool covers() const noexcept {
    return host_->struct_size >= offsetof(airlock_host_api, completion_set_total) + sizeof host_->completion_set_total;
  }
  const airlock_host_api* host_;
  airlock_plugin_ctx* ctx_;
};

namespace detail {

using ReadFn = std::function<void(const ReadRequest&, Contents&)>;
using GetFn = std::function<void(const PromptRequest&, Messages&)>;

template <class Fn>
struct ContentEntry {
  const PluginState* state;
  std::string name;
  Fn fn;
  Completers completers{};
};

// A read, get or completion failure: the statuses that mean something to
// the client pass through; anything else is logged (the client sees host
// text only). A question left open (InputRequired) is INPUT_REQUIRED where
// the hook `may_ask` (a read or a get), and a failure in a completion.
inline airlock_status content_failed(const PluginState& s, const std::string& name, const Caught& c,
                                     bool may_ask = false) noexcept {
  if (c.kind == Caught::Kind::input_required && may_ask) return AIRLOCK_STATUS_INPUT_REQUIRED;
  if (c.kind == Caught::Kind::status_error &&
      (c.status == AIRLOCK_STATUS_NOT_FOUND || c.status == AIRLOCK_STATUS_INVALID_ARGUMENT))
    return c.status;
  log_noexcept(s, AIRLOCK_LOG_WARN, {name, ": ", c.what});
  // Only a tool can become a task: a TaskStarted here was thrown by hand.
  const bool tool_only = c.kind == Caught::Kind::input_required || c.kind == Caught::Kind::task_started;
  return failure(tool_only ? AIRLOCK_STATUS_INTERNAL : c.status);
}

inline airlock_status on_read(void* data, const airlock_request_context* context, airlock_str uri,
                              airlock_str variables, airlock_resource_writer* out) noexcept {
  const auto* e = static_cast<const ContentEntry<ReadFn>*>(data);
  return barrier(
      [&] {
        const ReadRequest request{to_view(uri), parse_object(to_view(variables), "variables"), read_context(context)};
        Contents contents(*e->state->host, out);
        e->fn(request, contents);
        return AIRLOCK_STATUS_OK;
      },
      [&](Caught c) noexcept { return content_failed(*e->state, e->name, c, true); });
}

inline airlock_status on_get(void* data, const airlock_request_context* context, airlock_str name,
                             airlock_str arguments, airlock_prompt_writer* out) noexcept {
  const auto* e = static_cast<const ContentEntry<GetFn>*>(data);
  return barrier(
      [&] {
        const PromptRequest request{to_view(name), parse_object(to_view(arguments), "arguments"),
                                    read_context(context)};
        Messages messages(*e->state->host, out);
        e->fn(request, messages);
        return AIRLOCK_STATUS_OK;
      },
      [&](Caught c) noexcept { return content_failed(*e->state, e->name, c, true); });
}

template <class Fn>
airlock_status on_complete(void* data, const airlock_request_context*, airlock_str argument, airlock_str value,
                           airlock_str arguments, airlock_completion_writer* out) noexcept {
  const auto* e = static_cast<const ContentEntry<Fn>*>(data);
  return barrier(
      [&] {
        auto it = e->completers.find(to_view(argument));
        if (it == e->completers.end()) return AIRLOCK_STATUS_OK;
        for (const std::string& candidate : it->second(to_view(value), parse_object(to_view(arguments), "arguments")))
          if (const airlock_status status = e->state->host->completion_add(out, to_str(candidate));
              status != AIRLOCK_STATUS_OK)
            return status;
        return AIRLOCK_STATUS_OK;
      },
      [&](Caught c) noexcept { return content_failed(*e->state, e->name, c); });
}

// A read callable `R(const ReadRequest&, Contents&) const` with R = void
// (it wrote through Contents) or Text (one text content).
template <class Fn>
ReadFn make_read(Fn fn) {
  static_assert(std::is_invocable_v<const Fn&, const ReadRequest&, Contents&>,
                "a resource read is R(const airlock::sdk::ReadRequest&, airlock::sdk::Contents&) const");
  using R = std::invoke_result_t<const Fn&, const ReadRequest&, Contents&>;
  static_assert(std::is_void_v<R> || std::is_same_v<R, Text>, "a resource read returns void or Text");
  return [fn = std::move(fn)](const ReadRequest& request, Contents& out) {
    if constexpr (std::is_void_v<R>) {
      fn(request, out);
    } else {
      out.add_text(fn(request, out).text);
    }
  };
}

}  // namespace detail

}  // namespace airlock::sdk

#endif  // AIRLOCK_SDK_CONTENT_HPP
