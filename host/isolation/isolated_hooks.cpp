// The proxy hooks an isolated plugin registers in the server, and what each
// does: encode the hook's arguments, run it in the worker, and turn the
// answer (or the worker's death) into what the in-process hook would have
// returned.
#include "isolation/isolated_plugin.hpp"

#include "isolation/worker_process.hpp"
#include "plugins/host_api.hpp"

#include <spdlog/logger.h>

namespace airlock::host {
namespace {

using isolation::Fn;
using isolation::Kind;
using isolation::WireReader;
using isolation::WireWriter;
using Entry = IsolatedPlugin::Entry;

const Entry& entry_of(void* data) { return *static_cast<const Entry*>(data); }

airlock_status proxy_on_call(void* data, airlock_call* call, airlock_str arguments) {
  try {
    const Entry& e = entry_of(data);
    return e.plugin->call_tool(e, call, arguments);
  } catch (...) {
    return AIRLOCK_STATUS_INTERNAL;
  }
}

airlock_status proxy_on_text(void* data, airlock_str text, airlock_text_writer* out) {
  try {
    const Entry& e = entry_of(data);
    return e.plugin->sanitize_text(e, text, out);
  } catch (...) {
    return AIRLOCK_STATUS_INTERNAL;
  }
}

airlock_status proxy_on_result(void* data, const airlock_request_context* context, airlock_str tool,
                               airlock_str arguments, airlock_str result, airlock_result_writer* out) {
  try {
    const Entry& e = entry_of(data);
    return e.plugin->sanitize_result(e, context, tool, arguments, result, out);
  } catch (...) {
    return AIRLOCK_STATUS_INTERNAL;
  }
}

airlock_status proxy_on_read(void* data, const airlock_request_context* context, airlock_str uri,
                             airlock_str variables, airlock_resource_writer* out) {
  try {
    const Entry& e = entry_of(data);
    return e.plugin->read(e, context, uri, variables, out);
  } catch (...) {
    return AIRLOCK_STATUS_INTERNAL;
  }
}

airlock_status proxy_on_get(void* data, const airlock_request_context* context, airlock_str name,
                            airlock_str arguments, airlock_prompt_writer* out) {
  try {
    const Entry& e = entry_of(data);
    return e.plugin->get(e, context, name, arguments, out);
  } catch (...) {
    return AIRLOCK_STATUS_INTERNAL;
  }
}

airlock_status proxy_on_complete(void* data, const airlock_request_context* context, airlock_str argument,
                                 airlock_str value, airlock_str arguments, airlock_completion_writer* out) {
  try {
    const Entry& e = entry_of(data);
    return e.plugin->complete(e, context, argument, value, arguments, out);
  } catch (...) {
    return AIRLOCK_STATUS_INTERNAL;
  }
}

void write_context(WireWriter& w, const airlock_request_context* raw) {
  const auto c = read_sized(raw);
  w.str(view(c.protocol_version)).str(view(c.session_id)).str(view(c.caller)).str(view(c.request_id));
  w.str(c.client_capabilities.ptr ? view(c.client_capabilities) : std::string_view("{}"));
}

// A call whose worker died answers the fixed error and nothing the plugin
// set before it died. What the call reached through the host's fetch stays:
// that is the host's own record of where the call went.
airlock_status stopped(airlock_call* call) {
  auto egress = std::move(call->output.egress);
  call->output = ToolOutput{};
  call->output.egress = std::move(egress);
  host_api().result_set_error(call, borrow(kPluginStopped));
  return AIRLOCK_STATUS_TOOL_ERROR;
}

airlock_str str(std::string_view s) { return borrow(s); }

}  // namespace

airlock_status IsolatedPlugin::call_tool(const Entry& entry, airlock_call* call, airlock_str arguments) {
  auto worker = acquire();
  if (!worker) return stopped(call);
  WireWriter w;
  w.u32(entry.index).str(view(arguments));
  w.str(view(host_api().call_client_capabilities(call))).str(view(host_api().call_request_meta(call)));
  const Target target{.call = call};
  const Outcome outcome = run(*worker, Kind::call_tool, w.body(), target, call->cancelled, std::nullopt);
  if (outcome.died) return stopped(call);
  // The setters the worker held back, applied as if called in order.
  WireReader in(outcome.rest);
  const std::uint32_t count = in.u32();
  for (std::uint32_t i = 0; i < count && in.ok(); ++i) {
    const auto fn = static_cast<Fn>(in.u32());
    if (fn != Fn::result_add_text && fn != Fn::result_set_error && fn != Fn::result_set_structured &&
        fn != Fn::result_set_json)
      return stopped(call);
    hook_call(fn, in, target);
  }
  if (!in.ok()) return stopped(call);
  return outcome.status;
}

std::optional<IsolatedPlugin::TextRunFailure> IsolatedPlugin::sanitize_texts(
    const std::vector<const Entry*>& steps, const std::vector<std::string_view>& texts,
    std::vector<std::optional<std::string>>& out) {
  out.assign(texts.size(), std::nullopt);
  auto worker = acquire();
  if (!worker) return TextRunFailure{0, AIRLOCK_STATUS_INTERNAL, false, true, {}};
  WireWriter w;
  w.u32(static_cast<std::uint32_t>(steps.size()));
  for (const Entry* step : steps) w.u32(step->index);
  w.u32(static_cast<std::uint32_t>(texts.size()));
  for (std::string_view text : texts) w.str(text);
  const auto limit = settings_.sanitizer_timeout * static_cast<long>(std::max<std::size_t>(steps.size(), 1));
  const Outcome outcome = run(*worker, Kind::sanitize_text, w.body(), Target{}, nullptr, limit);
  if (outcome.died) {
    logger_->error("sanitizer {}: its worker stopped; the result is withheld", steps.front()->name);
    return TextRunFailure{0, AIRLOCK_STATUS_INTERNAL, false, true, {}};
  }
  if (outcome.status != AIRLOCK_STATUS_OK) return TextRunFailure{0, outcome.status, false, false, {}};
  WireReader in(outcome.rest);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::uint8_t result = in.u8();
    const std::uint32_t step = in.u32();
    const airlock_status status = in.i32();
    const std::string_view text = in.str();
    if (!in.ok() || result > isolation::kTextBrokeUtf8 || (result > isolation::kTextChanged && step >= steps.size()))
      return TextRunFailure{0, AIRLOCK_STATUS_INTERNAL, false, false, {}};
    if (result == isolation::kTextFailed) return TextRunFailure{step, status, false, false, {}};
    if (result == isolation::kTextWroteUnchanged) return TextRunFailure{step, status, true, false, std::string(text)};
    if (result == isolation::kTextBrokeUtf8) return TextRunFailure{step, status, false, false, std::string(text), true};
    if (result == isolation::kTextChanged) out[i].emplace(text);
  }
  return std::nullopt;
}

