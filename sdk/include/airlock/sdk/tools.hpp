// airlock/sdk/tools.hpp: how the host's on_call reaches a tool callable, and how
// what the callable returns becomes the call's result.
// Part of the C++ layer over airlock.h; plugins include <airlock/airlock.hpp>.
#ifndef AIRLOCK_SDK_TOOLS_HPP
#define AIRLOCK_SDK_TOOLS_HPP

#include <airlock/sdk/plugin_state.hpp>

namespace airlock::sdk {

namespace detail {

inline airlock_status on_call(void* tool_data, airlock_call* raw, airlock_str arguments) noexcept {
  const auto* tool = static_cast<const Entry<ToolFn>*>(tool_data);
  const PluginState& s = *tool->state;
  Call call(*s.host, s.ctx, raw);
  return barrier(
      [&] {
        const boost::json::object args = parse_object(to_view(arguments), "arguments");
        tool->fn(args, call);
        return AIRLOCK_STATUS_OK;
      },
      [&](Caught c) noexcept -> airlock_status {
        if (c.kind == Caught::Kind::cancelled) return AIRLOCK_STATUS_CANCELLED;
        // The host drops whatever the tool set and asks the client instead.
        if (c.kind == Caught::Kind::input_required) return AIRLOCK_STATUS_INPUT_REQUIRED;
        // The host answers the client with the task and runs the tool again.
        if (c.kind == Caught::Kind::task_started) return AIRLOCK_STATUS_TASK_STARTED;
        if (c.kind == Caught::Kind::status_error && c.status != AIRLOCK_STATUS_TOOL_ERROR) {
          log_noexcept(s, AIRLOCK_LOG_WARN, {tool->name, ": ", c.what});
          return failure(c.status);
        }
        s.host->result_set_error(raw, to_str(c.what));
        return AIRLOCK_STATUS_TOOL_ERROR;
      });
}

inline void deliver(Call& call, Text&& t) { call.add_text(t.text); }
inline void deliver(Call& call, UntrustedText&& t) { call.add_untrusted_text(t.source, t.text); }
inline void deliver(Call& call, boost::json::object&& o) { call.set_structured(o); }
inline void deliver(Call& call, boost::json::value&& v) {
  if (v.is_object()) {
    call.set_structured(v.get_object());
  } else if (v.is_string()) {
    call.add_text(v.get_string());
  } else if (!v.is_null()) {
    throw std::logic_error("the tool returned JSON that is not an object, a string or null");
  }
}

}  // namespace detail

}  // namespace airlock::sdk

#endif  // AIRLOCK_SDK_TOOLS_HPP
