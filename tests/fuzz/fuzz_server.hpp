// fuzz_server.hpp — the server the dispatch fuzz targets talk to, built once
// per process: a config read from TOML (so the real reader fills every
// default), the fuzz_echo fixture plugin loaded in-process from its own
// directory, its tools bound to a chain running fuzz.strip-control, and a
// small executor. No network: no fetcher, no HTTP listener.
#pragma once

#include "config/host_config.hpp"
#include "executor/deadline_timer.hpp"
#include "executor/executor.hpp"
#include "mcp/session.hpp"
#include "pipeline/tool_routes.hpp"
#include "plugins/plugin_registry.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace airlock::fuzz {

class FuzzServer {
 public:
  static FuzzServer& get() {
    static FuzzServer server;
    return server;
  }
  const host::ServerState& state() const { return *state_; }
  const host::Config& config() const { return config_; }

 private:
  FuzzServer() {
    // Millions of runs: the log would be all the output there is.
    spdlog::set_level(spdlog::level::off);
    const std::string dir = AIRLOCK_FUZZ_PLUGIN_DIR;
    const std::string toml = "[server]\nworkers = 2\nqueue_capacity = 8\npage_size = 2\n"
                             "[plugins]\ndirs = [\"" + dir + "\"]\non_error = \"fail\"\n"
                             "[isolation]\nin_process = [\"" + dir + "\"]\n"
                             "[chains.default]\nsteps = [\"fuzz.strip-control\"]\n"
                             "[tools.\"*\"]\nchain = \"default\"\ntimeout_ms = 5000\n";
    auto config = host::parse_config(toml, dir + "/airlock.toml");
    if (!config) fail("config", config.error().message);
    config_ = std::move(*config);
    auto registry = host::PluginRegistry::load(config_);
    if (!registry) fail("registry", registry.error().message);
    registry_ = std::move(*registry);
    auto routes = host::ToolRoutes::build(config_, *registry_);
    if (!routes) fail("routes", routes.error().message);
    routes_ = std::move(*routes);
    executor_ = std::make_unique<host::Executor>(2, 8);
    state_ = std::make_unique<host::ServerState>(host::ServerState{
        config_, *routes_, *executor_, "0.0.0-fuzz", host::build_tool_listing(*routes_), &timer_});
  }

  [[noreturn]] static void fail(const char* what, const std::string& message) {
    std::fprintf(stderr, "fuzz server: %s: %s\n", what, message.c_str());
    std::abort();
  }

  host::Config config_;
  std::unique_ptr<host::PluginRegistry> registry_;
  std::unique_ptr<host::ToolRoutes> routes_;
  host::DeadlineTimer timer_;
  std::unique_ptr<host::Executor> executor_;
  std::unique_ptr<host::ServerState> state_;
};

}  // namespace airlock::fuzz