airlock_status IsolatedPlugin::sanitize_text(const Entry& entry, airlock_str text, airlock_text_writer* out) {
  std::vector<std::optional<std::string>> result;
  const auto failure = sanitize_texts({&entry}, {view(text)}, result);
  if (failure) {
    // As the step answered in-process: its status, and what it wrote.
    if (failure->wrote_unchanged || failure->broke_utf8) host_api().text_write(out, str(failure->written));
    return failure->status;
  }
  if (!result[0]) return AIRLOCK_STATUS_UNCHANGED;
  return host_api().text_write(out, str(*result[0]));
}

airlock_status IsolatedPlugin::sanitize_result(const Entry& entry, const airlock_request_context* context,
                                               airlock_str tool, airlock_str arguments, airlock_str result,
                                               airlock_result_writer* out) {
  auto worker = acquire();
  if (!worker) return AIRLOCK_STATUS_INTERNAL;
  WireWriter w;
  w.u32(entry.index);
  write_context(w, context);
  w.str(view(tool)).str(view(arguments)).str(view(result));
  const Outcome outcome =
      run(*worker, Kind::sanitize_result, w.body(), Target{}, nullptr, settings_.sanitizer_timeout);
  if (outcome.died) {
    logger_->error("sanitizer {}: its worker stopped; the result is withheld", entry.name);
    return AIRLOCK_STATUS_INTERNAL;
  }
  WireReader in(outcome.rest);
  const bool written = in.u8() != 0;
  const std::string_view json = in.str();
  if (!in.ok()) return AIRLOCK_STATUS_INTERNAL;
  if (written) host_api().result_write(out, str(json));
  return outcome.status;
}

