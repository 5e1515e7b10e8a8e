// The methods of a session for what plugins serve besides tools (ABI 1.3):
// resources (list, templates, read, subscribe), prompts (list, get) and
// completion/complete. Lists are answered on the transport thread from the
// catalog; everything that runs plugin code (a read, a get, a completion)
// runs on a worker like a tool call, is answered once, and not at all when
// the client cancelled it. A read's or a get's answer is the result
// pipeline's (pipeline/result_pipeline.cpp), which writes the whole response.
#include "mcp/session.hpp"

#include "audit/audit_trail.hpp"
#include "calls/call_audit.hpp"
#include "util/sha256.hpp"

#include "mcp/session_call_link.hpp"

#include "mcp/input_round.hpp"
#include "mcp/protocol.hpp"
#include "pipeline/result_pipeline.hpp"
#include "util/json_text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace airlock::host {
namespace {

const boost::json::object* params_object(const jsonrpc::Message& m) { return m.params.if_object(); }

// Content cursors are the key of the last entry handed out ("k" + key), so
// a page boundary survives entries coming and going before it.
std::string make_cursor(const std::string& after) { return "k" + after; }

// The key after which a page starts: nothing for the first page. False when
// the cursor is not one of ours.
bool read_cursor(const jsonrpc::Message& m, std::optional<std::string>& after) {
  const auto* params = params_object(m);
  const auto* cursor = params ? params->if_contains("cursor") : nullptr;
  if (!cursor || cursor->is_null()) return true;
  if (!cursor->is_string() || cursor->get_string().empty() || cursor->get_string().front() != 'k') return false;
  after = std::string(std::string_view(cursor->get_string()).substr(1));
  return true;
}

// A string param, copied out of the message's arena for a worker.
std::optional<std::string> string_param(const jsonrpc::Message& m, std::string_view name) {
  const auto* params = params_object(m);
  const auto* v = params ? params->if_contains(name) : nullptr;
  if (!v || !v->is_string()) return std::nullopt;
  return std::string(v->get_string());
}

void put_optional(boost::json::object& entry, const char* key, const std::string& value) {
  if (!value.empty()) entry[key] = value;
}

boost::json::object resource_entry(const Resource& r) {
  boost::json::object entry{{"uri", r.uri}, {"name", r.name}};
  put_optional(entry, "title", r.title);
  put_optional(entry, "description", r.description);
  put_optional(entry, "mimeType", r.mime_type);
  if (r.annotations) entry["annotations"] = *r.annotations;
  return entry;
}

boost::json::object template_entry(const ResourceTemplate& t) {
  boost::json::object entry{{"uriTemplate", t.uri_template}, {"name", t.name}};
  put_optional(entry, "title", t.title);
  put_optional(entry, "description", t.description);
  put_optional(entry, "mimeType", t.mime_type);
  if (t.annotations) entry["annotations"] = *t.annotations;
  return entry;
}

boost::json::object prompt_entry(const Prompt& p) {
  boost::json::object entry{{"name", p.name}};
  put_optional(entry, "title", p.title);
  put_optional(entry, "description", p.description);
  if (!p.arguments.empty()) entry["arguments"] = p.arguments;
  return entry;
}

// `keep` drops what the caller may not see: a page may come out shorter
// than the page size (even empty) while nextCursor still leads on.
template <class T, class Entry, class Keep>
boost::json::object list_result(const char* field, const Page<T>& page, Entry entry, Keep keep) {
  boost::json::array items;
  for (const auto& item : page.items)
    if (keep(*item)) items.push_back(entry(*item));
  boost::json::object result{{field, std::move(items)}};
  if (page.next_after) result["nextCursor"] = make_cursor(*page.next_after);
  return result;
}

ContentAnswer error_answer(int code, std::string message, std::string data = {}) {
  return ContentAnswer{{}, code, std::move(message), std::move(data)};
}

// 2025 has a code of its own for it; 2026-07-28 folds it into -32602.
ContentAnswer not_found(const std::string& uri, bool modern) {
  return error_answer(modern ? jsonrpc::kInvalidParams : kResourceNotFound, std::string(kResourceNotFoundMessage),
                      to_json(boost::json::object{{"uri", uri}}));
}

// A JSON object of strings, for a plugin hook.
std::string strings_object(const std::vector<std::pair<std::string, std::string>>& pairs) {
  boost::json::object o;
  for (const auto& [k, v] : pairs) o[k] = v;
  return to_json(o);
}

}  // namespace

