#include "isolation/worker/hook_runner.hpp"

#include "plugins/abi_values.hpp"
#include "util/utf8.hpp"

#include <exception>
#include <thread>

namespace airlock::isolation {
namespace {

using host::borrow;
using host::valid_utf8;

// The request context a result sanitizer, a read, a get or a completion
// gets, as the server encoded it; borrows from the frame's body.
airlock_request_context read_context(WireReader& in) {
  airlock_request_context c{};
  c.struct_size = sizeof c;
  c.protocol_version = borrow(in.str());
  c.session_id = borrow(in.str());
  c.caller = borrow(in.str());
  c.request_id = borrow(in.str());
  c.client_capabilities = borrow(in.str());
  return c;
}

// An entry the server named by index, or nothing: a worker restarted with
// fewer registrations than the server remembers answers NOT_FOUND.
template <class Hooks>
const Hooks* entry(std::mutex& mutex, const std::deque<Hooks>& list, std::uint32_t index) {
  std::lock_guard lock(mutex);
  return index < list.size() ? &list[index] : nullptr;
}

}  // namespace

HookRunner::HookRunner(WorkerChannel& channel, WorkerPlugin& plugin) : channel_(channel), plugin_(plugin) {
  // Never joined: the worker ends with _exit, whatever its threads do.
  for (std::size_t i = 0; i < channel.lanes(); ++i) std::thread([this, &lane = channel.lane(i)] { serve(lane); }).detach();
}

void HookRunner::serve(LaneChannel& lane) {
  for (;;) run(lane, lane.next_hook());
}

void HookRunner::cancel(std::uint64_t id) {
  std::lock_guard lock(calls_mutex_);
  if (auto it = calls_.find(id); it != calls_.end()) it->second->cancelled.store(true);
}

void HookRunner::run(LaneChannel& lane, const Frame& frame) {
  WireReader in(frame.body);
  WireWriter out;
  // The hook's host calls go on its lane until it returns; after, on the
  // control socket, where the server answers them as given up on.
  channel_.enter(frame.id, lane);
  try {
    switch (frame.kind) {
      case Kind::call_tool: call_tool(frame.id, in, out); break;
      case Kind::sanitize_text: sanitize_text(in, out); break;
      case Kind::sanitize_result: sanitize_result(in, out); break;
      case Kind::read_resource: read_resource(frame.id, in, out); break;
      case Kind::get_prompt: get_prompt(frame.id, in, out); break;
      case Kind::complete: complete(frame.id, in, out); break;
      default: out.i32(AIRLOCK_STATUS_INTERNAL);  // the server sends no other kind on a lane
    }
  } catch (const std::exception&) {
    out = WireWriter{};
    out.i32(AIRLOCK_STATUS_INTERNAL);
  }
  channel_.leave(frame.id);
  lane.send(Kind::done, frame.id, out.body());
}

void HookRunner::call_tool(std::uint64_t id, WireReader& in, WireWriter& out) {
  const std::uint32_t index = in.u32();
  const std::string_view arguments = in.str();
  airlock_call call;
  call.id = id;
  call.capabilities = in.str();
  call.meta = in.str();
  const ToolHooks* tool = entry(plugin_.mutex, plugin_.tools, index);
  if (!in.ok() || !tool || !tool->on_call) {
    out.i32(AIRLOCK_STATUS_INTERNAL);
    return;
  }
  {
    std::lock_guard lock(calls_mutex_);
    calls_.emplace(id, &call);
  }
  const airlock_status status = tool->on_call(tool->data, &call, borrow(arguments));
  {
    std::lock_guard lock(calls_mutex_);
    calls_.erase(id);
  }
  out.i32(status).u32(call.deferred_count);
  out.raw(call.deferred.body());
}

// A run of text steps over many strings: one frame each way for the whole
// run, however many steps and strings. Each string goes through the steps
// in order, as the server's run_text_steps does; the first failure ends the
// run (the server withholds the result on it).
void HookRunner::sanitize_text(WireReader& in, WireWriter& out) {
  std::vector<const SanitizerHooks*> steps(in.u32());
  for (auto& step : steps) {
    step = entry(plugin_.mutex, plugin_.sanitizers, in.u32());
    if (!step || !step->on_text) {
      out.i32(AIRLOCK_STATUS_INTERNAL);
      return;
    }
  }
  const std::uint32_t count = in.u32();
  if (!in.ok()) {
    out.i32(AIRLOCK_STATUS_INTERNAL);
    return;
  }
  out.i32(AIRLOCK_STATUS_OK);
  airlock_text_writer writers[2];
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::string_view text = in.str();
    if (!in.ok()) return;  // the server reads a short answer as a failure
    std::string_view current = text;
    int written = -1;  // which writer holds `current`, -1 while it is the input
    for (std::uint32_t s = 0; s < steps.size(); ++s) {
      airlock_text_writer& w = writers[written == 0 ? 1 : 0];
      w.out.clear();
      w.written = false;
      const airlock_status status = steps[s]->on_text(steps[s]->data, borrow(current), &w);
      if (status == AIRLOCK_STATUS_UNCHANGED && !w.written) continue;
      if (status != AIRLOCK_STATUS_OK) {
        const std::uint8_t outcome = status == AIRLOCK_STATUS_UNCHANGED ? kTextWroteUnchanged : kTextFailed;
        out.u8(outcome).u32(s).i32(status).str(w.written ? std::string_view(w.out) : std::string_view());
        return;
      }
      // Checked here, step by step, so the server can name the step.
      if (!valid_utf8(w.out) && valid_utf8(current)) {
        out.u8(kTextBrokeUtf8).u32(s).i32(AIRLOCK_STATUS_OK).str(w.out);
        return;
      }
      written = written == 0 ? 1 : 0;
      current = writers[written].out;
    }
    if (written < 0)
      out.u8(kTextUnchanged).u32(0).i32(AIRLOCK_STATUS_UNCHANGED).str({});
    else
      out.u8(kTextChanged).u32(0).i32(AIRLOCK_STATUS_OK).str(current);
  }
}

