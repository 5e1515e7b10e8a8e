// Running a sanitizer chain. Text sanitizers see every string a client will
// show the model: each content block's text (and an embedded resource's
// text), a resource link's name, title and description, and every string
// inside structuredContent, its objects' keys included (the mirror and the
// client show keys to the model as much as values). Types, MIME types, URIs,
// base64 data and _meta are not text for the model and are left to result
// sanitizers.
#include "pipeline/sanitizer_chain.hpp"

#include "isolation/isolated_plugin.hpp"
#include "pipeline/tool_result_shape.hpp"
#include "plugins/host_api.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include "util/utf8.hpp"

#include <span>
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

// The keys of structuredContent's objects as strings a text step can
// rewrite: a boost::json::object's keys cannot change in place, so they are
// copied out, sanitized with the values, and an object whose keys changed is
// rebuilt in its place.
class ObjectKeys {
 public:
  // Each object, a parent before anything inside it.
  void add(boost::json::object& object) {
    if (object.empty()) return;
    objects_.push_back({&object, keys_.size()});
    for (const auto& kv : object) keys_.emplace_back(kv.key());
  }
  void append_leaves(std::vector<boost::json::string*>& leaves) {
    for (auto& key : keys_) leaves.push_back(&key);
  }
  bool empty() const { return keys_.empty(); }

  // Puts the sanitized keys in place. Two keys of one object rewritten to
  // one would drop a value without a trace (or keep one the model never saw
  // named), so that withholds the result, blamed on `steps`.
  std::optional<ChainFailure> write_back(std::string_view steps) {
    // Innermost first: rebuilding an object moves the values inside it, so
    // nothing inside may be rebuilt after it.
    for (auto it = objects_.rbegin(); it != objects_.rend(); ++it) {
      boost::json::object& object = *it->object;
      const auto changed = [&] {
        std::size_t i = it->first;
        for (const auto& kv : object)
          if (kv.key() != keys_[i++]) return true;
        return false;
      };
      if (!changed()) continue;
      boost::json::object rebuilt(object.size(), object.storage());
      std::size_t i = it->first;
      for (auto& kv : object)
        if (!rebuilt.emplace(keys_[i++], std::move(kv.value())).second)
          return ChainFailure{std::string(steps), "rewrote two keys of one object in structuredContent to the same key"};
      object = std::move(rebuilt);
    }
    return std::nullopt;
  }

 private:
  struct Entry {
    boost::json::object* object;
    std::size_t first;  // its first key in keys_
  };
  std::vector<Entry> objects_;
  // Leaves point into it, so append_leaves comes after the last add.
  std::vector<boost::json::string> keys_;
};

// Visits every string of a JSON value, depth first, without recursion so a
// deeply nested result cannot exhaust the worker's stack; hands every object
// to `keys` on the way.
template <class Fn>
std::optional<ChainFailure> for_each_string(boost::json::value& root, ObjectKeys& keys, Fn&& fn) {
  std::vector<boost::json::value*> stack{&root};
  while (!stack.empty()) {
    boost::json::value* v = stack.back();
    stack.pop_back();
    if (auto* s = v->if_string()) {
      if (auto failure = fn(*s)) return failure;
    } else if (auto* a = v->if_array()) {
      for (auto it = a->rbegin(); it != a->rend(); ++it) stack.push_back(&*it);
    } else if (auto* o = v->if_object()) {
      keys.add(*o);
      for (auto it = o->rbegin(); it != o->rend(); ++it) stack.push_back(&it->value());
    }
  }
  return std::nullopt;
}