namespace {

// A resource or prompt through the result pipeline, which writes the whole
// response: the content, or the error with fixed text when it is withheld.
ContentAnswer piped(const ContentPayload& payload, boost::json::object result, const RequestContext& context,
                    const boost::json::value& id) {
  ContentAnswer answer;
  const PipelineVerdict verdict = run_content_pipeline(payload, std::move(result), context, id, answer.response);
  answer.withheld = verdict.withheld;
  if (verdict.error) answer.error_code = jsonrpc::kInternalError;
  answer.result_at = verdict.result_at;
  answer.result_size = verdict.result_size;
  return answer;
}

// The result the client got, as JSON text; empty when it got an error.
std::string_view delivered(const ContentAnswer& answer) {
  if (answer.response.empty()) return answer.error_code ? std::string_view() : std::string_view(answer.result);
  return std::string_view(answer.response).substr(answer.result_at, answer.result_size);
}

// One resources/read or prompts/get for the audit trail: the registered
// name (never the client's URI, which may carry values: a digest stands for
// it and the prompt's arguments), how it ended, and what the client got.
void audit_content(audit::Kind kind, std::string_view subject, std::string_view asked, const RequestContext& context,
                   const ContentAnswer& answer, std::chrono::steady_clock::time_point started) {
  if (!audit::enabled()) return;
  audit::Event event;
  event.kind = kind;
  event.outcome = !answer.withheld.empty() ? "withheld" : answer.error_code ? "error" : "delivered";
  event.failed = answer.error_code != 0;
  event.actor = audit_actor(context);
  event.subject = subject.empty() ? std::string("(unknown)") : std::string(subject);
  if (!answer.withheld.empty()) event.reason = std::string(answer.withheld);
  event.duration = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
  const std::string_view result = delivered(answer);
  event.bytes = result.size();
  event.detail[kind == audit::Kind::resource_read ? "uri_sha256" : "arguments_sha256"] =
      kind == audit::Kind::resource_read ? sha256_hex(sha256(asked)) : arguments_digest(asked);
  if (!result.empty()) event.detail["delivered_sha256"] = sha256_hex(sha256(result));
  audit::record(std::move(event));
}

}  // namespace

RequestContext Session::request_context(const InFlight& call) const {
  RequestContext context;
  if (call.scope) {
    context = RequestContext{call.scope->protocol_version, {}, caller_, call.key, call.scope->client_capabilities_json,
                             server_.metrics};
    context.modern_server_info = &server_info_;
  } else {
    context = RequestContext{protocol_version_, session_id_, caller_, call.key, client_capabilities_json_,
                             server_.metrics};
  }
  context.transport = transport_;
  context.peer_address = peer_address_;
  context.client = client_;
  return context;
}