airlock_status IsolatedPlugin::read(const Entry& entry, const airlock_request_context* context, airlock_str uri,
                                    airlock_str variables, airlock_resource_writer* out) {
  auto worker = acquire();
  if (!worker) return AIRLOCK_STATUS_INTERNAL;
  WireWriter w;
  w.u32(entry.kind == EntryKind::resource_template ? 1 : 0).u32(entry.index);
  write_context(w, context);
  w.str(view(uri)).str(view(variables));
  const Outcome outcome = run(*worker, Kind::read_resource, w.body(), Target{.resource = out}, nullptr, std::nullopt);
  if (outcome.died) {
    out->contents.clear();
    return AIRLOCK_STATUS_INTERNAL;
  }
  return outcome.status;
}

airlock_status IsolatedPlugin::get(const Entry& entry, const airlock_request_context* context, airlock_str name,
                                   airlock_str arguments, airlock_prompt_writer* out) {
  auto worker = acquire();
  if (!worker) return AIRLOCK_STATUS_INTERNAL;
  WireWriter w;
  w.u32(entry.index);
  write_context(w, context);
  w.str(view(name)).str(view(arguments));
  const Outcome outcome = run(*worker, Kind::get_prompt, w.body(), Target{.prompt = out}, nullptr, std::nullopt);
  if (outcome.died) {
    out->messages.clear();
    out->description.reset();
    return AIRLOCK_STATUS_INTERNAL;
  }
  return outcome.status;
}

airlock_status IsolatedPlugin::complete(const Entry& entry, const airlock_request_context* context,
                                        airlock_str argument, airlock_str value, airlock_str arguments,
                                        airlock_completion_writer* out) {
  auto worker = acquire();
  if (!worker) return AIRLOCK_STATUS_INTERNAL;
  WireWriter w;
  w.u32(entry.kind == EntryKind::resource_template ? 1 : 0).u32(entry.index);
  write_context(w, context);
  w.str(view(argument)).str(view(value)).str(view(arguments));
  const Outcome outcome = run(*worker, Kind::complete, w.body(), Target{.completion = out}, nullptr, std::nullopt);
  if (outcome.died) {
    out->values.clear();
    out->added = 0;
    out->total.reset();
    return AIRLOCK_STATUS_INTERNAL;
  }
  return outcome.status;
}

