// Durable tasks in a session and in stand-alone requests: creating one
// (call_start_task in 2026-07-28, params.task in 2025-11-25), and the tasks/*
// methods of both eras. Every read of a completed task runs its stored,
// unsanitized result through this server's chain for the tool, with this
// request's context: the reader's chain decides what the reader sees.
#include "mcp/session.hpp"

#include "mcp/input_round.hpp"
#include "mcp/modern_request.hpp"
#include "mcp/protocol.hpp"
#include "mcp/task_service.hpp"
#include "util/json_text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <thread>

namespace airlock::host {
namespace {

constexpr std::string_view kRelatedTask = "io.modelcontextprotocol/related-task";

const boost::json::object* params_object(const jsonrpc::Message& m) { return m.params.if_object(); }

std::optional<std::string> task_id_param(const jsonrpc::Message& m) {
  const auto* params = params_object(m);
  const auto* id = params ? params->if_contains("taskId") : nullptr;
  if (!id || !id->is_string()) return std::nullopt;
  return std::string(id->get_string());
}

// The Task fields both eras share; 2025 spells the durations ttl and
// pollInterval, 2026-07-28 ttlMs and pollIntervalMs.
void put_task(boost::json::object& out, const TaskRecord& t, bool modern) {
  out["taskId"] = t.id;
  out["status"] = to_string(t.status);
  if (!t.status_message.empty()) out["statusMessage"] = t.status_message;
  out["createdAt"] = TaskService::iso8601(t.created_ms);
  out["lastUpdatedAt"] = TaskService::iso8601(t.updated_ms);
  out[modern ? "ttlMs" : "ttl"] = t.ttl_ms;
  out[modern ? "pollIntervalMs" : "pollInterval"] = t.poll_interval_ms;
}

boost::json::value parse_or_null(std::string_view text) {
  boost::system::error_code ec;
  auto value = boost::json::parse(text, ec);
  return ec ? boost::json::value() : value;
}

ContentAnswer error_answer(int code, std::string message) { return ContentAnswer{{}, code, std::move(message), {}}; }

ContentAnswer store_failure(const Error& error) {
  spdlog::error("tasks: {}", error.message);
  return error_answer(jsonrpc::kInternalError, fmt::format("internal error: the task store failed: {}", error.message));
}

ContentAnswer unknown_task(std::string_view id) {
  return error_answer(jsonrpc::kInvalidParams, fmt::format("invalid params: unknown task: {}", id));
}

}  // namespace

airlock_status Session::start_task(const InFlight& call) {
  if (call.task || !call.task_error.empty()) return AIRLOCK_STATUS_TASK_STARTED;
  if (!call.scope || !server_.tasks || !call.route || !call.route->tool->task_capable()) return AIRLOCK_STATUS_UNSUPPORTED;
  if (!declares_tasks_extension(call.scope->client_capabilities)) return AIRLOCK_STATUS_UNSUPPORTED;
  TaskOrigin origin;
  origin.route = call.route;
  origin.owner = task_owner_;
  origin.arguments = call.arguments;
  origin.protocol_version = call.scope->protocol_version;
  origin.meta = call.meta();
  origin.client_capabilities = call.scope->client_capabilities;
  // The answers of the rounds before the task: its runs need not ask again.
  if (call.round) origin.answers = call.round->next_state().answers;
  auto created = server_.tasks->create(std::move(origin));
  if (!created) {
    spdlog::error("tool '{}': the task could not be created: {}", call.route->tool->name, created.error().message);
    call.task_error = fmt::format("internal error: the task could not be stored: {}", created.error().message);
  } else {
    call.task = std::make_shared<const TaskRecord>(std::move(*created));
  }
  return AIRLOCK_STATUS_TASK_STARTED;
}

std::string Session::task_created(const InFlight& call) const {
  boost::json::object result;
  if (call.scope) {
    put_task(result, *call.task, true);
    stamp_modern(result, server_, Cache::none);
    result["resultType"] = "task";
  } else {
    boost::json::object task;
    put_task(task, *call.task, false);
    result["task"] = std::move(task);
  }
  return to_json(result);
}

void Session::start_session_task(const jsonrpc::Message& m, const ToolRoute& route,
                                 const std::shared_ptr<InFlight>& call) {
  // Arguments are checked now: a task that could never run is not created.
  if (auto invalid = route.tool->input_validator->validate(*call->arguments_value))
    return reply_error(m.id, jsonrpc::kInvalidParams, fmt::format("invalid arguments: {}", invalid->describe()));
  TaskOrigin origin;
  origin.route = &route;
  origin.owner = task_owner_;
  origin.arguments = arguments_text(*call);
  origin.protocol_version = protocol_version_;
  origin.meta = call->meta();
  // A 2025 task cannot be asked anything: there is no tasks/update then.
  if (const auto* ttl = m.params.get_object().at("task").get_object().if_contains("ttl"); ttl && ttl->is_int64() &&
                                                                                          ttl->get_int64() > 0)
    origin.ttl_ms = ttl->get_int64();
  auto created = server_.tasks->create(std::move(origin));
  if (!created)
    return reply_error(m.id, jsonrpc::kInternalError,
                       fmt::format("internal error: the task could not be stored: {}", created.error().message));
  call->task = std::make_shared<const TaskRecord>(std::move(*created));
  reply(m.id, task_created(*call));
}

void Session::on_tasks_get(jsonrpc::Message& m, const Scope& scope) {
  auto id = task_id_param(m);
  if (!id) return reply_error(m.id, jsonrpc::kInvalidParams, "invalid params: tasks/get: params.taskId must be a string");
  run_content_job(m, scope, [this, id = std::move(*id)](const InFlight& call) -> ContentAnswer {
    auto found = server_.tasks->get(id, task_owner_);
    if (!found) return store_failure(found.error());
    if (!*found) return unknown_task(id);
    const TaskRecord& task = **found;
    const bool modern = call.scope != nullptr;
    boost::json::object result;
    put_task(result, task, modern);
    if (modern) {
      if (task.status == TaskStatus::completed) {
        // Read through this server's chain, as this reader: never the stored bytes.
        RequestContext reader = request_context(call);
        reader.modern_server_info = nullptr;
        result["result"] = parse_or_null(server_.tasks->read_result(task, reader));
      } else if (task.status == TaskStatus::failed) {
        result["error"] = parse_or_null(task.error);
      } else if (task.status == TaskStatus::input_required) {
        result["inputRequests"] = parse_or_null(task.input_requests);
      }
      stamp_modern(result, server_, Cache::none);
    }
    return ContentAnswer{to_json(result), 0, {}, {}};
  });
}

void Session::on_tasks_result(jsonrpc::Message& m, const Scope&) {
  auto id = task_id_param(m);
  if (!id)
    return reply_error(m.id, jsonrpc::kInvalidParams, "invalid params: tasks/result: params.taskId must be a string");
  run_content_job(m, nullptr, [this, id = std::move(*id)](const InFlight& call) -> ContentAnswer {
    // 2025-11-25: the answer waits for the task to end.
    for (;;) {
      auto found = server_.tasks->get(id, task_owner_);
      if (!found) return store_failure(found.error());
      if (!*found) return unknown_task(id);
      const TaskRecord& task = **found;
      if (task.status == TaskStatus::completed) {
        auto result = parse_or_null(server_.tasks->read_result(task, request_context(call)));
        if (auto* object = result.if_object()) {
          auto& meta = (*object)["_meta"];
          if (!meta.is_object()) meta = boost::json::object{};
          meta.get_object()[kRelatedTask] = boost::json::object{{"taskId", task.id}};
        }
        return ContentAnswer{to_json(result), 0, {}, {}};
      }
      if (task.status == TaskStatus::failed) {
        auto error = parse_or_null(task.error);
        const auto* e = error.if_object();
        const auto* code = e ? e->if_contains("code") : nullptr;
        const auto* message = e ? e->if_contains("message") : nullptr;
        return error_answer(code && code->is_int64() ? static_cast<int>(code->get_int64()) : jsonrpc::kInternalError,
                            message && message->is_string() ? std::string(message->get_string()) : "the task failed");
      }
      if (task.status == TaskStatus::cancelled)
        return error_answer(jsonrpc::kInvalidParams, fmt::format("invalid params: task {} was cancelled", id));
      if (call.cancelled.load()) return {};
      std::this_thread::sleep_for(std::chrono::milliseconds(std::max<std::int64_t>(50, task.poll_interval_ms / 2)));
    }
  });
}

void Session::on_tasks_list(jsonrpc::Message& m, const Scope&) {
  std::optional<std::string> after;
  if (const auto* params = params_object(m))
    if (const auto* cursor = params->if_contains("cursor"); cursor && !cursor->is_null()) {
      if (!cursor->is_string()) return reply_error(m.id, jsonrpc::kInvalidParams, "tasks/list: invalid cursor");
      after = std::string(cursor->get_string());
    }
  run_content_job(m, nullptr, [this, after = std::move(after)](const InFlight&) -> ContentAnswer {
    const std::size_t limit = server_.config.server.page_size;
    auto page = server_.tasks->list(task_owner_, after ? std::optional<std::string_view>(*after) : std::nullopt,
                                    limit + 1);
    if (!page) return after ? error_answer(jsonrpc::kInvalidParams, "tasks/list: invalid cursor")
                            : store_failure(page.error());
    boost::json::array tasks;
    for (std::size_t i = 0; i < page->size() && i < limit; ++i) {
      boost::json::object task;
      put_task(task, (*page)[i], false);
      tasks.push_back(std::move(task));
    }
    boost::json::object result{{"tasks", std::move(tasks)}};
    if (page->size() > limit) result["nextCursor"] = (*page)[limit - 1].id;
    return ContentAnswer{to_json(result), 0, {}, {}};
  });
}

void Session::on_tasks_update(jsonrpc::Message& m, const Scope& scope) {
  auto id = task_id_param(m);
  const auto* params = params_object(m);
  const auto* responses = params ? params->if_contains("inputResponses") : nullptr;
  if (!id || !responses || !responses->is_object())
    return reply_error(m.id, jsonrpc::kInvalidParams,
                       "invalid params: tasks/update needs params.taskId (a string) and params.inputResponses (an "
                       "object of answers by key)");
  // A copy on the heap's storage: a plain copy would share the message's
  // arena, which the transport frees while the job may still be reading.
  run_content_job(m, scope,
                  [this, id = std::move(*id),
                   responses = boost::json::object(responses->get_object(), boost::json::storage_ptr())](
                      const InFlight&) -> ContentAnswer {
    auto updated = server_.tasks->answer(id, task_owner_, responses);
    if (!updated) return store_failure(updated.error());
    if (!*updated) return unknown_task(id);
    boost::json::object ack;
    stamp_modern(ack, server_, Cache::none);
    return ContentAnswer{to_json(ack), 0, {}, {}};
  });
}

void Session::on_tasks_cancel(jsonrpc::Message& m, const Scope& scope) {
  auto id = task_id_param(m);
  if (!id)
    return reply_error(m.id, jsonrpc::kInvalidParams, "invalid params: tasks/cancel: params.taskId must be a string");
  run_content_job(m, scope, [this, id = std::move(*id)](const InFlight& call) -> ContentAnswer {
    auto before = server_.tasks->get(id, task_owner_);
    if (!before) return store_failure(before.error());
    if (!*before) return unknown_task(id);
    const bool was_terminal = is_terminal((*before)->status);
    auto cancelled = server_.tasks->cancel(id, task_owner_);
    if (!cancelled) return store_failure(cancelled.error());
    if (!*cancelled) return unknown_task(id);
    boost::json::object result;
    if (call.scope) {
      // 2026-07-28: an empty acknowledgement, also for a task already over.
      stamp_modern(result, server_, Cache::none);
    } else {
      if (was_terminal)
        return error_answer(jsonrpc::kInvalidParams,
                            fmt::format("invalid params: task {} is already {}", id, to_string((*before)->status)));
      put_task(result, **cancelled, false);
    }
    return ContentAnswer{to_json(result), 0, {}, {}};
  });
}

}  // namespace airlock::host