void Session::run_content_job(const jsonrpc::Message& m, const Scope& scope, ContentJob job,
                              std::string_view state_method) {
  auto call = std::make_shared<InFlight>();
  call->id = m.id;
  call->scope = scope;
  if (scope && !state_method.empty()) {
    call->state_method = state_method;
    if (!open_round(m, call)) return;
  }
  const std::string& key = call->key = to_json(m.id);
  {
    std::lock_guard lock(calls_mutex_);
    if (closed_) return;
    if (!calls_.emplace(key, call).second)
      return reply_error(m.id, jsonrpc::kInvalidRequest,
                         fmt::format("invalid request: id {} is already in use by a request in flight", key));
  }
  std::function<void()> work = [this, call, job = std::move(job)] {
    // Cancelled while it waited in the queue: it never starts.
    if (!call->cancelled.load()) {
      ContentAnswer answer = job(*call);
      if (!call->cancelled.load() && !call->answered.exchange(true)) {
        std::string message;
        if (auto outcome = round_outcome(*call)) {
          message = std::move(*outcome);
        } else if (!answer.response.empty()) {
          message = std::move(answer.response);
        } else if (answer.error_code == 0) {
          message = jsonrpc::result(call->id, answer.result);
        } else {
          boost::json::object error{{"code", answer.error_code}, {"message", answer.error_message}};
          if (!answer.error_data.empty()) error["data"] = boost::json::parse(answer.error_data);
          message = to_json(boost::json::object{{"jsonrpc", "2.0"}, {"id", call->id}, {"error", std::move(error)}});
        }
        send_(std::move(message), Outbound{call->key, true});
      }
    }
    finish(call);
  };
  if (!server_.executor.try_submit(work)) {
    if (!call->answered.exchange(true))
      reply_error(m.id, jsonrpc::kServerBusy, "server busy: too many requests queued; retry later");
    finish(call);
  }
}

void Session::on_resources_list(jsonrpc::Message& m, const Scope& scope) {
  std::optional<std::string> after;
  if (!read_cursor(m, after)) return reply_error(m.id, jsonrpc::kInvalidParams, "resources/list: invalid cursor");
  reply_result(m.id,
               list_result("resources", catalog_->resources(after, server_.config.server.page_size), resource_entry,
                           [this](const auto& resource) { return resource_in_scope(resource.uri); }),
               scope, Cache::list);
}

void Session::on_resource_templates_list(jsonrpc::Message& m, const Scope& scope) {
  std::optional<std::string> after;
  if (!read_cursor(m, after))
    return reply_error(m.id, jsonrpc::kInvalidParams, "resources/templates/list: invalid cursor");
  reply_result(m.id,
               list_result("resourceTemplates", catalog_->templates(after, server_.config.server.page_size),
                           template_entry,
                           [this](const auto& entry) { return resource_in_scope(entry.uri_template); }),
               scope, Cache::list);
}

void Session::on_prompts_list(jsonrpc::Message& m, const Scope& scope) {
  std::optional<std::string> after;
  if (!read_cursor(m, after)) return reply_error(m.id, jsonrpc::kInvalidParams, "prompts/list: invalid cursor");
  reply_result(m.id,
               list_result("prompts", catalog_->prompts(after, server_.config.server.page_size), prompt_entry,
                           [this](const auto& prompt) { return prompt_in_scope(prompt.name); }),
               scope, Cache::list);
}

