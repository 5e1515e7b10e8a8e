// airlock/sdk/plugin_state.hpp: the plugin's heap object, which holds every registered
// callable from init to on_destroy, and the helpers every adapter uses.
// Part of the C++ layer over airlock.h; plugins include <airlock/airlock.hpp>.
#ifndef AIRLOCK_SDK_PLUGIN_STATE_HPP
#define AIRLOCK_SDK_PLUGIN_STATE_HPP

#include <airlock/sdk/call.hpp>

namespace airlock::sdk {

namespace detail {

using ToolFn = std::function<void(const boost::json::object&, Call&)>;
using TextFn = std::function<std::optional<std::string>(std::string_view)>;
using ResultFn = std::function<std::optional<boost::json::object>(
    const RequestContext&, std::string_view, const boost::json::object&, boost::json::object)>;

struct PluginState;
template <class Fn>
struct Entry {
  const PluginState* state;
  std::string name;
  Fn fn;
};

// The plugin's heap object: plugin_data of airlock_plugin_info.
struct PluginState {
  const airlock_host_api* host = nullptr;
  airlock_plugin_ctx* ctx = nullptr;
  bool info_accepted = false;
  airlock_status first_failure = AIRLOCK_STATUS_OK;
  std::vector<std::unique_ptr<Entry<ToolFn>>> tools{};
  std::vector<std::unique_ptr<Entry<TextFn>>> text_sanitizers{};
  std::vector<std::unique_ptr<Entry<ResultFn>>> result_sanitizers{};
  // ABI 1.3 content entries (resources, templates, prompts), of several types.
  std::vector<std::shared_ptr<void>> content{};
};

inline void destroy(void* plugin_data) noexcept { delete static_cast<PluginState*>(plugin_data); }

// Joins `parts` into one log line; on allocation failure logs the first part.
inline void log_noexcept(const PluginState& s, airlock_log_level level,
                         std::initializer_list<std::string_view> parts) noexcept {
  try {
    std::string message;
    for (std::string_view part : parts) message += part;
    s.host->log(s.ctx, level, to_str(message));
  } catch (...) {
    s.host->log(s.ctx, level, to_str(*parts.begin()));
  }
}

inline airlock_status failure(airlock_status s) noexcept {
  return s == AIRLOCK_STATUS_OK || s == AIRLOCK_STATUS_UNCHANGED ? AIRLOCK_STATUS_INTERNAL : s;
}

// The request a result sanitizer, a read or a prompt is told about: the
// members the host's struct_size covers, the rest empty.
inline RequestContext read_context(const airlock_request_context* c) noexcept {
  RequestContext r;
  if (c == nullptr) return r;
  auto covers = [c](std::size_t offset) { return c->struct_size >= offset + sizeof(airlock_str); };
  if (covers(offsetof(airlock_request_context, protocol_version))) r.protocol_version = to_view(c->protocol_version);
  if (covers(offsetof(airlock_request_context, session_id))) r.session_id = to_view(c->session_id);
  if (covers(offsetof(airlock_request_context, caller))) r.caller = to_view(c->caller);
  if (covers(offsetof(airlock_request_context, request_id))) r.request_id = to_view(c->request_id);
  if (covers(offsetof(airlock_request_context, client_capabilities)) && c->client_capabilities.len != 0)
    r.client_capabilities = to_view(c->client_capabilities);
  return r;
}

}  // namespace detail

}  // namespace airlock::sdk

#endif  // AIRLOCK_SDK_PLUGIN_STATE_HPP
