// The result pipeline. Every answer a plugin's code produces passes these
// stages, in this order, each one function below; each takes the payload's
// kind: a tool result, a resource read or a prompt get.
//
//   1. check_payload     a tool result: what the tool left is one, or an
//                        error result the host writes; nothing else goes
//                        on. A resource or prompt arrives as the object its
//                        plugin built through the host's writers (ABI 1.3).
//   2. sanitize          the chain: for a tool result every string (keys
//                        included) through every step; for a resource or
//                        prompt the text steps over the strings a model
//                        reads. Any failure, a step over its deadline, or
//                        output that is not valid UTF-8 withholds the whole
//                        answer
//   3. validate_output   a tool result's structuredContent against the
//                        outputSchema, after the chain, so a sanitizer that
//                        breaks it is caught
//   4. mirror            a tool result's structuredContent -> a text block,
//                        when asked
//   5. envelope          a tool result's untrusted text framed, isError
//                        settled, the egress provenance and the 2026-07-28
//                        fields written (after the chain, so no sanitizer
//                        and no tool can forge or drop them)
//   6. fit_budget        a tool result's text cut to the byte budget, or
//                        withheld; a resource or prompt fits whole or is
//                        withheld (a cut one would read as the real thing)
//   7. frame             the JSON-RPC response to the request: its prefix
//                        is written before stage 6 serializes the result
//                        into it, so the result is never copied
//
// Host-written errors (tool failures, invalid arguments, timeouts) enter at
// stage 1 and pass the chain like any tool output, so a sanitizer sees
// every result a client will see. A withheld tool result is replaced by
// fixed text; a withheld resource or prompt becomes a JSON-RPC error with
// fixed text. The operator's log names the tool, URI or prompt, the stage
// and the reason, never the data.
//
// Result sanitizers take tool results (CallToolResult) only, so a chain's
// result steps are not run over a resource or prompt; content_routes.cpp
// refuses to bind content to a chain that has one, and warns when
// "default" does.
#include "pipeline/result_pipeline.hpp"

#include "metrics/metrics.hpp"
#include "audit/audit_trail.hpp"
#include "mcp/jsonrpc.hpp"
#include "schema/schema_validator.hpp"
#include "pipeline/tool_result_shape.hpp"
#include "plugins/host_api.hpp"
#include "util/json_canonical.hpp"
#include "util/json_text.hpp"
#include "util/sha256.hpp"
#include "util/utf8.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace airlock::host {
namespace {

// What a response's buffer starts with: a small tool's whole answer.
constexpr std::size_t kSmallResponseBytes = 512;

boost::json::object error_result(std::string_view text) {
  return boost::json::object{
      {"content", boost::json::array{boost::json::object{{"type", "text"}, {"text", text}}}}, {"isError", true}};
}

bool is_error(const boost::json::object& result) {
  const auto* e = result.if_contains("isError");
  return e && e->is_bool() && e->get_bool();
}

// Resolves an RFC 6901 pointer inside `root`; null when it names nothing.
const boost::json::value* find_pointer(const boost::json::value& root, std::string_view pointer) {
  boost::system::error_code ec;
  return root.find_pointer(pointer, ec);
}

// What the stages know of what they carry.
struct Payload {
  enum class Kind { tool_result, resource, prompt };
  Kind kind;
  std::string_view subject;  // the tool's name, the URI, the prompt's name
  const SanitizerChain* chain;  // null: none
  std::chrono::nanoseconds step_timeout;
  std::size_t max_result_bytes;
  const ToolRoute* route;  // a tool result's; null for content