void Session::on_resources_read(jsonrpc::Message& m, const Scope& scope) {
  auto uri = string_param(m, "uri");
  if (!uri) return reply_error(m.id, jsonrpc::kInvalidParams, "resources/read: params.uri must be a string");

  // A retry (it answers questions) is the caller's alone: never cached.
  const auto* params = params_object(m);
  const bool retry = params->contains("inputResponses") || params->contains("requestState");
  run_content_job(m, scope, [this, uri = std::move(*uri), retry](const InFlight& call) -> ContentAnswer {
    const auto started = std::chrono::steady_clock::now();
    std::string registered;  // the resource's URI or template as its plugin registered it
    ContentAnswer answer = [&]() -> ContentAnswer {
      const bool modern = call.scope != nullptr;
      // Out of the caller's scope reads as absent: the scope does not reveal what exists.
      auto target = resource_in_scope(uri) ? catalog_->resolve(uri) : std::nullopt;
      if (!target) return not_found(uri, modern);
      const bool templated = target->from_template != nullptr;
      registered = templated ? target->from_template->uri_template : target->resource->uri;
      const airlock_on_read_fn on_read = templated ? target->from_template->on_read : target->resource->on_read;
      void* data = templated ? target->from_template->data : target->resource->data;
      const std::string& mime_type = templated ? target->from_template->mime_type : target->resource->mime_type;

      const RequestContext context = request_context(call);
      const airlock_request_context raw = context.raw();
      const std::string variables = strings_object(target->variables);
      CallLink link(*this, call);
      airlock_resource_writer out{uri, mime_type, {}, &link, {}};
      const airlock_status status = on_read(data, &raw, borrow(uri), borrow(variables), &out);
      if (round_pending(call)) return {};
      if (status == AIRLOCK_STATUS_NOT_FOUND) return not_found(uri, modern);
      if (status == AIRLOCK_STATUS_INVALID_ARGUMENT)
        return error_answer(jsonrpc::kInvalidParams, "resources/read: the resource refused this URI");
      if (status != AIRLOCK_STATUS_OK || out.contents.empty()) {
        spdlog::error("resource '{}': on_read returned status {}{}", uri, status,
                      status == AIRLOCK_STATUS_OK ? " without contents" : "");
        return error_answer(jsonrpc::kInternalError, "resources/read: the resource could not be read");
      }

      boost::json::object result{{"contents", std::move(out.contents)}};
      if (modern) {
        stamp_modern(result, server_, retry ? Cache::none : Cache::read);
        if (retry) {
          result["ttlMs"] = 0;
          result["cacheScope"] = "private";
        }
      }
      return piped({ContentKind::resource, uri, server_.routes.content().for_resource(uri)}, std::move(result),
                   context, call.id);
    }();
    if (!round_pending(call))
      audit_content(audit::Kind::resource_read, registered, uri, request_context(call), answer, started);
    return answer;
  });
}

void Session::on_resources_subscribe(jsonrpc::Message& m, const Scope&) { subscribe(m, true); }

void Session::on_resources_unsubscribe(jsonrpc::Message& m, const Scope&) { subscribe(m, false); }

void Session::subscribe(const jsonrpc::Message& m, bool subscribe) {
  const char* method = subscribe ? "resources/subscribe" : "resources/unsubscribe";
  auto uri = string_param(m, "uri");
  if (!uri) return reply_error(m.id, jsonrpc::kInvalidParams, fmt::format("{}: params.uri must be a string", method));
  if (subscribe) {
    if (!catalog_->resolve(*uri)) {
      const std::string key = to_json(m.id);
      boost::json::object error{{"code", kResourceNotFound},
                                {"message", kResourceNotFoundMessage},
                                {"data", boost::json::object{{"uri", *uri}}}};
      return send_(to_json(boost::json::object{{"jsonrpc", "2.0"}, {"id", m.id}, {"error", std::move(error)}}),
                   Outbound{key, true});
    }
    std::lock_guard lock(subscriptions_mutex_);
    subscriptions_.insert(std::move(*uri));
  } else {
    std::lock_guard lock(subscriptions_mutex_);
    if (auto it = subscriptions_.find(*uri); it != subscriptions_.end()) subscriptions_.erase(it);
  }
  reply(m.id, "{}");
}