void HookRunner::sanitize_result(WireReader& in, WireWriter& out) {
  const std::uint32_t index = in.u32();
  const airlock_request_context context = read_context(in);
  const std::string_view tool = in.str();
  const std::string_view arguments = in.str();
  const std::string_view result = in.str();
  const SanitizerHooks* s = entry(plugin_.mutex, plugin_.sanitizers, index);
  if (!in.ok() || !s || !s->on_result) {
    out.i32(AIRLOCK_STATUS_INTERNAL);
    return;
  }
  airlock_result_writer writer;
  const airlock_status status =
      s->on_result(s->data, &context, borrow(tool), borrow(arguments), borrow(result), &writer);
  out.i32(status).u8(writer.written).str(writer.json);
}

void HookRunner::read_resource(std::uint64_t id, WireReader& in, WireWriter& out) {
  const bool from_template = in.u32() == 1;
  const std::uint32_t index = in.u32();
  const airlock_request_context context = read_context(in);
  const std::string_view uri = in.str();
  const std::string_view variables = in.str();
  const ContentHooks* c = entry(plugin_.mutex, from_template ? plugin_.templates : plugin_.resources, index);
  if (!in.ok() || !c || !c->on_read) {
    out.i32(AIRLOCK_STATUS_NOT_FOUND);
    return;
  }
  airlock_resource_writer writer;
  writer.id = id;
  out.i32(c->on_read(c->data, &context, borrow(uri), borrow(variables), &writer));
}

void HookRunner::get_prompt(std::uint64_t id, WireReader& in, WireWriter& out) {
  const std::uint32_t index = in.u32();
  const airlock_request_context context = read_context(in);
  const std::string_view name = in.str();
  const std::string_view arguments = in.str();
  const ContentHooks* c = entry(plugin_.mutex, plugin_.prompts, index);
  if (!in.ok() || !c || !c->on_get) {
    out.i32(AIRLOCK_STATUS_NOT_FOUND);
    return;
  }
  airlock_prompt_writer writer;
  writer.id = id;
  out.i32(c->on_get(c->data, &context, borrow(name), borrow(arguments), &writer));
}

void HookRunner::complete(std::uint64_t id, WireReader& in, WireWriter& out) {
  const bool from_template = in.u32() == 1;
  const std::uint32_t index = in.u32();
  const airlock_request_context context = read_context(in);
  const std::string_view argument = in.str();
  const std::string_view value = in.str();
  const std::string_view arguments = in.str();
  const ContentHooks* c = entry(plugin_.mutex, from_template ? plugin_.templates : plugin_.prompts, index);
  if (!in.ok() || !c || !c->on_complete) {
    out.i32(AIRLOCK_STATUS_NOT_FOUND);
    return;
  }
  airlock_completion_writer writer;
  writer.id = id;
  out.i32(c->on_complete(c->data, &context, borrow(argument), borrow(value), borrow(arguments), &writer));
}

}  // namespace airlock::isolation
