// airlock/sdk/sanitizers.hpp: how the host's on_text and on_result reach a text or
// result sanitizer callable, behind a barrier that never shows the input.
// Part of the C++ layer over airlock.h; plugins include <airlock/airlock.hpp>.
#ifndef AIRLOCK_SDK_SANITIZERS_HPP
#define AIRLOCK_SDK_SANITIZERS_HPP

#include <airlock/sdk/plugin_state.hpp>

namespace airlock::sdk {

namespace detail {

// Sanitizer failures are logged without the exception text: it may quote the
// very input the sanitizer exists to withhold.
inline airlock_status sanitizer_failed(const PluginState& s, const std::string& name) noexcept {
  log_noexcept(s, AIRLOCK_LOG_ERROR, {name, ": sanitizer threw; its message is withheld as it may quote the input"});
  return AIRLOCK_STATUS_INTERNAL;
}

inline airlock_status on_text(void* data, airlock_str text, airlock_text_writer* out) noexcept {
  const auto* e = static_cast<const Entry<TextFn>*>(data);
  return barrier(
      [&] {
        const std::string_view input = to_view(text);
        const std::optional<std::string> output = e->fn(input);
        if (!output || *output == input) return AIRLOCK_STATUS_UNCHANGED;
        return e->state->host->text_write(out, to_str(*output));
      },
      [&](Caught) noexcept { return sanitizer_failed(*e->state, e->name); });
}

inline airlock_status on_result(void* data, const airlock_request_context* context, airlock_str tool_name,
                                airlock_str arguments, airlock_str result, airlock_result_writer* out) noexcept {
  const auto* e = static_cast<const Entry<ResultFn>*>(data);
  return barrier(
      [&] {
        std::optional<boost::json::object> replaced =
            e->fn(read_context(context), to_view(tool_name), parse_object(to_view(arguments), "arguments"),
                  parse_object(to_view(result), "result"));
        if (!replaced) return AIRLOCK_STATUS_UNCHANGED;
        const std::string json = boost::json::serialize(*replaced);
        return e->state->host->result_write(out, to_str(json));
      },
      [&](Caught) noexcept { return sanitizer_failed(*e->state, e->name); });
}

}  // namespace detail

}  // namespace airlock::sdk

#endif  // AIRLOCK_SDK_SANITIZERS_HPP
