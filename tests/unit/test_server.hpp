// The one place unit tests build a server: real plugins loaded from fixture
// directories, their routes, a worker pool and the ServerState sessions and
// transports share, as `airlock serve` wires them. Tests that drive a Session
// or a transport directly need all of it, and each used to build its own copy;
// a change to how a server is put together now lands here once.
#pragma once

#include "mcp/session.hpp"
#include "unit_support.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace airlock::unit {

// Outside TestServer so that it can be a defaulted constructor argument.
struct TestServerOptions {
  // Fixtures (tests/fixtures/<name>) whose plugins load, each from its own
  // directory so that nothing else comes along; empty: no plugins at all.
  std::vector<std::string> fixtures{"canary"};
  // A single worker and a small queue are how a test holds calls back.
  std::uint32_t workers = 2;
  std::size_t queue_capacity = 16;
  // Without a timer, timeout_ms is not enforced: only tests of deadlines want one.
  bool deadline_timer = false;
  // Runs on the config before the plugins load: chains, bindings, [server]
  // settings, whatever a test needs beyond the plugin directories.
  std::function<void(host::Config&)> configure{};
};

class TestServer {
 public:
  // Throws, failing the test, when the plugins do not load or the config
  // does not route (some tests expect exactly that).
  explicit TestServer(TestServerOptions options = {}) {
    std::vector<std::filesystem::path> dirs;
    for (const auto& fixture : options.fixtures) dirs.push_back(fixture_dir(fixture));
    config_ = config_with_dirs(std::move(dirs));
    if (options.configure) options.configure(config_);
    registry_ = load_registry(config_);
    auto routes = host::ToolRoutes::build(config_, *registry_);
    if (!routes) throw std::runtime_error(routes.error().message);
    routes_ = std::move(*routes);
    if (options.deadline_timer) timer_ = std::make_unique<host::DeadlineTimer>();
    executor_ = std::make_unique<host::Executor>(options.workers, options.queue_capacity);
    state_ = std::make_unique<host::ServerState>(host::ServerState{
        config_, *routes_, *executor_, "9.9.9", host::build_tool_listing(*routes_), timer_.get()});
  }
  // Queued calls still use the state, the routes and the plugins: they run
  // out before any of those goes.
  ~TestServer() { executor_->shutdown(); }
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  const host::ServerState& state() const { return *state_; }
  const host::Config& config() const { return config_; }
  const host::ToolRoutes& routes() const { return *routes_; }
  // The stdio transport hands calls a stalled batch leaves to the server's pool.
  host::Executor& executor() { return *executor_; }

 private:
  host::Config config_;
  std::unique_ptr<host::PluginRegistry> registry_;
  std::unique_ptr<host::ToolRoutes> routes_;
  std::unique_ptr<host::DeadlineTimer> timer_;  // outlives the pool, whose calls cancel deadlines
  std::unique_ptr<host::Executor> executor_;
  std::unique_ptr<host::ServerState> state_;
};

}  // namespace airlock::unit