// Calls `apply` on every string value of a tool result a client shows the
// model, and collects structuredContent's keys into `keys`.
template <class Fn>
std::optional<ChainFailure> for_each_text(boost::json::object& result, ObjectKeys& keys, Fn&& apply) {
  if (auto* content = result.if_contains("content"); content && content->is_array()) {
    // One pass over each block's few members: five lookups by name cost
    // more than the block's text takes a step to scan.
    for (auto& block : content->get_array()) {
      auto* b = block.if_object();
      if (!b) continue;
      for (auto& member : *b) {
        const std::string_view key = member.key();
        boost::json::value& value = member.value();
        if (key == "text" || key == "name" || key == "title" || key == "description") {
          if (value.is_string())
            if (auto failure = apply(value.get_string())) return failure;
        } else if (key == "resource" && value.is_object()) {
          if (auto* text = value.get_object().if_contains("text"); text && text->is_string())
            if (auto failure = apply(text->get_string())) return failure;
        }
      }
    }
  }
  if (auto* structured = result.if_contains("structuredContent"))
    return for_each_string(*structured, keys, apply);
  return std::nullopt;
}

std::string joined_names(std::span<const Sanitizer* const> steps) {
  std::string names;
  for (const Sanitizer* s : steps) names += (names.empty() ? "" : "+") + s->name;
  return names;
}

// A step that turned valid UTF-8 into something else wrote bytes no client
// can be handed; text that was not UTF-8 before is the tool's doing, which
// the pipeline reports after the chain (a step may repair it).
bool broke_utf8(std::string_view in, std::string_view out) { return !valid_utf8(out) && valid_utf8(in); }
constexpr std::string_view kBrokeUtf8 = "wrote text that is not valid UTF-8";

const IsolatedPlugin::Entry* isolated_entry(const Sanitizer* step) {
  return IsolatedPlugin::text_step_entry(step->on_text, step->data);
}

// Steps [first, last) of one isolated plugin over every leaf, in one round
// trip to its worker.
std::optional<ChainFailure> run_isolated_steps(std::span<const Sanitizer* const> steps,
                                               const std::vector<boost::json::string*>& leaves) {
  std::vector<const IsolatedPlugin::Entry*> entries;
  for (const Sanitizer* step : steps) entries.push_back(isolated_entry(step));
  std::vector<std::string_view> texts;
  texts.reserve(leaves.size());
  for (const boost::json::string* leaf : leaves) texts.emplace_back(leaf->data(), leaf->size());
  std::vector<std::optional<std::string>> out;
  if (auto failure = entries.front()->plugin->sanitize_texts(entries, texts, out)) {
    const Sanitizer* step = steps[std::min(failure->step, steps.size() - 1)];
    if (failure->died) return ChainFailure{step->name, "stopped (its worker process ended)"};
    if (failure->wrote_unchanged) return ChainFailure{step->name, "wrote output and returned UNCHANGED"};
    if (failure->broke_utf8) return ChainFailure{step->name, std::string(kBrokeUtf8)};
    return ChainFailure{step->name, status_reason(failure->status)};
  }
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    if (!out[i]) continue;
    // The worker checks each step; this is for a worker that did not. It
    // can only say which plugin's run it was.
    if (broke_utf8(texts[i], *out[i])) return ChainFailure{joined_names(steps), std::string(kBrokeUtf8)};
    leaves[i]->assign(out[i]->data(), out[i]->size());
  }
  return std::nullopt;
}

std::optional<ChainFailure> run_text_segment(const std::vector<const Sanitizer*>& steps, bool isolated,
                                             boost::json::object& result) {
  ObjectKeys keys;
  std::vector<boost::json::string*> leaves;
  if (!isolated) {
    if (auto failure =
            for_each_text(result, keys, [&](boost::json::string& s) { return run_text_steps(steps, s); }))
      return failure;
  } else {
    for_each_text(result, keys, [&](boost::json::string& s) -> std::optional<ChainFailure> {
      leaves.push_back(&s);
      return std::nullopt;
    });
  }
  if (keys.empty()) return leaves.empty() ? std::nullopt : run_text_steps_on(steps, leaves);
  keys.append_leaves(leaves);
  if (auto failure = run_text_steps_on(steps, leaves)) return failure;
  return keys.write_back(joined_names(steps));
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
    if (broke_utf8(current, out)) return ChainFailure{step->name, std::string(kBrokeUtf8)};
    written = written == 0 ? 1 : 0;
    current = buffers[written];
  }
  if (written >= 0) leaf.assign(current.data(), current.size());
  return std::nullopt;
}

