// The stages, in order, each a function below:
//
//   1. sanitize       the text sanitizers of the chain, over every text a
//                     model may read: a resource's text contents; a
//                     prompt's description, its messages' text, embedded
//                     resources' text and resource links' name, title and
//                     description. URIs, MIME types, base64 and _meta are
//                     not text for the model, as for tool results.
//   2. check_utf8     every string still valid UTF-8
//   3. fit_budget     serialized, within server.max_result_bytes, or withheld
//                     whole (a cut resource would read as the real thing)
//
// Result sanitizers take tool results (CallToolResult) only, so a chain's
// result steps are not run here; content_routes.cpp refuses to bind content
// to a chain that has one, and warns when "default" does.
#include "pipeline/content_pipeline.hpp"

#include "metrics/metrics.hpp"
#include "util/json_text.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <vector>

namespace airlock::host {
namespace {

// Every string of `result` the model may read, in document order.
std::vector<boost::json::string*> model_texts(ContentKind kind, boost::json::object& result) {
  std::vector<boost::json::string*> texts;
  auto take = [&](boost::json::object& o, const char* field) {
    if (auto* v = o.if_contains(field); v && v->is_string()) texts.push_back(&v->get_string());
  };
  if (kind == ContentKind::resource) {
    if (auto* contents = result.if_contains("contents"); contents && contents->is_array())
      for (auto& c : contents->get_array())
        if (auto* o = c.if_object()) take(*o, "text");
    return texts;
  }
  take(result, "description");
  if (auto* messages = result.if_contains("messages"); messages && messages->is_array()) {
    for (auto& m : messages->get_array()) {
      auto* message = m.if_object();
      auto* content = message ? message->if_contains("content") : nullptr;
      auto* block = content ? content->if_object() : nullptr;
      if (!block) continue;
      for (const char* field : {"text", "name", "title", "description"}) take(*block, field);
      if (auto* resource = block->if_contains("resource"); resource && resource->is_object())
        take(resource->get_object(), "text");
    }
  }
  return texts;
}

std::vector<const Sanitizer*> text_steps(const SanitizerChain& chain) {
  std::vector<const Sanitizer*> steps;
  for (const Sanitizer* step : chain.steps())
    if (step->kind == SanitizerKind::text) steps.push_back(step);
  return steps;
}

std::string_view noun(ContentKind kind) { return kind == ContentKind::resource ? "resource" : "prompt"; }

// Stage 1. One walk for all the text steps, as for tool results; the walk
// as a whole gets each step's time.
bool sanitize(ContentKind kind, std::string_view subject, const ContentRoute& route, boost::json::object& result,
              const RequestContext& context) {
  if (!route.chain) return true;
  const std::vector<const Sanitizer*> steps = text_steps(*route.chain);
  if (steps.empty()) return true;
  const auto start = std::chrono::steady_clock::now();
  if (auto failure = run_text_steps_on(steps, model_texts(kind, result))) {
    spdlog::error("{} '{}': sanitizer '{}' (chain '{}') {}; {} withheld", noun(kind), subject, failure->sanitizer,
                  route.chain->name(), failure->reason, noun(kind));
    if (context.metrics) context.metrics->sanitizer_failure(failure->sanitizer);
    return false;
  }
  const auto limit = route.sanitizer_timeout * static_cast<long>(steps.size());
  if (const auto elapsed = std::chrono::steady_clock::now() - start; elapsed > limit) {
    spdlog::error("{} '{}': chain '{}' took {} ms, over its {} ms deadline; {} withheld", noun(kind), subject,
                  route.chain->name(), std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(),
                  std::chrono::duration_cast<std::chrono::milliseconds>(limit).count(), noun(kind));
    return false;
  }
  return true;
}

// Stage 2. JSON text must be UTF-8: what a plugin or a step wrote otherwise
// cannot be handed to a client as it is.
bool check_utf8(const boost::json::object& root) {
  std::vector<const boost::json::value*> stack;
  for (const auto& kv : root) {
    if (!valid_utf8(kv.key())) return false;
    stack.push_back(&kv.value());
  }
  while (!stack.empty()) {
    const auto* v = stack.back();
    stack.pop_back();
    if (const auto* s = v->if_string()) {
      if (!valid_utf8(*s)) return false;
    } else if (const auto* a = v->if_array()) {
      for (const auto& e : *a) stack.push_back(&e);
    } else if (const auto* o = v->if_object()) {
      for (const auto& kv : *o) {
        if (!valid_utf8(kv.key())) return false;
        stack.push_back(&kv.value());
      }
    }
  }
  return true;
}

}  // namespace

std::optional<std::string_view> run_content_pipeline(ContentKind kind, std::string_view subject,
                                                     const ContentRoute& route, boost::json::object& result,
                                                     const RequestContext& context, std::string& out) {
  const std::string_view withheld = kind == ContentKind::resource ? kResourceWithheldText : kPromptWithheldText;
  if (!sanitize(kind, subject, route, result, context)) return withheld;
  if (!check_utf8(result)) {
    spdlog::error("{} '{}': holds text that is not valid UTF-8; {} withheld", noun(kind), subject, noun(kind));
    return withheld;
  }
  // Stage 3.
  const std::size_t start = out.size();
  append_json(out, result);
  if (out.size() - start <= route.max_result_bytes) return std::nullopt;
  out.resize(start);
  spdlog::error("{} '{}': does not fit its {}-byte budget; {} withheld", noun(kind), subject, route.max_result_bytes,
                noun(kind));
  return kind == ContentKind::resource ? kResourceOverBudgetText : kPromptOverBudgetText;
}

}  // namespace airlock::host
