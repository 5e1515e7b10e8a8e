// The tool checks, each call made the way the host makes it (an airlock_call
// with a cancellation flag, no client channel) inside a forked child:
//
//   arguments      the empty object and arguments generated from inputSchema
//                  (schema_instances.hpp) never crash or hang the tool, and
//                  every result is one the host accepts: a tool result of
//                  UTF-8 text, and no internal error on valid arguments;
//   output-schema  with an outputSchema, every successful result carries
//                  structuredContent that validates against it;
//   reentrancy     a tool declared AIRLOCK_TOOL_REENTRANT survives T callers
//                  at once, and where its results are deterministic (two
//                  calls in a row agree, or it is annotated
//                  "airlock/deterministic") each concurrent result equals the
//                  sequential one: catches shared buffers;
//   cancellation   a tool declared AIRLOCK_TOOL_CANCELLABLE returns within the
//                  bound after its call is cancelled mid-run.
#include "check/tool_checks.hpp"

#include "check/isolated.hpp"
#include "check/schema_instances.hpp"
#include "calls/tool_call_runner.hpp"
#include "pipeline/tool_result_shape.hpp"
#include "plugins/host_api.hpp"
#include "util/utf8.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <atomic>
#include <thread>

namespace airlock::host::check {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

bool strings_are_utf8(const json::value& root) {
  std::vector<const json::value*> stack{&root};
  while (!stack.empty()) {
    const json::value* v = stack.back();
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

json::object error_result(std::string_view text) {
  return {{"content", json::array{json::object{{"type", "text"}, {"text", text}}}}, {"isError", true}};
}

// One call of the tool and what the host would make of what it left: the
// status, the CallToolResult (null when there is none) and, when the host
// would withhold it, why. As JSON, to cross the pipe from the child.
json::object call_tool(const Tool& tool, const std::string& arguments, const std::atomic<bool>* cancelled) {
  // As the host runs it, with no network and no client.
  const std::atomic<bool> never{false};
  auto [status, out, took] = ToolCallRunner().run(tool, nullptr, arguments, cancelled ? *cancelled : never, nullptr);
  (void)took;
  json::value result = nullptr;
  std::string problem;
  if (status == AIRLOCK_STATUS_TOOL_ERROR) {
    result = error_result(out.error_message ? *out.error_message : "the tool failed");
  } else if (status == AIRLOCK_STATUS_OK) {
    if (out.error_message) {
      result = error_result(*out.error_message);
    } else if (out.whole && (!out.content.empty() || out.structured)) {
      problem = "set a whole result and parts of one (the host withholds it)";
    } else if (out.whole) {
      result = std::move(*out.whole);
    } else if (!out.content.empty() || out.structured) {
      json::object r{{"content", std::move(out.content)}};
      if (out.structured) r["structuredContent"] = std::move(*out.structured);
      result = std::move(r);
    } else {
      problem = "returned OK without setting a result (the host withholds it)";
    }
    if (result.is_object()) {
      if (auto shape = tool_result_shape_error(result.get_object())) {
        problem = "returned a malformed result: " + *shape;
      } else {
        for (const auto& field : out.untrusted_fields) {
          const auto* structured = result.get_object().if_contains("structuredContent");
          boost::system::error_code ec;
          const json::value* target = structured ? structured->find_pointer(field.pointer, ec) : nullptr;
          if (!target || !target->is_string()) problem = "marked untrusted a pointer that names no string";
        }
      }
    }
  }
  if (result.is_object() && !strings_are_utf8(result)) problem = "returned text that is not valid UTF-8";
  if (!problem.empty()) result = nullptr;
  return {{"status", status}, {"result", std::move(result)}, {"problem", problem}};
}

struct ToolRun {
  std::string arguments;
  bool valid = false;
  Isolated isolated;
  json::object answer;  // call_tool's object when isolated.end is returned
};

std::optional<json::object> parse_object(const std::string& text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.get_object());
}

std::string show_result(const json::value& v) { return show(json::serialize(v), 16 * 1024); }

// A call_tool answer as the client would see it: the result, or the status
// and why there is none.
std::string show_answer(const json::value& answer) {
  const json::value& result = answer.at("result");
  if (result.is_object()) return show_result(result);
  const auto& problem = answer.at("problem").as_string();
  return fmt::format("status {}, no result{}{}", answer.at("status").to_number<std::int64_t>(),
                     problem.empty() ? "" : ": ", std::string_view(problem));
}

CheckResult failure(std::string check, std::string detail, Counterexample example, std::size_t cases = 1) {
  example.found_bytes = example.input.size();
  return CheckResult{std::move(check), Verdict::fail, std::move(detail), std::move(example), cases, {}};
}

CheckResult skipped(std::string check, std::string why) {
  return CheckResult{std::move(check), Verdict::skip, std::move(why), std::nullopt, 0, {}};
}

// What is wrong with one isolated call, or nothing.
std::optional<std::string> call_problem(const ToolRun& run) {
  if (run.isolated.end == Isolated::End::crashed) return "crashed: " + run.isolated.how;
  if (run.isolated.end == Isolated::End::timed_out) return "hung: " + run.isolated.how;
  if (const auto* p = run.answer.if_contains("problem"); p && p->is_string() && !p->get_string().empty())
    return std::string(p->get_string());
  const auto status = run.answer.at("status").to_number<std::int64_t>();
  const bool known = status == AIRLOCK_STATUS_OK || status == AIRLOCK_STATUS_TOOL_ERROR ||
                     status == AIRLOCK_STATUS_CANCELLED;
  if (run.valid && !known)
    return fmt::format("failed with status {} ({}) on valid arguments; the client sees only an internal error",
                       status, status == AIRLOCK_STATUS_INTERNAL ? "INTERNAL" : "not a tool status");
  return std::nullopt;
}

std::string outcome_text(const ToolRun& run) {
  if (run.isolated.end != Isolated::End::returned) return run.isolated.how;
  const json::value& result = run.answer.at("result");
  if (!result.is_null()) return show_result(result);
  return fmt::format("status {}, no result", run.answer.at("status").to_number<std::int64_t>());
}

CheckResult check_arguments(const Tool& tool, std::vector<ToolRun>& runs, const CheckOptions& options) {
  CheckResult result{"arguments", Verdict::pass, {}, {}, runs.size(), {}};
  const ToolRun* worst = nullptr;
  std::string worst_problem;
  for (ToolRun& run : runs) {
    run.isolated = run_contained([&] { return json::serialize(call_tool(tool, run.arguments, nullptr)); },
                                 options.tool_timeout, options.worker);
    if (run.isolated.end == Isolated::End::returned) {
      auto answer = parse_object(run.isolated.output);
      if (answer) {
        run.answer = std::move(*answer);
      } else {
        run.isolated.end = Isolated::End::crashed;
        run.isolated.how = "the child sent back no readable answer";
      }
    }
    if (auto problem = call_problem(run); problem && (!worst || run.arguments.size() < worst->arguments.size())) {
      worst = &run;
      worst_problem = *problem;
    }
  }
  if (!worst) {
    result.detail = fmt::format("{} of {} argument sets valid", std::count_if(runs.begin(), runs.end(),
                                                                               [](const ToolRun& r) { return r.valid; }),
                                runs.size());
    return result;
  }
  result = failure("arguments", worst_problem + (worst->valid ? "" : " (arguments not valid for the schema)"),
                   {worst->arguments, "call", outcome_text(*worst), "", "", 0, false});
  result.cases = runs.size();
  return result;
}

CheckResult check_output_schema(const Tool& tool, const std::vector<ToolRun>& runs) {
  if (!tool.output_validator) return skipped("output-schema", "declares no outputSchema");
  CheckResult result{"output-schema", Verdict::pass, {}, {}, 0, {}};
  for (const ToolRun& run : runs) {
    if (run.isolated.end != Isolated::End::returned || !run.answer.at("result").is_object()) continue;
    const json::object& r = run.answer.at("result").get_object();
    if (const auto* e = r.if_contains("isError"); e && e->is_bool() && e->get_bool()) continue;
    ++result.cases;
    const json::value* structured = r.if_contains("structuredContent");
    if (!structured)
      return failure("output-schema", "returned no structuredContent, though it declares an outputSchema",
                     {run.arguments, "result", show_result(r), "", "", 0, false}, result.cases);
    if (auto invalid = tool.output_validator->validate(*structured))
      return failure("output-schema", "structuredContent does not match the outputSchema: " + invalid->describe(),
                     {run.arguments, "structuredContent", show_result(*structured), "", "", 0, false}, result.cases);
  }
  if (result.cases == 0) result.detail = "no successful result to validate";
  return result;
}

bool declared_deterministic(const Tool& tool) {
  if (!tool.annotations) return false;
  const auto* v = tool.annotations->if_contains(kDeterministicAnnotation);
  return v && v->is_bool() && v->get_bool();
}

CheckResult check_reentrancy(const Tool& tool, const std::vector<ToolRun>& runs, const CheckOptions& options) {
  if (!tool.reentrant()) return skipped("reentrancy", "not AIRLOCK_TOOL_REENTRANT: the host runs one call at a time");
  std::vector<std::string> args;
  for (const ToolRun& run : runs)
    if (run.valid && args.size() < 4) args.push_back(run.arguments);
  if (args.empty()) args.push_back("{}");
  const bool full = options.depth == CheckDepth::full;
  const unsigned threads = std::max(2u, options.threads);
  const std::size_t calls = full ? 8 : 3;

  const Isolated child = run_contained(
      [&] {
        json::array sequential;
        for (const auto& a : args) sequential.push_back(json::array{call_tool(tool, a, nullptr), call_tool(tool, a, nullptr)});
        std::vector<json::array> per_thread(threads);
        std::vector<std::thread> workers;
        std::atomic<unsigned> ready{0};
        for (unsigned t = 0; t < threads; ++t)
          workers.emplace_back([&, t] {
            ++ready;
            while (ready.load() < threads) std::this_thread::yield();
            Prng prng(options.seed + t);
            for (std::size_t n = 0; n < calls; ++n) {
              const std::size_t a = prng.below(args.size());
              per_thread[t].push_back(json::array{a, call_tool(tool, args[a], nullptr)});
            }
          });
        for (auto& w : workers) w.join();
        json::array concurrent;
        for (auto& list : per_thread)
          for (auto& entry : list) concurrent.push_back(std::move(entry));
        return json::serialize(json::object{{"sequential", std::move(sequential)}, {"concurrent", std::move(concurrent)}});
      },
      options.tool_timeout * 4, options.worker);

  CheckResult result{"reentrancy", Verdict::pass, {}, {}, args.size() * 2 + threads * calls, {}};
  if (child.end != Isolated::End::returned)
    return failure("reentrancy",
                   fmt::format("{} with {} callers at once: {}", child.end == Isolated::End::crashed ? "crashed" : "hung",
                               threads, child.how),
                   {args.front(), "callers", child.how, "", "", 0, false}, result.cases);
  const auto answer = parse_object(child.output);
  if (!answer)
    return failure("reentrancy", "the child sent back no readable answer", {args.front(), "callers", "", "", "", 0, false}, result.cases);
  const json::array& sequential = answer->at("sequential").get_array();
  const bool declared = declared_deterministic(tool);
  std::vector<bool> stable(args.size());
  std::size_t unstable = 0;
  for (std::size_t a = 0; a < args.size(); ++a) {
    const json::array& pair = sequential[a].get_array();
    stable[a] = pair[0] == pair[1];
    if (stable[a]) continue;
    ++unstable;
    if (declared)
      return failure("reentrancy",
                     "declares itself deterministic (\"airlock/deterministic\": true) but two calls in a row differ",
                     {args[a], "first call", show_answer(pair[0]), "second call", show_answer(pair[1]), 0, false}, result.cases);
  }
  for (const auto& entry : answer->at("concurrent").get_array()) {
    const auto a = static_cast<std::size_t>(entry.at(0).to_number<std::int64_t>());
    const json::value& got = entry.at(1);
    if (!stable[a]) continue;
    const json::value& expected = sequential[a].get_array()[0];
    if (got != expected)
      return failure("reentrancy",
                     fmt::format("with {} callers at once, a result differs from the sequential result for the "
                                 "same arguments",
                                 threads),
                     {args[a], "sequential", show_answer(expected), "concurrent", show_answer(got), 0, false}, result.cases);
  }
  if (unstable) result.detail = fmt::format("{} of {} argument sets give varying results; equality not required",
                                            unstable, args.size());
  return result;
}

CheckResult check_cancellation(const Tool& tool, const std::vector<ToolRun>& runs, const CheckOptions& options) {
  if (!tool.cancellable()) return skipped("cancellation", "not AIRLOCK_TOOL_CANCELLABLE: the host never cancels it mid-run");
  std::string args = "{}";
  for (const ToolRun& run : runs)
    if (run.valid) {
      args = run.arguments;
      break;
    }
  // Long enough that a tool with real work is still running; short enough
  // to keep the check quick.
  constexpr auto kCancelAfter = std::chrono::milliseconds(50);
  const Isolated child = run_contained(
      [&] {
        std::atomic<bool> cancelled{false};
        std::atomic<bool> done{false};
        json::object answer;
        std::thread worker([&] {
          answer = call_tool(tool, args, &cancelled);
          done = true;
        });
        const auto started = Clock::now();
        while (!done && Clock::now() - started < kCancelAfter) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const bool before = done.load();
        cancelled = true;
        const auto at = Clock::now();
        worker.join();
        answer["finished_before_cancel"] = before;
        answer["after_cancel_ns"] = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - at).count();
        return json::serialize(answer);
      },
      kCancelAfter + options.cancel_bound + std::chrono::milliseconds(500), options.worker);

  CheckResult result{"cancellation", Verdict::pass, {}, {}, 1, {}};
  if (child.end == Isolated::End::timed_out)
    return failure("cancellation",
                   fmt::format("did not return within {} ms of being cancelled", options.cancel_bound.count()),
                   {args, "call", fmt::format("cancelled after {} ms, still running", kCancelAfter.count()), "", "",
                    0, false});
  if (child.end == Isolated::End::crashed)
    return failure("cancellation", "crashed when cancelled: " + child.how, {args, "call", child.how, "", "", 0, false});
  const auto answer = parse_object(child.output);
  if (!answer)
    return failure("cancellation", "the child sent back no readable answer", {args, "call", "", "", "", 0, false});
  if (answer->at("finished_before_cancel").as_bool()) {
    result.detail = "finished before it could be cancelled";
    return result;
  }
  const std::chrono::nanoseconds after(answer->at("after_cancel_ns").to_number<std::int64_t>());
  if (after > options.cancel_bound)
    return failure("cancellation",
                   fmt::format("returned {} after being cancelled, over the {} ms bound", format_duration(after),
                               options.cancel_bound.count()),
                   {args, "call", fmt::format("returned {} after the cancel", format_duration(after)), "", "", 0,
                    false});
  result.detail = fmt::format("returned {} after the cancel", format_duration(after));
  return result;
}

template <class Fn>
CheckResult timed(Fn&& fn) {
  const auto start = Clock::now();
  CheckResult r = fn();
  r.elapsed = Clock::now() - start;
  return r;
}

}  // namespace

