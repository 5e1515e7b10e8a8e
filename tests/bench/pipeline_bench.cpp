// Micro-benchmarks of the result pipeline over results of 1 KiB, 64 KiB and
// 1 MiB, with the real first-party sanitizers loaded through the ABI:
//
//   parse / serialize       what one JSON round trip of the result costs
//   chain_fused             a 4-step text chain as the host runs it: one walk
//   chain_round_trips       the same 4 steps run the naive way, each its own
//                           serialize -> parse -> walk (what fusion saves)
//   pipeline_no_chain       stages 1 and 3-7 alone (payload check, mirror,
//                           envelope, budget, serialize)
//   pipeline_4_step_chain   the whole pipeline with the 4-step chain
//
// Run: build/release/tests/bench/pipeline_bench
#include "config/host_config.hpp"
#include "pipeline/result_pipeline.hpp"
#include "pipeline/sanitizer_chain.hpp"
#include "plugins/plugin_registry.hpp"

#include <benchmark/benchmark.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstdlib>
#include <iostream>
#include <memory>

namespace {

using namespace airlock::host;

const std::vector<std::string> kChain = {"airlock.strip-control", "airlock.escape-markup", "airlock.inert-urls",
                                         "airlock.redact-secrets"};

// Text the sanitizers have real work on: escapes, links, a secret-like token.
std::string sample_text(std::size_t bytes) {
  static const std::string unit =
      "Status \x1b[32mOK\x1b[0m for peer AS64500 at https://peering.example/net?id=42; see "
      "[docs](https://docs.example/x) and ask ops@example.net. token=AKIAABCDEFGHIJKLMNOP ok.\n";
  std::string s;
  s.reserve(bytes);
  while (s.size() + unit.size() <= bytes) s += unit;
  s.append(bytes - s.size(), 'x');
  return s;
}

boost::json::object sample_result(std::size_t bytes) {
  boost::json::array items;
  const std::size_t per_item = 256;
  for (std::size_t i = 0; i < bytes / 2 / per_item; ++i)
    items.push_back(boost::json::object{{"name", sample_text(per_item)}, {"n", i}});
  return boost::json::object{
      {"content", boost::json::array{boost::json::object{{"type", "text"}, {"text", sample_text(bytes / 2)}}}},
      {"structuredContent", boost::json::object{{"items", std::move(items)}}}};
}

struct Fixture {
  Config config;
  std::unique_ptr<PluginRegistry> registry;
  std::vector<const Sanitizer*> steps;
  const Tool* tool = nullptr;

  Fixture() {
    config.plugins.dirs = {AIRLOCK_PLUGIN_DIR};
    auto loaded = PluginRegistry::load(config);
    if (!loaded) {
      std::cerr << "pipeline_bench: " << loaded.error().message << "\n";
      std::exit(1);
    }
    registry = std::move(*loaded);
    for (const auto& name : kChain) {
      const Sanitizer* s = registry->find_sanitizer(name);
      if (!s) {
        std::cerr << "pipeline_bench: sanitizer " << name << " is not built\n";
        std::exit(1);
      }
      steps.push_back(s);
    }
    tool = registry->find_tool("example.echo");
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

const RequestContext kContext{"2025-11-25", "", "", "1"};

void set_bytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

void parse(benchmark::State& state) {
  const std::string text = boost::json::serialize(sample_result(static_cast<std::size_t>(state.range(0))));
  for (auto _ : state) benchmark::DoNotOptimize(boost::json::parse(text));
  set_bytes(state);
}

void serialize(benchmark::State& state) {
  const auto result = sample_result(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(boost::json::serialize(result));
  set_bytes(state);
}

void chain_fused(benchmark::State& state) {
  const SanitizerChain chain("bench", fixture().steps);
  const auto original = sample_result(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    state.PauseTiming();
    auto result = original;
    state.ResumeTiming();
    const ChainCall call{kContext, "example.echo", "{}"};
    if (chain.run(result, call)) state.SkipWithError("chain failed");
    benchmark::DoNotOptimize(result);
  }
  set_bytes(state);
}

void chain_round_trips(benchmark::State& state) {
  std::vector<SanitizerChain> singles;
  for (const Sanitizer* s : fixture().steps) singles.emplace_back(s->name, std::vector<const Sanitizer*>{s});
  const std::string original = boost::json::serialize(sample_result(static_cast<std::size_t>(state.range(0))));
  for (auto _ : state) {
    std::string text = original;
    for (const auto& single : singles) {
      auto result = boost::json::parse(text).as_object();
      const ChainCall call{kContext, "example.echo", "{}"};
      if (single.run(result, call)) state.SkipWithError("chain failed");
      text = boost::json::serialize(result);
    }
    benchmark::DoNotOptimize(text);
  }
  set_bytes(state);
}

void pipeline(benchmark::State& state, bool with_chain) {
  const SanitizerChain chain("bench", fixture().steps);
  ToolRoute route;
  route.tool = fixture().tool;
  route.chain = with_chain ? &chain : nullptr;
  route.max_result_bytes = 64u << 20;
  const auto original = sample_result(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    state.PauseTiming();
    ToolCallOutcome outcome{AIRLOCK_STATUS_OK, {}};
    outcome.output.content = original.at("content").as_array();
    outcome.output.structured = original.at("structuredContent").as_object();
    state.ResumeTiming();
    benchmark::DoNotOptimize(run_result_pipeline(route, std::move(outcome), kContext, "{}"));
  }
  set_bytes(state);
}

void pipeline_no_chain(benchmark::State& state) { pipeline(state, false); }
void pipeline_4_step_chain(benchmark::State& state) { pipeline(state, true); }

void sizes(benchmark::internal::Benchmark* b) {
  b->Arg(1 << 10)->Arg(64 << 10)->Arg(1 << 20)->Unit(benchmark::kMicrosecond);
}

BENCHMARK(parse)->Apply(sizes);
BENCHMARK(serialize)->Apply(sizes);
BENCHMARK(chain_fused)->Apply(sizes);
BENCHMARK(chain_round_trips)->Apply(sizes);
BENCHMARK(pipeline_no_chain)->Apply(sizes);
BENCHMARK(pipeline_4_step_chain)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