std::optional<ChainFailure> run_text_steps_on(const std::vector<const Sanitizer*>& steps,
                                              const std::vector<boost::json::string*>& leaves) {
  // Runs of in-process steps go leaf by leaf; a run of one isolated
  // plugin's steps goes to its worker once for every leaf together. Each
  // step is a pure function of one string, so applying a run to all leaves
  // before the next run starts gives what leaf-by-leaf order gives.
  std::size_t i = 0;
  while (i < steps.size()) {
    const IsolatedPlugin::Entry* first = isolated_entry(steps[i]);
    std::size_t j = i + 1;
    while (j < steps.size()) {
      const IsolatedPlugin::Entry* next = isolated_entry(steps[j]);
      if (first ? !next || next->plugin != first->plugin : next != nullptr) break;
      ++j;
    }
    const std::span<const Sanitizer* const> run(steps.data() + i, j - i);
    if (first) {
      if (!leaves.empty())
        if (auto failure = run_isolated_steps(run, leaves)) return failure;
    } else {
      const std::vector<const Sanitizer*> local(run.begin(), run.end());
      for (boost::json::string* leaf : leaves)
        if (auto failure = run_text_steps(local, *leaf)) return failure;
    }
    i = j;
  }
  return std::nullopt;
}

SanitizerChain::SanitizerChain(std::string name, std::vector<const Sanitizer*> steps)
    : name_(std::move(name)), steps_(std::move(steps)) {
  for (const Sanitizer* step : steps_) {
    if (step->kind == SanitizerKind::text && !segments_.empty() &&
        segments_.back().kind == SanitizerKind::text) {
      segments_.back().steps.push_back(step);
    } else {
      segments_.push_back(Segment{step->kind, {step}, false});
    }
    if (step->kind == SanitizerKind::text && isolated_entry(step)) segments_.back().isolated = true;
    if (step->kind == SanitizerKind::text) text_steps_.push_back(step);
  }
}

namespace {

// A step cannot be interrupted mid-call; what it can be is not trusted once
// it overran, so its output is withheld like any failure. The deadline of a
// run of steps is `step_timeout` per step.
std::optional<ChainFailure> overran(const std::vector<const Sanitizer*>& steps, std::chrono::nanoseconds step_timeout,
                                    std::chrono::steady_clock::time_point start) {
  const auto elapsed = std::chrono::steady_clock::now() - start;
  const auto limit = step_timeout * static_cast<long>(steps.size());
  if (elapsed <= limit) return std::nullopt;
  return ChainFailure{joined_names(steps),
                      fmt::format("took {} ms, over its {} ms deadline",
                                  std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(),
                                  std::chrono::duration_cast<std::chrono::milliseconds>(limit).count())};
}

}  // namespace

std::optional<ChainFailure> SanitizerChain::run(boost::json::object& result, const ChainCall& call) const {
  for (const auto& segment : segments_) {
    const auto start = std::chrono::steady_clock::now();
    auto failure = segment.kind == SanitizerKind::text ? run_text_segment(segment.steps, segment.isolated, result)
                                                       : run_result_step(*segment.steps.front(), result, call);
    if (failure) return failure;
    if (auto late = overran(segment.steps, call.step_timeout, start)) return late;
  }
  return std::nullopt;
}

std::optional<ChainFailure> SanitizerChain::run_text(const std::vector<boost::json::string*>& leaves,
                                                     std::chrono::nanoseconds step_timeout) const {
  if (text_steps_.empty()) return std::nullopt;
  const auto start = std::chrono::steady_clock::now();
  if (auto failure = run_text_steps_on(text_steps_, leaves)) return failure;
  return overran(text_steps_, step_timeout, start);
}

}  // namespace airlock::host