void Session::on_prompts_get(jsonrpc::Message& m, const Scope& scope) {
  auto name = string_param(m, "name");
  if (!name) return reply_error(m.id, jsonrpc::kInvalidParams, "prompts/get: params.name must be a string");
  auto prompt = prompt_in_scope(*name) ? catalog_->find_prompt(*name) : nullptr;
  if (!prompt) return reply_error(m.id, jsonrpc::kInvalidParams, fmt::format("prompts/get: unknown prompt: {}", *name));

  // Checked here, on the transport thread: a bad request never takes a worker.
  boost::json::object arguments;
  if (const auto* args = params_object(m)->if_contains("arguments"); args && !args->is_null()) {
    if (!args->is_object())
      return reply_error(m.id, jsonrpc::kInvalidParams, "prompts/get: params.arguments must be an object");
    for (const auto& [key, value] : args->get_object()) {
      if (!value.is_string())
        return reply_error(m.id, jsonrpc::kInvalidParams,
                           fmt::format("prompts/get: argument '{}' must be a string", std::string_view(key)));
      arguments[key] = value.get_string();
    }
  }
  for (const auto& argument : prompt->argument_names)
    if (argument.required && !arguments.contains(argument.name))
      return reply_error(m.id, jsonrpc::kInvalidParams,
                         fmt::format("prompts/get: missing required argument '{}' of prompt {}", argument.name,
                                     prompt->name));

  run_content_job(m, scope, [this, prompt, arguments = to_json(arguments)](const InFlight& call) -> ContentAnswer {
    const auto started = std::chrono::steady_clock::now();
    ContentAnswer answer = [&]() -> ContentAnswer {
      const RequestContext context = request_context(call);
      const airlock_request_context raw = context.raw();
      CallLink link(*this, call);
      airlock_prompt_writer out;
      out.channel = &link;
      const airlock_status status = prompt->on_get(prompt->data, &raw, borrow(prompt->name), borrow(arguments), &out);
      if (round_pending(call)) return {};
      if (status == AIRLOCK_STATUS_INVALID_ARGUMENT)
        return error_answer(jsonrpc::kInvalidParams, "prompts/get: the prompt refused its arguments");
      if (status != AIRLOCK_STATUS_OK || out.messages.empty()) {
        spdlog::error("prompt '{}': on_get returned status {}{}", prompt->name, status,
                      status == AIRLOCK_STATUS_OK ? " without messages" : "");
        return error_answer(jsonrpc::kInternalError, "prompts/get: the prompt could not be built");
      }

      boost::json::object result;
      if (out.description) result["description"] = *out.description;
      result["messages"] = std::move(out.messages);
      if (call.scope) stamp_modern(result, server_, Cache::none);
      return piped({ContentKind::prompt, prompt->name, server_.routes.content().for_prompt(prompt->name)},
                   std::move(result), context, call.id);
    }();
    if (!round_pending(call))
      audit_content(audit::Kind::prompt_get, prompt->name, arguments, request_context(call), answer, started);
    return answer;
  }, "prompts/get");
}

