#include "check/sanitizer_subject.hpp"

#include "check/check_report.hpp"
#include "check/corpus.hpp"
#include "pipeline/tool_result_shape.hpp"
#include "plugins/host_api.hpp"
#include "util/utf8.hpp"

#include <boost/json/parse.hpp>
#include <fmt/format.h>

#include <vector>

namespace airlock::host::check {
namespace {

using Clock = std::chrono::steady_clock;

// What a result sanitizer is told about the call: a fixed request, so that
// only the result varies between calls.
constexpr std::string_view kProtocolVersion = "2025-11-25";
constexpr std::string_view kRequestId = "1";
constexpr std::string_view kToolName = "check.tool";
constexpr std::string_view kArguments = "{}";

std::optional<boost::json::value> parse(std::string_view text) {
  boost::system::error_code ec;
  boost::json::parse_options options;
  options.max_depth = 128;  // as the host parses a result sanitizer's output
  boost::json::value v = boost::json::parse(text, ec, {}, options);
  if (ec) return std::nullopt;
  return v;
}

}  // namespace

bool same_outcome(const Outcome& a, const Outcome& b) {
  if (a.produced() != b.produced()) return false;
  if (!a.produced()) return a.status == b.status;
  return a.output == b.output;
}

std::string status_name(airlock_status status) {
  switch (status) {
    case AIRLOCK_STATUS_OK: return "OK";
    case AIRLOCK_STATUS_UNCHANGED: return "UNCHANGED";
    case AIRLOCK_STATUS_TOOL_ERROR: return "TOOL_ERROR";
    case AIRLOCK_STATUS_CANCELLED: return "CANCELLED";
    case AIRLOCK_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case AIRLOCK_STATUS_ALREADY_SET: return "ALREADY_SET";
    case AIRLOCK_STATUS_INTERNAL: return "INTERNAL";
    case AIRLOCK_STATUS_UNSUPPORTED: return "UNSUPPORTED";
    case AIRLOCK_STATUS_TIMEOUT: return "TIMEOUT";
    default: return "unknown";
  }
}

std::string show(const Outcome& outcome) {
  if (outcome.produced()) return show(std::string_view(outcome.output));
  return fmt::format("error status {} ({})", outcome.status, status_name(outcome.status));
}

std::optional<std::string> SanitizerSubject::input_of(const Case& c) const {
  if (c.shape == kRawShape) return c.text;
  if (!valid_utf8(c.text)) return std::nullopt;
  return render_result(c.shape, c.text);
}

Outcome SanitizerSubject::call(std::string_view input) const {
  Outcome outcome;
  const auto start = Clock::now();
  if (is_text()) {
    airlock_text_writer writer{&outcome.output, false};
    outcome.status = sanitizer_.on_text(sanitizer_.data, borrow(input), &writer);
    outcome.wrote = writer.written;
  } else {
    const airlock_request_context context{sizeof(airlock_request_context), borrow(kProtocolVersion),
                                          airlock_str{nullptr, 0}, airlock_str{nullptr, 0}, borrow(kRequestId),
                                          borrow(std::string_view("{}"))};
    airlock_result_writer writer;
    outcome.status = sanitizer_.on_result(sanitizer_.data, &context, borrow(kToolName), borrow(kArguments),
                                          borrow(input), &writer);
    outcome.wrote = writer.written;
    outcome.output = std::move(writer.json);
  }
  outcome.took = Clock::now() - start;
  if (outcome.status == AIRLOCK_STATUS_UNCHANGED) {
    outcome.output.assign(input);
  } else if (outcome.status != AIRLOCK_STATUS_OK) {
    outcome.output.clear();
  }
  return outcome;
}

bool SanitizerSubject::same_value(std::string_view a, std::string_view b) const {
  if (a == b) return true;
  if (is_text()) return false;
  const auto va = parse(a);
  const auto vb = parse(b);
  return va && vb && *va == *vb;
}

std::string SanitizerSubject::readable_text(std::string_view bytes) const {
  if (is_text()) return std::string(bytes);
  const auto value = parse(bytes);
  if (!value) return std::string(bytes);
  std::string out;
  std::vector<const boost::json::value*> stack{&*value};
  while (!stack.empty()) {
    const boost::json::value* v = stack.back();
    stack.pop_back();
    if (const auto* s = v->if_string()) {
      out.append(s->data(), s->size()).push_back('\n');
    } else if (const auto* a = v->if_array()) {
      for (const auto& e : *a) stack.push_back(&e);
    } else if (const auto* o = v->if_object()) {
      for (const auto& kv : *o) {
        out.append(kv.key().data(), kv.key().size()).push_back('\n');
        stack.push_back(&kv.value());
      }
    }
  }
  return out;
}

std::optional<std::string> SanitizerSubject::output_problem(std::string_view input, const Outcome& o) const {
  if (o.status == AIRLOCK_STATUS_UNCHANGED && o.wrote)
    return std::string("wrote output and returned UNCHANGED (the host fails the call)");
  if (o.status != AIRLOCK_STATUS_OK) return std::nullopt;
  if (is_text()) {
    if (valid_utf8(input) && !valid_utf8(o.output)) return std::string("turned valid UTF-8 into invalid UTF-8");
    return std::nullopt;
  }
  if (!o.wrote) return std::string("returned OK without writing a result");
  const auto value = parse(o.output);
  if (!value) return std::string("wrote output that is not JSON (or not UTF-8)");
  if (!value->is_object()) return std::string("wrote JSON that is not an object");
  if (auto shape = tool_result_shape_error(value->get_object()))
    return "wrote a result that is not a tool result: " + *shape;
  return std::nullopt;
}

}  // namespace airlock::host::check