ComponentReport check_tool(const Tool& tool, const CheckOptions& options) {
  const auto start = Clock::now();
  ComponentReport report{tool.name, "tool", {}, {}, {}};
  // FNV-1a of the name: the same arguments for the same tool and seed on
  // every platform (std::hash promises no such thing).
  std::uint64_t name_hash = 0xcbf29ce484222325ull;
  for (unsigned char c : tool.name) name_hash = (name_hash ^ c) * 0x100000001b3ull;
  Prng prng(options.seed ^ name_hash);
  std::vector<ToolRun> runs;
  for (auto& generated :
       generate_arguments(tool.input_schema, *tool.input_validator, prng, options.depth == CheckDepth::full ? 8 : 3))
    runs.push_back({std::move(generated.json), generated.valid, {}, {}});

  report.checks.push_back(timed([&] { return check_arguments(tool, runs, options); }));
  report.checks.push_back(timed([&] { return check_output_schema(tool, runs); }));
  report.checks.push_back(timed([&] { return check_reentrancy(tool, runs, options); }));
  report.checks.push_back(timed([&] { return check_cancellation(tool, runs, options); }));
  for (const auto& run : runs) report.slowest_call = std::max(report.slowest_call, run.isolated.took);
  report.elapsed = Clock::now() - start;
  return report;
}

}  // namespace airlock::host::check