void Session::on_complete(jsonrpc::Message& m, const Scope& scope) {
  const auto* params = params_object(m);
  const auto* ref = params ? params->if_contains("ref") : nullptr;
  const auto* argument = params ? params->if_contains("argument") : nullptr;
  const auto* ref_type = ref && ref->is_object() ? ref->get_object().if_contains("type") : nullptr;
  const auto* arg_name = argument && argument->is_object() ? argument->get_object().if_contains("name") : nullptr;
  const auto* arg_value = argument && argument->is_object() ? argument->get_object().if_contains("value") : nullptr;
  if (!ref_type || !ref_type->is_string() || !arg_name || !arg_name->is_string() || !arg_value ||
      !arg_value->is_string())
    return reply_error(m.id, jsonrpc::kInvalidParams,
                       "completion/complete: params need ref.type, argument.name and argument.value (strings)");

  // Who completes: a prompt's argument or a template's variable, checked to
  // exist, so a plugin only ever hears about its own names.
  airlock_on_complete_fn on_complete = nullptr;
  void* data = nullptr;
  std::shared_ptr<const void> keep;  // the entry, alive while the job runs
  const std::string name(arg_name->get_string());
  if (ref_type->get_string() == "ref/prompt") {
    const auto* prompt_name = ref->get_object().if_contains("name");
    if (!prompt_name || !prompt_name->is_string())
      return reply_error(m.id, jsonrpc::kInvalidParams, "completion/complete: ref.name must be a string");
    auto prompt =
        prompt_in_scope(prompt_name->get_string()) ? catalog_->find_prompt(prompt_name->get_string()) : nullptr;
    if (!prompt)
      return reply_error(m.id, jsonrpc::kInvalidParams,
                         fmt::format("completion/complete: unknown prompt: {}", prompt_name->get_string()));
    bool known = false;
    for (const auto& a : prompt->argument_names) known = known || a.name == name;
    if (!known)
      return reply_error(m.id, jsonrpc::kInvalidParams,
                         fmt::format("completion/complete: prompt {} has no argument '{}'", prompt->name, name));
    on_complete = prompt->on_complete;
    data = prompt->data;
    keep = prompt;
  } else if (ref_type->get_string() == "ref/resource") {
    const auto* uri = ref->get_object().if_contains("uri");
    if (!uri || !uri->is_string())
      return reply_error(m.id, jsonrpc::kInvalidParams, "completion/complete: ref.uri must be a string");
    auto resource_template =
        resource_in_scope(uri->get_string()) ? catalog_->find_template(uri->get_string()) : nullptr;
    if (!resource_template)
      return reply_error(m.id, jsonrpc::kInvalidParams,
                         fmt::format("completion/complete: unknown resource template: {}", uri->get_string()));
    const auto& variables = resource_template->parsed.variables();
    if (std::find(variables.begin(), variables.end(), name) == variables.end())
      return reply_error(m.id, jsonrpc::kInvalidParams,
                         fmt::format("completion/complete: template {} has no variable '{}'",
                                     resource_template->uri_template, name));
    on_complete = resource_template->on_complete;
    data = resource_template->data;
    keep = resource_template;
  } else {
    return reply_error(m.id, jsonrpc::kInvalidParams,
                       "completion/complete: ref.type must be \"ref/prompt\" or \"ref/resource\"");
  }
  boost::json::object others;
  if (const auto* context = params->if_contains("context"); context && context->is_object())
    if (const auto* args = context->get_object().if_contains("arguments"); args && args->is_object())
      for (const auto& [key, value] : args->get_object())
        if (value.is_string()) others[key] = value.get_string();

  if (!on_complete)
    return reply_result(m.id,
                        boost::json::object{{"completion", boost::json::object{{"values", boost::json::array{}},
                                                                               {"total", 0},
                                                                               {"hasMore", false}}}},
                        scope, Cache::none);

  run_content_job(m, scope, [this, on_complete, data, keep, name, value = std::string(arg_value->get_string()),
                      others = to_json(others)](const InFlight& call) -> ContentAnswer {
    const RequestContext context = request_context(call);
    const airlock_request_context raw = context.raw();
    airlock_completion_writer out;
    const airlock_status status = on_complete(data, &raw, borrow(name), borrow(value), borrow(others), &out);
    if (status != AIRLOCK_STATUS_OK) {
      spdlog::error("completion of '{}': on_complete returned status {}", name, status);
      return error_answer(jsonrpc::kInternalError, "completion/complete: the completion failed");
    }
    boost::json::array values;
    for (std::size_t i = 0; i < out.values.size() && i < kMaxCompletionValues; ++i) values.emplace_back(out.values[i]);
    const std::uint64_t total = std::max<std::uint64_t>(out.total.value_or(0), out.added);
    const bool more = total > values.size();
    boost::json::object result{
        {"completion", boost::json::object{{"values", std::move(values)}, {"total", total}, {"hasMore", more}}}};
    if (call.scope) stamp_modern(result, server_, Cache::none);
    ContentAnswer answer;
    answer.result = to_json(result);
    return answer;
  });
}

void Session::resource_updated(std::string_view uri) {
  notify_listens_updated(uri);
  {
    std::lock_guard lock(subscriptions_mutex_);
    if (!subscriptions_.contains(uri)) return;
  }
  send_(fmt::format(R"({{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{}}})",
                    to_json(boost::json::object{{"uri", uri}})),
        Outbound{});
}

void Session::list_changed(ContentList list) {
  notify_listens(list);
  if (!initialized_) return;
  const char* method = list == ContentList::resources ? "notifications/resources/list_changed"
                       : list == ContentList::prompts ? "notifications/prompts/list_changed"
                                                      : "notifications/tools/list_changed";
  send_(fmt::format(R"({{"jsonrpc":"2.0","method":"{}"}})", method), Outbound{});
}

}  // namespace airlock::host
