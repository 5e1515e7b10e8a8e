// Creating, running, answering, cancelling and reading durable tasks. The
// store is the only state that matters: a run reads the record it works
// for, and writes its outcome back under the record's version, so a cancel
// that landed first (here or on another server) always wins.
#include "mcp/task_service.hpp"

#include "audit/audit_trail.hpp"
#include "calls/call_audit.hpp"
#include "calls/tool_call_runner.hpp"
#include "executor/executor.hpp"
#include "mcp/input_round.hpp"
#include "packs/sodium_init.hpp"
#include "pipeline/result_pipeline.hpp"
#include "plugins/host_api.hpp"
#include "util/json_text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <ctime>

namespace airlock::host {
namespace {

using namespace std::chrono_literals;

// How often this server says it is alive, looks for cancels made elsewhere,
// and looks for tasks whose server stopped; a runner silent this long is dead.
constexpr auto kHeartbeat = 1s;
constexpr std::int64_t kStaleAfterMs = 10'000;

std::string new_task_id() {
  ensure_sodium();
  unsigned char bytes[32];
  randombytes_buf(bytes, sizeof bytes);
  char hex[sizeof bytes * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, bytes, sizeof bytes);
  return std::string(hex, sizeof bytes * 2);
}

boost::json::object parse_object_or_empty(std::string_view text) {
  boost::system::error_code ec;
  auto value = boost::json::parse(text, ec);
  if (ec || !value.is_object()) return {};
  return std::move(value.get_object());
}

// What the creating request declared: a re-run asks only what it could.
boost::json::object capabilities_of(std::string_view meta) {
  auto parsed = parse_object_or_empty(meta);
  if (auto* caps = parsed.if_contains("io.modelcontextprotocol/clientCapabilities"); caps && caps->is_object())
    return std::move(caps->get_object());
  return {};
}

}  // namespace

// A task run's way to its client, who is not there: progress and logs go
// nowhere, and a question is answered from the task's record or becomes
// the task's input_required.
class TaskService::TaskLink final : public CallChannel {
 public:
  TaskLink(InputRound& round, std::string capabilities, std::string meta)
      : round_(round), capabilities_(std::move(capabilities)), meta_(std::move(meta)) {}
  airlock_status progress(double, double, std::string_view) override { return AIRLOCK_STATUS_OK; }
  airlock_status log(airlock_client_log_level, std::string_view, std::string_view) override {
    return AIRLOCK_STATUS_OK;
  }
  Reply request(std::string_view method, std::string_view params_json, std::chrono::milliseconds) override {
    auto asked = round_.ask(std::nullopt, method, params_json);
    return {asked.status, std::move(asked.json)};
  }
  Reply request_keyed(std::string_view key, std::string_view method, std::string_view params_json,
                      std::chrono::milliseconds) override {
    auto asked = round_.ask(key, method, params_json);
    return {asked.status, std::move(asked.json)};
  }
  std::string_view client_capabilities() const noexcept override { return capabilities_; }
  std::string_view request_meta() const noexcept override { return meta_; }
  void end_stream() override {}
  airlock_status start_task() override { return AIRLOCK_STATUS_OK; }  // it is one

