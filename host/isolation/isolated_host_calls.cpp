// The host functions an isolated plugin calls, served in the server by the
// server's own implementations (plugins/host_api.cpp, content_api.cpp,
// fetch_api.cpp) against the real call, writer or context. A host call for
// a handle of another kind than the hook's is refused like a NULL handle.
#include "isolation/isolated_plugin.hpp"

#include "plugins/host_api.hpp"

#include <spdlog/logger.h>

namespace airlock::host {

void (*isolated_on_destroy())(void*);

namespace {

using isolation::Fn;
using isolation::WireReader;
using isolation::WireWriter;

std::string status_only(airlock_status status) {
  WireWriter w;
  w.i32(status);
  return w.take();
}

// A status and a string the host lent out ({NULL,0} stays NULL).
std::string status_and(airlock_status status, airlock_str s) {
  WireWriter w;
  w.i32(status).u8(s.ptr != nullptr).str(view(s));
  return w.take();
}

airlock_str str(std::string_view s) { return borrow(s); }

const airlock_host_api& api() { return host_api(); }

}  // namespace

std::string IsolatedPlugin::hook_call(Fn fn, WireReader& in, const Target& t) {
  const auto refused = status_only(AIRLOCK_STATUS_INVALID_ARGUMENT);
  switch (fn) {
    case Fn::result_set_structured:
    case Fn::result_add_text:
    case Fn::result_set_json:
    case Fn::result_set_error: {
      const airlock_str s = str(in.str());
      if (!in.ok() || !t.call) return refused;
      auto setter = fn == Fn::result_set_structured ? api().result_set_structured
                    : fn == Fn::result_add_text     ? api().result_add_text
                    : fn == Fn::result_set_json     ? api().result_set_json
                                                    : api().result_set_error;
      return status_only(setter(t.call, s));
    }
    case Fn::result_add_untrusted_text: {
      const airlock_str source = str(in.str());
      const airlock_str text = str(in.str());
      if (!in.ok() || !t.call) return refused;
      return status_only(api().result_add_untrusted_text(t.call, source, text));
    }
    case Fn::result_mark_untrusted: {
      const airlock_str pointer = str(in.str());
      const airlock_str source = str(in.str());
      if (!in.ok() || !t.call) return refused;
      return status_only(api().result_mark_untrusted(t.call, pointer, source));
    }
    case Fn::call_progress: {
      const double progress = in.f64();
      const double total = in.f64();
      const airlock_str message = str(in.str());
      if (!in.ok() || !t.call) return refused;
      return status_only(api().call_progress(t.call, progress, total, message));
    }
    case Fn::call_log: {
      const auto level = in.i32();
      const airlock_str logger = str(in.str());
      const airlock_str message = str(in.str());
      if (!in.ok() || !t.call) return refused;
      return status_only(api().call_log(t.call, level, logger, message));
    }
    case Fn::call_end_stream:
      if (t.call) api().call_end_stream(t.call);
      return status_only(AIRLOCK_STATUS_OK);
    case Fn::call_client_request:
    case Fn::call_input_request:
    case Fn::prompt_input_request:
    case Fn::resource_input_request: {
      const airlock_str key = str(in.str());
      const airlock_str method = str(in.str());
      const airlock_str params = str(in.str());
      const std::uint32_t timeout_ms = in.u32();
      if (!in.ok()) return refused;
      airlock_str reply{nullptr, 0};
      airlock_status status = AIRLOCK_STATUS_INVALID_ARGUMENT;
      if (fn == Fn::call_client_request && t.call)
        status = api().call_client_request(t.call, method, params, timeout_ms, &reply);
      else if (fn == Fn::call_input_request && t.call)
        status = api().call_input_request(t.call, key, method, params, timeout_ms, &reply);
      else if (fn == Fn::prompt_input_request && t.prompt)
        status = api().prompt_input_request(t.prompt, key, method, params, timeout_ms, &reply);
      else if (fn == Fn::resource_input_request && t.resource)
        status = api().resource_input_request(t.resource, key, method, params, timeout_ms, &reply);
      return status_and(status, reply);
    }
    case Fn::call_fetch: {
      airlock_fetch_request request{};
      request.struct_size = sizeof request;
      request.flags = in.u32();
      request.method = str(in.str());
      request.url = str(in.str());
      const std::uint32_t count = in.u32();
      std::vector<airlock_fetch_header> headers;
      for (std::uint32_t i = 0; i < count && in.ok(); ++i) {
        const airlock_str name = str(in.str());
        const airlock_str value = str(in.str());
        headers.push_back({name, value});
      }
      request.headers = headers.data();
      request.header_count = headers.size();
      request.body = str(in.str());
      request.timeout_ms = in.u32();
      request.max_response_bytes = in.u64();
      if (!in.ok() || !t.call) return refused;
      airlock_fetch_response response{};
      response.struct_size = sizeof response;
      const airlock_status status = api().call_fetch(t.call, &request, &response);
      WireWriter w;
      w.i32(status).i32(response.http_status).str(view(response.final_url)).str(view(response.content_type));
      w.str(view(response.body)).i32(response.truncated).str(view(response.error));
      return w.take();
    }
    case Fn::call_start_task:
      if (!t.call) return refused;
      return status_only(api().call_start_task(t.call));
    case Fn::resource_add_text: {
      const airlock_str uri = str(in.str());
      const airlock_str mime = str(in.str());
      const airlock_str text = str(in.str());
      if (!in.ok() || !t.resource) return refused;
      return status_only(api().resource_add_text(t.resource, uri, mime, text));
    }
    case Fn::resource_add_blob: {
      const airlock_str uri = str(in.str());
      const airlock_str mime = str(in.str());
      const std::string_view bytes = in.str();
      if (!in.ok() || !t.resource) return refused;
      return status_only(api().resource_add_blob(t.resource, uri, mime, bytes.data(), bytes.size()));
    }
    case Fn::prompt_set_description: {
      const airlock_str description = str(in.str());
      if (!in.ok() || !t.prompt) return refused;
      return status_only(api().prompt_set_description(t.prompt, description));
    }
    case Fn::prompt_add_text: {
      const airlock_str role = str(in.str());
      const airlock_str text = str(in.str());
      if (!in.ok() || !t.prompt) return refused;
      return status_only(api().prompt_add_text(t.prompt, role, text));
    }
    case Fn::prompt_add_image: {
      const airlock_str role = str(in.str());
      const airlock_str mime = str(in.str());
      const std::string_view bytes = in.str();
      if (!in.ok() || !t.prompt) return refused;
      return status_only(api().prompt_add_image(t.prompt, role, mime, bytes.data(), bytes.size()));
    }
    case Fn::prompt_add_resource: {
      const airlock_str role = str(in.str());
      const airlock_str uri = str(in.str());
      const airlock_str mime = str(in.str());
      const airlock_str text = str(in.str());
      if (!in.ok() || !t.prompt) return refused;
      return status_only(api().prompt_add_resource(t.prompt, role, uri, mime, text));
    }
    case Fn::prompt_add_message: {
      const airlock_str message = str(in.str());
      if (!in.ok() || !t.prompt) return refused;
      return status_only(api().prompt_add_message(t.prompt, message));
    }
    case Fn::completion_add: {
      const airlock_str value = str(in.str());
      if (!in.ok() || !t.completion) return refused;
      return status_only(api().completion_add(t.completion, value));
    }
    case Fn::completion_set_total: {
      const std::uint64_t total = in.u64();
      if (!in.ok() || !t.completion) return refused;
      return status_only(api().completion_set_total(t.completion, total));
    }
    default:
      // A function of the plugin as a whole, made from inside a hook.
      return plugin_call(fn, in, false, false);
  }
}

std::string IsolatedPlugin::plugin_call(Fn fn, WireReader& in, bool booting, bool first) {
  const bool replay = booting && !first;
  switch (fn) {
    case Fn::set_plugin_info: {
      airlock_plugin_info info{};
      info.struct_size = sizeof info;
      info.name = str(in.str());
      info.version = str(in.str());
      info.description = str(in.str());
      if (!in.ok()) return status_only(AIRLOCK_STATUS_INVALID_ARGUMENT);
      if (replay) return status_only(AIRLOCK_STATUS_OK);
      // The server's on_destroy for this plugin stops its worker, which
      // runs the plugin's own on_destroy there.
      info.plugin_data = this;
      info.on_destroy = isolated_on_destroy();
      return status_only(api().set_plugin_info(&ctx_, &info));
    }
    case Fn::get_config: {
      if (replay) return status_and(AIRLOCK_STATUS_OK, str(config_json_));
      const airlock_str config = api().get_config(&ctx_);
      if (booting && config.ptr) config_json_ = view(config);
      return status_and(AIRLOCK_STATUS_OK, config);
    }
    case Fn::register_tool:
    case Fn::register_sanitizer:
    case Fn::register_resource:
    case Fn::register_resource_template:
    case Fn::register_prompt: return status_only(register_entry(fn, in, replay));
    case Fn::set_init_error: {
      const airlock_str message = str(in.str());
      if (!in.ok()) return status_only(AIRLOCK_STATUS_INVALID_ARGUMENT);
      if (replay)
        logger_->error("restarted plugin failed its init: {}", view(message));
      else
        api().set_init_error(&ctx_, message);
      return status_only(AIRLOCK_STATUS_OK);
    }
    case Fn::log: {
      const auto level = in.i32();
      const airlock_str message = str(in.str());
      if (in.ok()) api().log(&ctx_, level, message);
      return status_only(AIRLOCK_STATUS_OK);
    }
    case Fn::unregister_resource:
    case Fn::unregister_prompt:
    case Fn::resource_updated: {
      const airlock_str s = str(in.str());
      if (!in.ok()) return status_only(AIRLOCK_STATUS_INVALID_ARGUMENT);
      if (replay) return status_only(AIRLOCK_STATUS_OK);
      auto call = fn == Fn::unregister_resource ? api().unregister_resource
                  : fn == Fn::unregister_prompt ? api().unregister_prompt
                                                : api().resource_updated;
      return status_only(call(&ctx_, s));
    }
    case Fn::notify_list_changed: {
      const std::uint32_t list = in.u32();
      if (!in.ok()) return status_only(AIRLOCK_STATUS_INVALID_ARGUMENT);
      return status_only(api().notify_list_changed(&ctx_, list));
    }
    default:
      // A hook's function with no hook to act on (a plugin thread using a
      // handle after its hook returned): refused, as a NULL handle is.
      return status_only(AIRLOCK_STATUS_INVALID_ARGUMENT);
  }
}

}  // namespace airlock::host
