// A chain of sanitizers as declared in [chains.NAME], compiled for the hot
// path: consecutive text sanitizers are fused so the whole run costs one walk
// of the result, not one parse/serialize round trip per step.
#pragma once

#include "pipeline/request_context.hpp"
#include "plugins/plugin_types.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host {

// Why a chain withheld a result. Host-made text only, never plugin or result
// text, so it can go to the operator's log as it is.
struct ChainFailure {
  std::string sanitizer;
  std::string reason;
};

// What a result sanitizer is told about the call besides the result.
struct ChainCall {
  const RequestContext& context;
  std::string_view tool_name;
  std::string_view raw_arguments;  // the arguments as JSON text
  // The longest one step may take; a run of fused text steps gets this much
  // per step. Slower output is withheld, since a sanitizer that slow is not
  // behaving as its contract says.
  std::chrono::nanoseconds step_timeout = std::chrono::seconds(1);
};

class SanitizerChain {
 public:
  SanitizerChain(std::string name, std::vector<const Sanitizer*> steps);

  const std::string& name() const { return name_; }
  const std::vector<const Sanitizer*>& steps() const { return steps_; }

  // Runs every step, in the order written, over `result` in place. On
  // failure `result` may hold partial output and must be thrown away.
  std::optional<ChainFailure> run(boost::json::object& result, const ChainCall& call) const;

  // Only the text sanitizers, in order, over `leaves` in one walk: the path
  // of a resource or a prompt, which is not a tool result that a result
  // sanitizer could take. The same deadline as run(): `step_timeout` for
  // each step of the walk.
  std::optional<ChainFailure> run_text(const std::vector<boost::json::string*>& leaves,
                                       std::chrono::nanoseconds step_timeout) const;

 private:
  // A run of text sanitizers (one walk), or a single result sanitizer.
  struct Segment {
    SanitizerKind kind;
    std::vector<const Sanitizer*> steps;
    bool isolated;  // some step runs in a worker: its leaves go there together
  };

  std::string name_;
  std::vector<const Sanitizer*> steps_;
  std::vector<Segment> segments_;
  std::vector<const Sanitizer*> text_steps_;  // run_text's, resolved once
};

// Calls a text sanitizer run on every string of `leaves`, as run_text_steps
// does on each, with the steps of one isolated plugin in one round trip.
std::optional<ChainFailure> run_text_steps_on(const std::vector<const Sanitizer*>& steps,
                                              const std::vector<boost::json::string*>& leaves);

// Calls each of a text sanitizer run on one string, in order; the string is
// replaced only when some step changed it. Exposed for the benchmarks.
std::optional<ChainFailure> run_text_steps(const std::vector<const Sanitizer*>& steps,
                                           boost::json::string& leaf);

}  // namespace airlock::host