 private:
  InputRound& round_;
  const std::string capabilities_;
  const std::string meta_;
};

TaskService::TaskService(const ToolRoutes& routes, Executor& executor, const ToolCallRunner& runner,
                         std::unique_ptr<TaskStore> store, TaskSettings settings)
    : routes_(routes),
      executor_(executor),
      runner_(runner),
      store_(std::move(store)),
      settings_(std::move(settings)) {}

TaskService::~TaskService() { stop(); }

std::int64_t TaskService::now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string TaskService::iso8601(std::int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  return fmt::format("{}.{:03}Z", text, unix_ms % 1000);
}

void TaskService::start() {
  // Tasks this node id ran before a crash or kill: nobody runs them now.
  if (auto failed = store_->fail_runner(settings_.node_id, now_ms()); !failed)
    spdlog::error("tasks: {}", failed.error().message);
  else if (*failed > 0)
    spdlog::warn("tasks: {} task(s) this server ran before it restarted are now failed", *failed);
  maintainer_ = std::thread([this] { maintain(); });
}

void TaskService::stop() {
  std::unique_lock lock(mutex_);
  if (stopping_ && !maintainer_.joinable()) return;
  stopping_ = true;
  for (auto& [id, run] : running_) run->cancelled = true;
  idle_.wait(lock, [this] { return running_.empty(); });
  lock.unlock();
  idle_.notify_all();
  if (maintainer_.joinable()) maintainer_.join();
}

void TaskService::maintain() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    idle_.wait_for(lock, kHeartbeat, [this] { return stopping_; });
    if (stopping_) break;
    std::vector<std::pair<std::string, std::shared_ptr<Running>>> running(running_.begin(), running_.end());
    lock.unlock();
    const std::int64_t now = now_ms();
    if (!running.empty())
      if (auto beat = store_->heartbeat(settings_.node_id, now); !beat) spdlog::error("tasks: {}", beat.error().message);
    // A cancel written by another server reaches the run here.
    for (auto& [id, run] : running) {
      auto record = store_->get(id, run->owner);
      if (record && (!*record || (*record)->cancel_requested || is_terminal((*record)->status))) run->cancelled = true;
    }
    if (auto failed = store_->fail_abandoned(now - kStaleAfterMs, now); failed && *failed > 0)
      spdlog::warn("tasks: {} task(s) whose server stopped answering are now failed", *failed);
    if (auto swept = store_->sweep_expired(now); swept && *swept > 0)
      spdlog::info("tasks: {} expired task(s) removed", *swept);
    lock.lock();
  }
}

namespace {

// Why a task failed, for the audit trail: its JSON-RPC error code only. The
// message can hold a name a plugin chose (an input request's key).
std::string failure_reason(const TaskRecord& task) {
  boost::system::error_code ec;
  const auto error = boost::json::parse(task.error, ec);
  if (!ec && error.is_object())
    if (const auto* code = error.get_object().if_contains("code"); code && code->is_int64())
      return fmt::format("error {}", code->get_int64());
  return "failed";
}

// A task's life for the audit trail. The id names it; its owner is who
// acted (a read names the reader instead). No argument or result text.
void audit_task(audit::Kind kind, const TaskRecord& task, std::string reason = {},
                const audit::Actor* reader = nullptr) {
  if (!audit::enabled()) return;
  audit::Event event;
  event.kind = kind;
  event.failed = kind == audit::Kind::task_failed;
  event.outcome = kind == audit::Kind::task_created     ? "created"
                  : kind == audit::Kind::task_cancelled ? "cancelled"
                  : kind == audit::Kind::task_failed    ? "failed"
                                                        : "read";
  if (reader) {
    event.actor = *reader;
  } else {
    event.actor.caller = task.owner;
    event.actor.protocol = task.protocol_version;
  }
  event.subject = task.id;
  event.reason = std::move(reason);
  event.detail["tool"] = task.tool;
  event.detail["arguments_sha256"] = arguments_digest(task.arguments);
  audit::record(std::move(event));
}

}  // namespace

Result<TaskRecord> TaskService::create(TaskOrigin origin) {
  TaskRecord record;
  record.id = new_task_id();
  record.owner = std::move(origin.owner);
  record.tool = origin.route->tool->name;
  record.arguments = std::move(origin.arguments);
  record.protocol_version = std::move(origin.protocol_version);
  record.meta = std::move(origin.meta);
  record.status = TaskStatus::working;
  record.answers = to_json(origin.answers);
  record.created_ms = record.updated_ms = record.heartbeat_ms = now_ms();
  record.ttl_ms = origin.ttl_ms.value_or(settings_.ttl_ms);
  record.poll_interval_ms = settings_.poll_interval_ms;
  record.runner = settings_.node_id;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return Error{"tasks: the server is shutting down"};
  }
  // Durable before the client hears of it: a tasks/get right after the
  // create finds it, on any server.
  if (auto created = store_->create(record); !created) return created.error();
  record.version = 1;
  audit_task(audit::Kind::task_created, record);
  schedule(record, std::move(origin.client_capabilities));
  return record;
}

