// Running a sanitizer chain. Text sanitizers see every string a client will
// show the model: each content block's text (and an embedded resource's
// text), a resource link's name, title and description, and every string
// value inside structuredContent. Keys, types, MIME types, URIs, base64 data
// and _meta are not text for the model and are left to result sanitizers.
#include "pipeline/sanitizer_chain.hpp"

#include "pipeline/tool_result_shape.hpp"
#include "plugins/host_api.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <vector>

namespace airlock::host {
namespace {

std::string status_reason(airlock_status status) {
  switch (status) {
    case AIRLOCK_STATUS_INTERNAL: return "failed (internal error)";
    case AIRLOCK_STATUS_INVALID_ARGUMENT: return "failed (invalid argument)";
    case AIRLOCK_STATUS_UNSUPPORTED: return "failed (unsupported)";
    default: return fmt::format("failed (status {})", status);
  }
}

// Visits every string of a JSON value, depth first, without recursion so a
// deeply nested result cannot exhaust the worker's stack.
template <class Fn>
std::optional<ChainFailure> for_each_string(boost::json::value& root, Fn&& fn) {
  std::vector<boost::json::value*> stack{&root};
  while (!stack.empty()) {
    boost::json::value* v = stack.back();
    stack.pop_back();
    if (auto* s = v->if_string()) {
      if (auto failure = fn(*s)) return failure;
    } else if (auto* a = v->if_array()) {
      for (auto it = a->rbegin(); it != a->rend(); ++it) stack.push_back(&*it);
    } else if (auto* o = v->if_object()) {
      for (auto it = o->rbegin(); it != o->rend(); ++it) stack.push_back(&it->value());
    }
  }
  return std::nullopt;
}

std::optional<ChainFailure> run_text_segment(const std::vector<const Sanitizer*>& steps,
                                             boost::json::object& result) {
  auto apply = [&](boost::json::string& s) { return run_text_steps(steps, s); };
  if (auto* content = result.if_contains("content"); content && content->is_array()) {
    for (auto& block : content->get_array()) {
      auto* b = block.if_object();
      if (!b) continue;
      for (const char* field : {"text", "name", "title", "description"}) {
        if (auto* text = b->if_contains(field); text && text->is_string())
          if (auto failure = apply(text->get_string())) return failure;
      }
      if (auto* res = b->if_contains("resource"); res && res->is_object()) {
        if (auto* text = res->get_object().if_contains("text"); text && text->is_string())
          if (auto failure = apply(text->get_string())) return failure;
      }
    }
  }
  if (auto* structured = result.if_contains("structuredContent"))
    return for_each_string(*structured, apply);
  return std::nullopt;
}

std::optional<ChainFailure> run_result_step(const Sanitizer& step, boost::json::object& result,
                                            const ChainCall& call) {
  const std::string in = boost::json::serialize(result);
  const airlock_request_context context = call.context.raw();
  airlock_result_writer out;
  const airlock_status status = step.on_result(step.data, &context, borrow(call.tool_name),
                                               borrow(call.raw_arguments), borrow(in), &out);
  if (status == AIRLOCK_STATUS_UNCHANGED) {
    if (out.written) return ChainFailure{step.name, "wrote output and returned UNCHANGED"};
    return std::nullopt;
  }
  if (status != AIRLOCK_STATUS_OK) return ChainFailure{step.name, status_reason(status)};
  if (!out.written) return ChainFailure{step.name, "returned OK without writing a result"};

  boost::system::error_code ec;
  boost::json::parse_options options;
  options.max_depth = 128;
  boost::json::value v = boost::json::parse(out.json, ec, {}, options);
  if (ec) return ChainFailure{step.name, "wrote output that is not JSON"};
  if (!v.is_object()) return ChainFailure{step.name, "wrote JSON that is not an object"};
  if (auto shape = tool_result_shape_error(v.get_object()))
    return ChainFailure{step.name, "wrote a result that is not a tool result: " + *shape};
  result = std::move(v.get_object());
  return std::nullopt;
}

}  // namespace

std::optional<ChainFailure> run_text_steps(const std::vector<const Sanitizer*>& steps,
                                           boost::json::string& leaf) {
  // Two buffers per thread, swapped between steps, so a chain of N steps
  // allocates nothing once the buffers have grown to the largest leaf.
  thread_local std::string buffers[2];
  std::string_view current(leaf.data(), leaf.size());
  int written = -1;  // which buffer holds `current`, -1 while it is the leaf
  for (const Sanitizer* step : steps) {
    std::string& out = buffers[written == 0 ? 1 : 0];
    out.clear();
    airlock_text_writer writer{&out, false};
    const airlock_status status = step->on_text(step->data, borrow(current), &writer);
    if (status == AIRLOCK_STATUS_UNCHANGED) {
      if (writer.written) return ChainFailure{step->name, "wrote output and returned UNCHANGED"};
      continue;
    }
    if (status != AIRLOCK_STATUS_OK) return ChainFailure{step->name, status_reason(status)};
    written = written == 0 ? 1 : 0;
    current = buffers[written];
  }
  if (written >= 0) leaf.assign(current.data(), current.size());
  return std::nullopt;
}

SanitizerChain::SanitizerChain(std::string name, std::vector<const Sanitizer*> steps)
    : name_(std::move(name)), steps_(std::move(steps)) {
  for (const Sanitizer* step : steps_) {
    if (step->kind == SanitizerKind::text && !segments_.empty() &&
        segments_.back().kind == SanitizerKind::text) {
      segments_.back().steps.push_back(step);
    } else {
      segments_.push_back(Segment{step->kind, {step}});
    }
  }
}

std::optional<ChainFailure> SanitizerChain::run(boost::json::object& result, const ChainCall& call) const {
  using Clock = std::chrono::steady_clock;
  for (const auto& segment : segments_) {
    const auto start = Clock::now();
    auto failure = segment.kind == SanitizerKind::text ? run_text_segment(segment.steps, result)
                                                       : run_result_step(*segment.steps.front(), result, call);
    if (failure) return failure;
    // A step cannot be interrupted mid-call; what it can be is not trusted
    // once it overran, so its output is withheld like any failure.
    const auto elapsed = Clock::now() - start;
    if (elapsed > call.step_timeout * static_cast<long>(segment.steps.size())) {
      std::string names;
      for (const Sanitizer* s : segment.steps) names += (names.empty() ? "" : "+") + s->name;
      return ChainFailure{names, fmt::format("took {} ms, over its {} ms deadline",
                                             std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(),
                                             std::chrono::duration_cast<std::chrono::milliseconds>(
                                                 call.step_timeout * static_cast<long>(segment.steps.size()))
                                                 .count())};
    }
  }
  return std::nullopt;
}

}  // namespace airlock::host