// A registration from the worker, made in the server with proxy hooks. At
// a restart's init nothing is registered again: the tools and sanitizers
// must be the same, in the same order, as at the first (their proxies
// already name them by index); content is kept from the first worker.
airlock_status IsolatedPlugin::register_entry(Fn fn, WireReader& in, bool replay) {
  const std::uint32_t index = in.u32();
  auto add = [&](EntryKind kind, std::string_view name) -> Entry* {
    std::lock_guard lock(entries_mutex_);
    if (replay) {
      if (kind == EntryKind::tool || kind == EntryKind::sanitizer) {
        if (replayed_ >= expected_.size() || expected_[replayed_] != name) replay_diverged_ = true;
        ++replayed_;
      }
      return nullptr;
    }
    entries_.push_back(Entry{this, kind, index, std::string(name)});
    return &entries_.back();
  };
  const airlock_host_api& api = host_api();
  switch (fn) {
    case Fn::register_tool: {
      airlock_tool_def def{};
      def.struct_size = sizeof def;
      def.name = str(in.str());
      def.title = str(in.str());
      def.description = str(in.str());
      def.input_schema = str(in.str());
      def.output_schema = str(in.str());
      def.annotations = str(in.str());
      def.flags = in.u32();
      const bool has_call = in.u8() != 0;
      def.required_client_capabilities = str(in.str());
      if (!in.ok()) return AIRLOCK_STATUS_INVALID_ARGUMENT;
      Entry* e = add(EntryKind::tool, view(def.name));
      if (!e) return replay_diverged_ ? AIRLOCK_STATUS_INVALID_ARGUMENT : AIRLOCK_STATUS_OK;
      def.tool_data = e;
      def.on_call = has_call ? proxy_on_call : nullptr;
      const airlock_status status = api.register_tool(&ctx_, &def);
      if (status == AIRLOCK_STATUS_OK) {
        std::lock_guard lock(entries_mutex_);
        expected_.emplace_back(view(def.name));
      }
      return status;
    }
    case Fn::register_sanitizer: {
      airlock_sanitizer_def def{};
      def.struct_size = sizeof def;
      def.name = str(in.str());
      def.description = str(in.str());
      const bool text = in.u8() != 0;
      const bool result = in.u8() != 0;
      if (!in.ok()) return AIRLOCK_STATUS_INVALID_ARGUMENT;
      Entry* e = add(EntryKind::sanitizer, view(def.name));
      if (!e) return replay_diverged_ ? AIRLOCK_STATUS_INVALID_ARGUMENT : AIRLOCK_STATUS_OK;
      def.sanitizer_data = e;
      def.on_text = text ? proxy_on_text : nullptr;
      def.on_result = result ? proxy_on_result : nullptr;
      const airlock_status status = api.register_sanitizer(&ctx_, &def);
      if (status == AIRLOCK_STATUS_OK) {
        std::lock_guard lock(entries_mutex_);
        expected_.emplace_back(view(def.name));
      }
      return status;
    }
    case Fn::register_resource: {
      airlock_resource_def def{};
      def.struct_size = sizeof def;
      def.uri = str(in.str());
      def.name = str(in.str());
      def.title = str(in.str());
      def.description = str(in.str());
      def.mime_type = str(in.str());
      def.annotations = str(in.str());
      const bool has_read = in.u8() != 0;
      if (!in.ok()) return AIRLOCK_STATUS_INVALID_ARGUMENT;
      Entry* e = add(EntryKind::resource, view(def.uri));
      if (!e) return AIRLOCK_STATUS_OK;
      def.resource_data = e;
      def.on_read = has_read ? proxy_on_read : nullptr;
      return api.register_resource(&ctx_, &def);
    }
    case Fn::register_resource_template: {
      airlock_resource_template_def def{};
      def.struct_size = sizeof def;
      def.uri_template = str(in.str());
      def.name = str(in.str());
      def.title = str(in.str());
      def.description = str(in.str());
      def.mime_type = str(in.str());
      def.annotations = str(in.str());
      const bool has_read = in.u8() != 0;
      const bool has_complete = in.u8() != 0;
      if (!in.ok()) return AIRLOCK_STATUS_INVALID_ARGUMENT;
      Entry* e = add(EntryKind::resource_template, view(def.uri_template));
      if (!e) return AIRLOCK_STATUS_OK;
      def.template_data = e;
      def.on_read = has_read ? proxy_on_read : nullptr;
      def.on_complete = has_complete ? proxy_on_complete : nullptr;
      return api.register_resource_template(&ctx_, &def);
    }
    case Fn::register_prompt: {
      airlock_prompt_def def{};
      def.struct_size = sizeof def;
      def.name = str(in.str());
      def.title = str(in.str());
      def.description = str(in.str());
      def.arguments = str(in.str());
      const bool has_get = in.u8() != 0;
      const bool has_complete = in.u8() != 0;
      if (!in.ok()) return AIRLOCK_STATUS_INVALID_ARGUMENT;
      Entry* e = add(EntryKind::prompt, view(def.name));
      if (!e) return AIRLOCK_STATUS_OK;
      def.prompt_data = e;
      def.on_get = has_get ? proxy_on_get : nullptr;
      def.on_complete = has_complete ? proxy_on_complete : nullptr;
      return api.register_prompt(&ctx_, &def);
    }
    default: return AIRLOCK_STATUS_INVALID_ARGUMENT;
  }
}

const IsolatedPlugin::Entry* IsolatedPlugin::text_step_entry(airlock_on_text_fn on_text, void* data) {
  return on_text == proxy_on_text ? static_cast<const Entry*>(data) : nullptr;
}

// Exposed for isolated_host_calls.cpp: set_plugin_info names this as the
// plugin's on_destroy.
void (*isolated_on_destroy())(void*) {
  return [](void* plugin_data) { static_cast<IsolatedPlugin*>(plugin_data)->stop(); };
}

}  // namespace airlock::host