void TaskService::schedule(TaskRecord record, boost::json::object client_capabilities) {
  auto run = std::make_shared<Running>();
  run->owner = record.owner;
  {
    std::lock_guard lock(mutex_);
    running_[record.id] = run;
  }
  std::function<void()> job = [this, record, caps = std::move(client_capabilities)] {
    execute(record, caps);
    std::lock_guard lock(mutex_);
    running_.erase(record.id);
    if (running_.empty()) idle_.notify_all();
  };
  if (!executor_.try_submit(job)) {
    settle(record, [](TaskRecord& r) {
      r.status = TaskStatus::failed;
      r.error = R"({"code":-32000,"message":"server busy: too many calls queued to run the task"})";
      r.status_message = "server busy";
    });
    std::lock_guard lock(mutex_);
    running_.erase(record.id);
    if (running_.empty()) idle_.notify_all();
  }
}

void TaskService::settle(const TaskRecord& started, const std::function<void(TaskRecord&)>& change) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    auto current = store_->get(started.id, started.owner);
    if (!current) {
      spdlog::error("tasks: task {}: cannot record its outcome: {}", started.id.substr(0, 8), current.error().message);
      return;
    }
    if (!*current || is_terminal((*current)->status)) return;  // cancelled (or expired) meanwhile
    TaskRecord next = **current;
    change(next);
    next.updated_ms = now_ms();
    auto written = store_->update(next);
    if (!written) {
      spdlog::error("tasks: task {}: cannot record its outcome: {}", started.id.substr(0, 8), written.error().message);
      return;
    }
    if (*written) {
      if (next.status == TaskStatus::failed) audit_task(audit::Kind::task_failed, next, failure_reason(next));
      if (next.status == TaskStatus::cancelled) audit_task(audit::Kind::task_cancelled, next, "cancelled while running");
      return;
    }
  }
  spdlog::error("tasks: task {}: its record kept changing; outcome not recorded", started.id.substr(0, 8));
}

void TaskService::execute(const TaskRecord& started, const boost::json::object& client_capabilities) {
  std::shared_ptr<Running> run;
  {
    std::lock_guard lock(mutex_);
    run = running_[started.id];
  }
  const ToolRoute* route = routes_.find(started.tool);
  if (!route) {
    return settle(started, [](TaskRecord& r) {
      r.status = TaskStatus::failed;
      r.error = R"({"code":-32603,"message":"internal error: this server does not serve the task's tool"})";
      r.runner.clear();
    });
  }
  RoundState carried;
  carried.answers = parse_object_or_empty(started.answers);
  InputRound round(client_capabilities, std::move(carried), nullptr);
  TaskLink link(round, to_json(client_capabilities), started.meta);

  ToolCallOutcome outcome = runner_.run(*route, started.arguments, run->cancelled, &link);

  if (run->cancelled.load()) {
    bool stopping = false;
    {
      std::lock_guard lock(mutex_);
      stopping = stopping_;
    }
    return settle(started, [stopping](TaskRecord& r) {
      r.runner.clear();
      if (stopping) {
        // The same words as for a task whose server died (fail_runner,
        // fail_abandoned): a client cannot tell the two apart, nor need to.
        r.status = TaskStatus::failed;
        r.error = kAbandonedTaskError;
        r.status_message = kAbandonedTaskMessage;
      } else {
        r.status = TaskStatus::cancelled;
      }
    });
  }
  if (auto key = round.malformed_key()) {
    return settle(started, [&](TaskRecord& r) {
      r.status = TaskStatus::failed;
      r.error = to_json(boost::json::object{
          {"code", -32602},
          {"message", fmt::format("invalid params: the answer to '{}' does not fit the question asked", *key)},
          {"data", boost::json::object{{"key", *key}}}});
      r.runner.clear();
    });
  }
  if (round.input_required()) {
    RoundState next = round.next_state();
    return settle(started, [&](TaskRecord& r) {
      r.status = TaskStatus::input_required;
      r.input_requests = to_json(round.input_requests());
      r.pending = to_json(next.pending);
      r.answers = to_json(next.answers);
      r.runner.clear();
    });
  }
  if (outcome.status != AIRLOCK_STATUS_OK && outcome.status != AIRLOCK_STATUS_TOOL_ERROR) {
    spdlog::error("tool '{}': on_call returned status {} in task {}", route->tool->name, outcome.status,
                  started.id.substr(0, 8));
    return settle(started, [](TaskRecord& r) {
      r.status = TaskStatus::failed;
      r.error = R"({"code":-32603,"message":"internal error: the tool failed"})";
      r.runner.clear();
    });
  }
  // Kept as the tool left it: no sanitizer has run, and none ever writes here.
  StoredToolResult stored = store_tool_result(*route, std::move(outcome));
  boost::json::object kept{{"egress", std::move(stored.egress)}};
  if (stored.result) kept["result"] = std::move(*stored.result);
  std::string result = to_json(kept);
  settle(started, [&](TaskRecord& r) {
    r.status = TaskStatus::completed;
    r.result = std::move(result);
    r.input_requests = "{}";
    r.pending = "{}";
    r.runner.clear();
  });
}