  bool tool() const { return kind == Kind::tool_result; }
  std::string_view noun() const {
    return kind == Kind::tool_result ? "tool" : kind == Kind::resource ? "resource" : "prompt";
  }
  // What the operator's log says was withheld.
  std::string_view what() const { return tool() ? "result" : noun(); }
};

Payload tool_payload(const ToolRoute& route) {
  return Payload{Payload::Kind::tool_result, route.tool->name,    route.chain,
                 route.sanitizer_timeout,    route.max_result_bytes, &route};
}

Payload content_payload(const ContentPayload& content) {
  return Payload{content.kind == ContentKind::resource ? Payload::Kind::resource : Payload::Kind::prompt,
                 content.subject,
                 content.route.chain,
                 content.route.sanitizer_timeout,
                 content.route.max_result_bytes,
                 nullptr};
}

// Every string of a resource or prompt the model may read, in document
// order: a resource's text contents; a prompt's description, its messages'
// text, embedded resources' text and resource links' name, title and
// description. URIs, MIME types, base64 and _meta are not text for the
// model, as for tool results.
std::vector<boost::json::string*> model_texts(Payload::Kind kind, boost::json::object& result) {
  std::vector<boost::json::string*> texts;
  auto take = [&](boost::json::object& o, const char* field) {
    if (auto* v = o.if_contains(field); v && v->is_string()) texts.push_back(&v->get_string());
  };
  if (kind == Payload::Kind::resource) {
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

// Stage 1. A tool that returned OK must have set a result of the right
// shape; a tool error becomes an isError result with the tool's message
// (tool output, so it is sanitized next); anything else is the host's own
// fixed text.
std::optional<boost::json::object> check_payload(const Tool& tool, ToolCallOutcome& outcome) {
  auto& out = outcome.output;
  switch (outcome.status) {
    case AIRLOCK_STATUS_OK: break;
    case AIRLOCK_STATUS_TOOL_ERROR:
      return error_result(out.error_message ? std::string_view(*out.error_message) : "the tool failed");
    default:
      spdlog::error("tool '{}': on_call returned status {}", tool.name, outcome.status);
      return error_result("the tool failed with an internal error");
  }
  if (out.error_message) return error_result(*out.error_message);

  boost::json::object result;
  if (out.whole) {
    if (!out.content.empty() || out.structured) {
      spdlog::error("tool '{}': set a whole result and parts of one; result withheld", tool.name);
      return std::nullopt;
    }
    result = std::move(*out.whole);
  } else if (!out.content.empty() || out.structured) {
    result.emplace("content", std::move(out.content));
    if (out.structured) result.emplace("structuredContent", std::move(*out.structured));
  } else {
    spdlog::error("tool '{}': returned OK without setting a result; result withheld", tool.name);
    return std::nullopt;
  }
  if (auto shape = tool_result_shape_error(result)) {
    spdlog::error("tool '{}': returned a malformed result ({}); result withheld", tool.name, *shape);
    return std::nullopt;
  }

  // Untrusted structured fields are listed in _meta, where the chain (and
  // then the client) sees them; the pointer must name a string.
  if (!out.untrusted_fields.empty()) {
    const auto* structured = result.if_contains("structuredContent");
    boost::json::array labels;
    for (const auto& field : out.untrusted_fields) {
      const auto* target = structured ? find_pointer(*structured, field.pointer) : nullptr;
      if (!target || !target->is_string()) {
        spdlog::error("tool '{}': marked untrusted a pointer that names no string of structuredContent; "
                      "result withheld",
                      tool.name);
        return std::nullopt;
      }
      labels.push_back(boost::json::object{{"pointer", field.pointer}, {"source", field.source}});
    }
    auto& meta = result["_meta"];
    if (!meta.is_object()) meta = boost::json::object{};
    meta.get_object()[kUntrustedMetaKey] = std::move(labels);
  }
  return result;
}

// True when every string of `result` (keys included) is valid UTF-8.
bool all_utf8(const boost::json::object& result) {
  std::vector<const boost::json::value*> stack;
  for (const auto& kv : result) {
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

// Stage 2. The log names the tool, URI or prompt, the sanitizer and how it
// failed; never the data, which is exactly what is being withheld. A tool
// result's steps each have their deadline; a resource's or prompt's text
// steps run in one walk, with the same deadline per step.
bool sanitize(const Payload& payload, boost::json::object& result, const RequestContext& context,
              std::string_view raw_arguments, PipelineVerdict& verdict) {
  if (payload.chain) {
    auto failure = payload.tool()
                       ? payload.chain->run(result, ChainCall{context, payload.subject, raw_arguments,
                                                              payload.step_timeout})
                       : payload.chain->run_text(model_texts(payload.kind, result), payload.step_timeout);
    if (failure) {
      spdlog::error("{} '{}': sanitizer '{}' (chain '{}') {}; {} withheld", payload.noun(), payload.subject,
                    failure->sanitizer, payload.chain->name(), failure->reason, payload.what());
      if (context.metrics) context.metrics->sanitizer_failure(failure->sanitizer);
      verdict.step = failure->sanitizer;
      return false;
    }
  }
  // JSON text must be UTF-8. Each step's output was checked as it was
  // written (a step that broke it is named above), so bytes that are not
  // UTF-8 here are the plugin's own that no step repaired.
  if (!all_utf8(result)) {
    spdlog::error("{} '{}': the plugin wrote text that is not valid UTF-8; {} withheld", payload.noun(),
                  payload.subject, payload.what());
    return false;
  }
  return true;
}

// Stage 3. Errors carry no structured content to check; every other result
// of a tool with an outputSchema must have one that matches.
std::optional<std::string> validate_output(const Payload& payload, const boost::json::object& result) {
  if (!payload.tool()) return std::nullopt;
  const Tool& tool = *payload.route->tool;
  if (!tool.output_validator || is_error(result)) return std::nullopt;
  const auto* structured = result.if_contains("structuredContent");
  if (!structured) return std::string("structuredContent is missing, and the tool declares an outputSchema");
  if (auto failure = tool.output_validator->validate(*structured)) return failure->describe();
  return std::nullopt;
}

// The source to label a mirror of structuredContent with, when any of its
// fields is untrusted: that field's source, or "several" when they differ.
std::optional<std::string> untrusted_structured_source(const boost::json::object& result) {
  const auto* meta = result.if_contains("_meta");
  const auto* fields = meta && meta->is_object() ? meta->get_object().if_contains(kUntrustedMetaKey) : nullptr;
  if (!fields || !fields->is_array() || fields->get_array().empty()) return std::nullopt;
  std::optional<std::string> source;
  for (const auto& field : fields->get_array()) {
    const auto* f = field.if_object();
    const auto* s = f ? f->if_contains("source") : nullptr;
    const std::string this_one = s && s->is_string() ? std::string(s->get_string()) : "unknown";
    if (source && *source != this_one) return "several";
    source = this_one;
  }
  return source;
}

// Stage 4. The spec's backwards-compatible form: structured output also as
// serialized text, done here only, so it is never serialized twice. A mirror
// of untrusted fields is untrusted text too, and is labelled as such.
void mirror(const Payload& payload, boost::json::object& result) {
  if (!payload.tool() || payload.route->mirror != Mirror::text) return;
  if (!result.contains("structuredContent")) return;
  auto& content = result["content"].as_array();
  for (const auto& block : content)
    if (const auto* b = block.if_object(); b && b->contains("text")) return;  // the tool wrote its own text
  // Looked up after result["content"], which may add a member and move the
  // others: a pointer taken before would dangle.
  boost::json::object block{{"type", "text"}, {"text", to_json(result.at("structuredContent"))}};
  if (auto source = untrusted_structured_source(result))
    block["_meta"] = boost::json::object{{kUntrustedMetaKey, boost::json::object{{"source", *source}}}};
  content.push_back(std::move(block));
}

constexpr std::string_view kFrameClose = "</untrusted-data";
constexpr std::string_view kFrameEnd = "\n</untrusted-data>";

// The source of an untrusted text block, when the block is labelled so.
const boost::json::string* untrusted_source(const boost::json::object& block) {
  const auto* meta = block.if_contains("_meta");
  const auto* label = meta && meta->is_object() ? meta->get_object().if_contains(kUntrustedMetaKey) : nullptr;
  const auto* source = label && label->is_object() ? label->get_object().if_contains("source") : nullptr;
  return source ? source->if_string() : nullptr;
}

std::string frame_untrusted(std::string_view source, std::string_view text) {
  std::string framed = fmt::format("<untrusted-data source=\"{}\">\n", source);
  // The text may not close the frame early: every closing tag inside it is
  // written with an escaped slash.
  for (std::size_t at = 0;;) {
    const auto hit = text.find(kFrameClose, at);
    framed.append(text.substr(at, hit == std::string_view::npos ? std::string_view::npos : hit - at));
    if (hit == std::string_view::npos) break;
    framed.append("<\\/untrusted-data");
    at = hit + kFrameClose.size();
  }
  framed.append(kFrameEnd);
  return framed;
}

// The egress provenance: _meta["airlock/egress"] lists every destination
// the call reached or was refused, in order. Whatever a tool or a sanitizer
// wrote under that key is replaced: only the host's record is provenance.
boost::json::array provenance(const std::vector<EgressRecord>& records) {
  boost::json::array list;
  for (const auto& record : records) {
    boost::json::object entry{{"url", record.url}, {"host", record.host}, {"port", record.port}};
    if (!record.address.empty()) entry["address"] = record.address;
    entry["decision"] = record.allowed ? "allowed" : "denied";
    entry["rule"] = record.rule;
    if (record.http_status != 0) entry["status"] = record.http_status;
    if (record.allowed) entry["bytes"] = record.bytes;
    if (record.truncated) entry["truncated"] = true;
    if (!record.error.empty()) entry["error"] = record.error;
    list.push_back(std::move(entry));
  }
  return list;
}

void write_provenance(boost::json::array list, boost::json::object& result) {
  auto* meta = result.if_contains("_meta");
  if (meta && meta->is_object()) meta->get_object().erase(kEgressMetaKey);
  if (list.empty()) return;
  auto& slot = result["_meta"];
  if (!slot.is_object()) slot = boost::json::object{};
  slot.get_object()[kEgressMetaKey] = std::move(list);
}

// For a 2026-07-28 request: resultType and the server's name in _meta.
void stamp_modern(const RequestContext& context, boost::json::object& result) {
  if (!context.modern_server_info) return;
  // Room first: each key added to a full object rehashes it.
  result.reserve(result.size() + 2);
  result["resultType"] = "complete";
  auto& slot = result["_meta"];
  if (!slot.is_object()) slot.emplace_object().reserve(1);
  slot.get_object()["io.modelcontextprotocol/serverInfo"] = *context.modern_server_info;
}

// Stage 5, for a tool result. Untrusted text blocks get their frame (after
// the chain, so no sanitizer escapes or strips it); isError is written only
// when true; the egress provenance and the 2026-07-28 fields are written;
// _meta otherwise travels as the tool and the chain left it: out-of-band
// data, never a secret channel. A label can also come from a whole result a
// tool or a result sanitizer wrote; one whose source could write outside
// its frame withholds the result. False when it does. A resource's or
// prompt's 2026-07-28 fields and cache hints are the session's, written
// before the pipeline outside every text the chain reads.
bool envelope(const Payload& payload, boost::json::object& result, const boost::json::array& egress,
              const RequestContext& context) {
  if (!payload.tool()) return true;
  for (auto& block : result["content"].as_array()) {
    auto* b = block.if_object();
    const auto* source = b ? untrusted_source(*b) : nullptr;
    auto* text = b ? b->if_contains("text") : nullptr;
    if (!source || !text || !text->is_string()) continue;
    if (!is_untrusted_source(*source)) {
      spdlog::error("tool '{}': an untrusted-text label has a source outside [A-Za-z0-9._:@/-]{{1,64}}; "
                    "result withheld",
                    payload.subject);
      return false;
    }
    *text = frame_untrusted(*source, text->get_string());
  }
  if (auto* e = result.if_contains("isError"); e && !e->as_bool()) result.erase("isError");
  write_provenance(egress, result);
  stamp_modern(context, result);
  return true;
}

// Stage 6. Serializes onto `out`; when that is over the budget, cuts a tool
// result's longest text blocks (marking each cut) until it fits.
// structuredContent is never cut: a shape that no longer matches its schema
// is worse than no result. A resource or prompt is never cut. False (with
// `out` as it came) when the answer does not fit.
bool fit_budget(const Payload& payload, boost::json::object& result, std::string& out) {
  const std::size_t budget = payload.max_result_bytes;
  const std::size_t start = out.size();
  append_json(out, result);
  if (out.size() - start <= budget) return true;
  if (!payload.tool()) {
    spdlog::error("{} '{}': does not fit its {}-byte budget; {} withheld", payload.noun(), payload.subject, budget,
                  payload.what());
    out.resize(start);
    return false;
  }

  const std::string marker = fmt::format("\n[cut by airlock: the result exceeds its {}-byte budget]", budget);
  auto& content = result["content"].as_array();
  // A few rounds at most: escaping makes the serialized size of a cut only
  // roughly predictable, so each round measures again.
  for (int round = 0; round < 8 && out.size() - start > budget; ++round) {
    boost::json::string* longest = nullptr;
    bool framed = false;
    for (auto& block : content) {
      auto* b = block.if_object();
      auto* t = b ? b->if_contains("text") : nullptr;
      if (!t || !t->is_string() || (longest && t->get_string().size() <= longest->size())) continue;
      longest = &t->get_string();
      framed = untrusted_source(*b) != nullptr;
    }
    // An untrusted block is cut inside its frame, which stays whole.
    const std::string_view tail = framed ? kFrameEnd : std::string_view();
    if (!longest || longest->size() <= tail.size()) break;
    const std::size_t body = longest->size() - tail.size();
    const std::size_t excess = out.size() - start - budget + marker.size();
    std::size_t keep = body > excess ? body - excess : 0;
    // Never split a UTF-8 sequence: back up to the start of a character.
    while (keep > 0 && (static_cast<unsigned char>((*longest)[keep]) & 0xc0) == 0x80) --keep;
    if (framed) keep = std::max(keep, std::string_view(*longest).find('\n') + 1);  // the frame's first line stays
    std::string cut(longest->data(), keep);
    cut.append(marker).append(tail);
    if (cut.size() >= longest->size()) break;  // nothing left to gain here
    *longest = cut;
    auto& meta = result["_meta"];
    if (!meta.is_object()) meta = boost::json::object{};
    meta.get_object()["airlock/cut"] = true;
    out.resize(start);
    append_json(out, result);
  }
  if (out.size() - start <= budget) return true;
  spdlog::error("tool '{}': result does not fit its {}-byte budget even with its text cut; result withheld",
                payload.subject, budget);
  out.resize(start);
  return false;
}

std::string_view withheld_text(const Payload& payload, bool over_budget) {
  switch (payload.kind) {
    case Payload::Kind::tool_result: return over_budget ? kOverBudgetText : kWithheldText;
    case Payload::Kind::resource: return over_budget ? kResourceOverBudgetText : kResourceWithheldText;
    case Payload::Kind::prompt: return over_budget ? kPromptOverBudgetText : kPromptWithheldText;
  }
  return kWithheldText;
}

// Every stage, in order. `result` is stage 1's output (none: withheld).
// With `id`, stage 7 frames the answer as the response to that request.
PipelineVerdict run_stages(const Payload& payload, std::optional<boost::json::object> result,
                           const RequestContext& context, std::string_view raw_arguments,
                           const boost::json::array& egress, const boost::json::value* id, std::string& out) {
  PipelineVerdict verdict;
  const std::size_t start = out.size();
  // Stage 7, begun: the response's prefix, for stage 6 to serialize after.
  // Room for a small answer at once, so one is not grown three times; a
  // large text reserves its own room as it is written.
  if (id) {
    out.reserve(out.size() + kSmallResponseBytes);
    jsonrpc::append_result_prefix(out, *id);
  }
  verdict.result_at = out.size();
  const auto framed = [&] {
    verdict.result_size = out.size() - verdict.result_at;
    if (id) out.push_back(jsonrpc::kResultSuffix);
    return verdict;
  };
  const auto withhold = [&](std::string_view stage, std::string_view text) {
    verdict.error = true;
    verdict.withheld = stage;
    if (!payload.tool()) {
      // A resource or prompt has no error result: the answer is an error.
      out.resize(start);
      verdict.result_at = start;
      if (id) out += jsonrpc::error(*id, jsonrpc::kInternalError, text);
      return verdict;
    }
    out.resize(verdict.result_at);
    auto withheld = error_result(text);
    write_provenance(egress, withheld);
    stamp_modern(context, withheld);
    append_json(out, withheld);
    return framed();
  };
  if (!result) return withhold("payload", withheld_text(payload, false));
  if (payload.tool() && audit::enabled()) verdict.result_digest = audit::PendingDigest::of_json(*result);
  if (!sanitize(payload, *result, context, raw_arguments, verdict))
    return withhold("chain", withheld_text(payload, false));
  if (auto invalid = validate_output(payload, *result)) {
    spdlog::error("tool '{}': output does not match its outputSchema ({}); result withheld", payload.subject,
                  *invalid);
    return withhold("output_schema",
                    fmt::format("tool result withheld: its structured output does not match the tool's "
                                "outputSchema ({})",
                                *invalid));
  }
  mirror(payload, *result);
  if (!envelope(payload, *result, egress, context)) return withhold("envelope", withheld_text(payload, false));
  verdict.error = is_error(*result);
  if (!fit_budget(payload, *result, out)) return withhold("budget", withheld_text(payload, true));
  return framed();
}

}  // namespace

PipelineVerdict run_result_pipeline(const ToolRoute& route, ToolCallOutcome outcome, const RequestContext& context,
                                    std::string_view raw_arguments, std::string& out, const boost::json::value* id) {
  const boost::json::array egress = provenance(outcome.output.egress);
  return run_stages(tool_payload(route), check_payload(*route.tool, outcome), context, raw_arguments, egress, id,
                    out);
}

StoredToolResult store_tool_result(const ToolRoute& route, ToolCallOutcome outcome) {
  StoredToolResult stored;
  stored.egress = provenance(outcome.output.egress);
  stored.result = check_payload(*route.tool, outcome);
  return stored;
}

PipelineVerdict run_stored_result_pipeline(const ToolRoute& route, const StoredToolResult& stored,
                                           const RequestContext& context, std::string_view raw_arguments,
                                           std::string& out) {
  // A copy per read: the chain works on it, the stored result stays as it is.
  return run_stages(tool_payload(route), stored.result, context, raw_arguments, stored.egress, nullptr, out);
}

std::string run_result_pipeline(const ToolRoute& route, ToolCallOutcome outcome, const RequestContext& context,
                                std::string_view raw_arguments) {
  std::string out;
  run_result_pipeline(route, std::move(outcome), context, raw_arguments, out);
  return out;
}

PipelineVerdict run_invalid_arguments_pipeline(const ToolRoute& route, std::string_view failure,
                                               const RequestContext& context, std::string_view raw_arguments,
                                               std::string& out, const boost::json::value* id) {
  return run_stages(tool_payload(route), error_result(fmt::format("invalid arguments: {}", failure)), context,
                    raw_arguments, boost::json::array{}, id, out);
}

PipelineVerdict run_content_pipeline(const ContentPayload& payload, boost::json::object result,
                                     const RequestContext& context, const boost::json::value& id, std::string& out) {
  return run_stages(content_payload(payload), std::move(result), context, {}, boost::json::array{}, &id, out);
}

}  // namespace airlock::host