Result<std::optional<TaskRecord>> TaskService::get(std::string_view id, std::string_view owner) {
  return store_->get(id, owner);
}

Result<std::vector<TaskRecord>> TaskService::list(std::string_view owner, std::optional<std::string_view> after,
                                                  std::size_t limit) {
  return store_->list(owner, after, limit);
}

Result<std::optional<TaskRecord>> TaskService::answer(std::string_view id, std::string_view owner,
                                                      const boost::json::object& responses) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    auto current = store_->get(id, owner);
    if (!current || !*current) return current;
    TaskRecord next = **current;
    if (next.status != TaskStatus::input_required) return current;  // nothing is waiting: ignored
    auto pending = parse_object_or_empty(next.pending);
    auto requests = parse_object_or_empty(next.input_requests);
    auto answers = parse_object_or_empty(next.answers);
    for (const auto& [key, value] : responses) {
      const auto* method = pending.if_contains(key);
      if (!method) continue;  // not a question this task is waiting on
      answers[key] = boost::json::object{{"method", *method}, {"result", value}};
      pending.erase(key);
      requests.erase(key);
    }
    next.pending = to_json(pending);
    next.input_requests = to_json(requests);
    next.answers = to_json(answers);
    next.updated_ms = now_ms();
    const bool resume = pending.empty();
    if (resume) {
      next.status = TaskStatus::working;
      next.runner = settings_.node_id;
      next.heartbeat_ms = next.updated_ms;
    }
    auto written = store_->update(next);
    if (!written) return written.error();
    if (!*written) continue;
    ++next.version;
    if (resume) schedule(next, capabilities_of(next.meta));
    return std::optional<TaskRecord>(std::move(next));
  }
  return Error{fmt::format("tasks: task {}: its record kept changing", std::string(id).substr(0, 8))};
}

Result<std::optional<TaskRecord>> TaskService::cancel(std::string_view id, std::string_view owner) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    auto current = store_->get(id, owner);
    if (!current || !*current) return current;
    if (is_terminal((*current)->status)) return current;
    TaskRecord next = **current;
    next.status = TaskStatus::cancelled;
    next.cancel_requested = true;
    next.status_message = "cancelled by the client";
    next.updated_ms = now_ms();
    auto written = store_->update(next);
    if (!written) return written.error();
    if (!*written) continue;
    ++next.version;
    {
      std::lock_guard lock(mutex_);
      if (auto it = running_.find(next.id); it != running_.end()) it->second->cancelled = true;
    }
    audit_task(audit::Kind::task_cancelled, next, "cancelled by the client");
    return std::optional<TaskRecord>(std::move(next));
  }
  return Error{fmt::format("tasks: task {}: its record kept changing", std::string(id).substr(0, 8))};
}

std::string TaskService::read_result(const TaskRecord& task, const RequestContext& reader) const {
  const ToolRoute* route = routes_.find(task.tool);
  auto kept = parse_object_or_empty(task.result);
  StoredToolResult stored;
  if (auto* result = kept.if_contains("result"); result && result->is_object()) stored.result = result->get_object();
  if (auto* egress = kept.if_contains("egress"); egress && egress->is_array()) stored.egress = egress->get_array();
  if (!route) {
    // The tool (and so its chain) is not served here: nothing unsanitized leaves.
    spdlog::error("tasks: task {}: tool '{}' is not served by this server; its result is withheld",
                  task.id.substr(0, 8), task.tool);
    return to_json(boost::json::object{
        {"content", boost::json::array{boost::json::object{{"type", "text"}, {"text", kWithheldText}}}},
        {"isError", true}});
  }
  std::string out;
  const PipelineVerdict verdict = run_stored_result_pipeline(*route, stored, reader, task.arguments, out);
  if (audit::enabled()) {
    const audit::Actor actor = audit_actor(reader);
    audit_task(audit::Kind::task_read, task, std::string(verdict.withheld), &actor);
  }
  return out;
}

}  // namespace airlock::host
