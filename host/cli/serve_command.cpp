#include "cli/commands.hpp"
#include "cli/startup.hpp"

#include "audit/audit_trail.hpp"
#include "calls/call_audit.hpp"
#include "egress/fetcher.hpp"
#include "executor/executor.hpp"
#include "mcp/protocol.hpp"
#include "mcp/request_state.hpp"
#include "mcp/task_service.hpp"
#include "mcp/session.hpp"
#include "metrics/metrics.hpp"
#include "plugins/plugin_library.hpp"
#include "transport/http/http_server.hpp"
#include "transport/stdio_transport.hpp"

#include <redact_secrets.hpp>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

namespace airlock::host {
namespace {

constexpr std::chrono::milliseconds kShutdownGrace{5000};
// How long the stop waits, after calls were cancelled, for the threads that
// ran them. An isolated plugin's call has returned by then (its worker is
// killed once it ignores cancellation); an in-process one may never return.
constexpr std::chrono::milliseconds kAbandonGrace{3000};

// Ends a stop whose calls are answered. A call thread still inside an
// in-process plugin cannot be stopped, and the plugin cannot be unloaded
// under it: the process ends at once, with status 3 saying so.
// server_start and server_stop bracket every other record of a run.
// `routes`, when given, adds each chain's steps: a tool_call record names
// its chain only, so this is where a reader finds what the name stood for.
void audit_server(audit::Kind kind, std::string_view how, std::string outcome, bool failed = false,
                  const ToolRoutes* routes = nullptr) {
  if (!audit::enabled()) return;
  audit::Event event;
  event.kind = kind;
  event.outcome = std::move(outcome);
  event.failed = failed;
  event.subject = "airlock";
  event.detail["version"] = AIRLOCK_VERSION;
  if (!how.empty()) event.detail["transport"] = how;
  event.detail["pid"] = static_cast<std::int64_t>(::getpid());
  if (routes) {
    boost::json::object chains;
    for (const ToolRoute* route : routes->sorted()) {
      if (!route->chain || chains.contains(route->chain->name())) continue;
      boost::json::array steps;
      for (const auto* step : route->chain->steps()) steps.emplace_back(step->name);
      chains[route->chain->name()] = std::move(steps);
    }
    event.detail["chains"] = std::move(chains);
  }
  audit::record(std::move(event));
}

[[noreturn]] void abandon(const Loaded& loaded) {
  spdlog::error("a plugin call still ran {} ms after the stop began; exiting without it (status 3)",
                (kShutdownGrace + kAbandonGrace).count());
  audit_server(audit::Kind::server_stop, "", "abandoned a plugin call", true);
  if (auto* trail = loaded.trail.get()) trail->flush();
  spdlog::shutdown();
  std::fflush(nullptr);
  _exit(3);
}

int finish(Executor& executor, const Loaded& loaded) {
  if (!executor.shutdown(kAbandonGrace)) abandon(loaded);
  audit_server(audit::Kind::server_stop, "", "stopped");
  spdlog::info("bye");
  return 0;
}

// The host's one way out to the network, shared by every tool call; each
// call brings its own tool's policy.
Fetcher make_fetcher(const Config& config) {
  FetchSettings settings;
  settings.default_timeout = std::chrono::milliseconds(config.egress.timeout_ms);
  settings.default_max_response_bytes = config.egress.max_response_bytes;
  settings.max_redirects = config.egress.max_redirects;
  settings.user_agent = std::string("airlock/") + AIRLOCK_VERSION;
  return Fetcher(std::move(settings), Resolver(host_overrides(config.egress.hosts)));
}

// [audit] record_arguments: argument values pass redact-secrets' patterns
// first, the built-in ones and those its [plugin."airlock-redact-secrets"]
// table adds (or replaces, with builtin = false). Null when values are not
// recorded.
Result<std::unique_ptr<plugins::SecretRedactor>> argument_redactor(const Config& config) {
  if (!config.audit.enabled || !config.audit.record_arguments) return std::unique_ptr<plugins::SecretRedactor>();
  plugins::SecretRedactor::Options options;
  if (auto it = config.plugin_settings.find("airlock-redact-secrets"); it != config.plugin_settings.end()) {
    if (const auto* builtin = it->second.if_contains("builtin"); builtin && builtin->is_bool())
      options.builtin = builtin->get_bool();
    if (const auto* patterns = it->second.if_contains("patterns"); patterns && patterns->is_array())
      for (const auto& pattern : patterns->get_array())
        if (pattern.is_string()) options.patterns.emplace_back(pattern.get_string());
  }
  try {
    return std::make_unique<plugins::SecretRedactor>(options);
  } catch (const std::exception& e) {
    return Error{fmt::format("audit.record_arguments: the redact-secrets patterns: {}", e.what())};
  }
}

// One line per plugin, then one for how it serves: what an operator reads
// to know the server started as configured.
// The key that seals 2026-07-28 requestState: the configured one, shared
// by replicas, or one made for this process alone.
Result<RequestStateSealer> make_sealer(const Config& config) {
  const std::chrono::seconds ttl(config.server.request_state_ttl_s);
  if (const auto& file = config.server.request_state_key_file) return RequestStateSealer::from_file(*file, ttl);
  spdlog::debug("no [server] request_state_key_file: requestState is sealed with a key made at start, so a client's "
                "retry must reach this process");
  return RequestStateSealer::generated(ttl);
}

// The durable task store and its service; null when [tasks] enabled =
// false. A store that cannot be opened (a corrupt SQLite file) is an error
// at start; a PostgreSQL server that does not answer is not: task requests
// then get errors naming it, and everything else is served.
Result<std::unique_ptr<TaskService>> make_tasks(const Loaded& loaded, Executor& executor,
                                                const ToolCallRunner& runner) {
  const TasksConfig& tasks = loaded.config.tasks;
  if (!tasks.enabled) return std::unique_ptr<TaskService>();
  std::string location = tasks.store;
  if (location.empty()) {
    // The state directory: systemd's, else the XDG one.
    const auto env = [](const char* name) -> std::filesystem::path {
      const char* value = std::getenv(name);
      return value && *value ? std::filesystem::path(value) : std::filesystem::path();
    };
    std::filesystem::path dir = env("STATE_DIRECTORY");
    if (dir.empty()) dir = env("XDG_STATE_HOME").empty() ? std::filesystem::path() : env("XDG_STATE_HOME") / "airlock";
    if (dir.empty() && !env("HOME").empty()) dir = env("HOME") / ".local" / "state" / "airlock";
    if (dir.empty()) {
      spdlog::warn("tasks: off: no [tasks] store, and no state directory (STATE_DIRECTORY, XDG_STATE_HOME, HOME)");
      return std::unique_ptr<TaskService>();
    }
    location = (dir / "tasks.db").string();
  }
  auto store = open_task_store(location);
  if (!store) return store.error();
  TaskSettings settings{tasks.ttl_ms, tasks.poll_interval_ms, tasks.node_id};
  if (settings.node_id.empty()) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    settings.node_id = fmt::format("{}:{}", host, getpid());
  }
  spdlog::info("tasks: {} (node {})", (*store)->describe(), settings.node_id);
  auto service = std::make_unique<TaskService>(*loaded.routes, executor, runner, std::move(*store), std::move(settings));
  service->start();
  return service;
}

// Everything a session reads, besides what it is handed per call.
ServerState make_state(const Loaded& loaded, Executor& executor, DeadlineTimer& timer, Metrics* metrics,
                       const ToolCallRunner& runner, const RequestStateSealer& sealer) {
  ServerState state{loaded.config, *loaded.routes, executor, AIRLOCK_VERSION, build_tool_listing(*loaded.routes),
                    &timer, metrics, runner};
  state.sealer = &sealer;
  state.list_ttl_ms = loaded.config.server.list_ttl_ms;
  // Tokens that scope tools show each identity its own tools/list.
  for (const auto& token : loaded.config.http.tokens) state.private_lists = state.private_lists || !token.tools.empty();
  return state;
}

void announce(const Loaded& loaded, std::string_view how) {
  for (const auto& plugin : loaded.registry->plugins()) {
    std::string provides;
    for (const ToolRoute* route : loaded.routes->sorted())
      if (route->tool->owner == plugin) provides += (provides.empty() ? "tool " : ", tool ") + route->tool->name;
    for (const auto& s : loaded.registry->sanitizers())
      if (s.owner == plugin) provides += (provides.empty() ? "sanitizer " : ", sanitizer ") + s.name;
    spdlog::info("loaded {} ({} {}, {}): {}", plugin->file().string(), plugin->ctx().name, plugin->ctx().version,
                 abi_text(plugin->abi_version()), provides.empty() ? "nothing" : provides);
  }
  for (const ToolRoute* route : loaded.routes->sorted())
    spdlog::info("tool {}: chain {}, egress {}", route->tool->name, route->chain ? route->chain->name() : "none",
                 describe_egress(*route->egress));
  spdlog::info("serving {} tools over {} (MCP {}, {})", loaded.routes->sorted().size(), how, kProtocolVersions[0],
               kProtocolVersions[1]);
}

int serve_http(const Loaded& loaded, std::string_view listen) {
  auto address = http::parse_listen_address(listen);
  if (!address) {
    spdlog::error("{}", address.error().message);
    return 2;
  }
  std::vector<std::string> tools;
  for (const ToolRoute* route : loaded.routes->sorted()) tools.push_back(route->tool->name);
  std::vector<std::string> sanitizers;
  for (const auto& s : loaded.registry->sanitizers()) sanitizers.push_back(s.name);
  std::vector<std::string> plugins;
  for (const auto& plugin : loaded.registry->plugins()) plugins.push_back(plugin->ctx().name);
  Metrics metrics(std::move(tools), std::move(sanitizers), std::move(plugins));
  metrics.read_plugin_restarts([&loaded](std::string_view name) -> std::uint64_t {
    for (const auto& plugin : loaded.registry->plugins())
      if (plugin->ctx().name == name && plugin->isolated()) return plugin->isolated()->restarts();
    return 0;
  });
  if (auto* trail = loaded.trail.get()) trail->count_in(&metrics);
  struct Detach {
    audit::Trail* trail;
    ~Detach() {
      if (trail) trail->count_in(nullptr);
    }
  } detach{loaded.trail.get()};

  DeadlineTimer timer;
  const Fetcher fetcher = make_fetcher(loaded.config);
  const ToolCallRunner runner(fetcher);
  auto sealer = make_sealer(loaded.config);
  if (!sealer) {
    spdlog::error("{}", sealer.error().message);
    return 1;
  }
  Executor executor(loaded.config.server.workers, loaded.config.server.queue_capacity);
  auto tasks = make_tasks(loaded, executor, runner);
  if (!tasks) {
    spdlog::error("{}", tasks.error().message);
    return 1;
  }
  ServerState state = make_state(loaded, executor, timer, &metrics, runner, *sealer);
  state.tasks = tasks->get();
  {
    auto server = http::HttpServer::bind(state, *address, &metrics);
    if (!server) {
      spdlog::error("{}", server.error().message);
      return 2;
    }
    announce(loaded, (*server)->url());
    audit_server(audit::Kind::server_start, "http", "started", false, loaded.routes.get());
    (*server)->run(kAbandonGrace, [&loaded] { abandon(loaded); });
  }
  if (*tasks) (*tasks)->stop();
  return finish(executor, loaded);
}

// Over stdio, fds 0 and 1 are the protocol stream, and only the host may
// use them: a plugin's printf (or a JSON-RPC line it forges) would land
// between the host's messages, and a plugin reading stdin would eat the
// client's requests. So before any plugin loads, the transport gets a
// close-on-exec copy of each, which no child inherits, and `fd` becomes
// `replacement`: stderr for fd 1 (the log, where a plugin's stray output
// belongs), /dev/null for fd 0. -1 on failure.
int take_protocol_fd(int fd, int replacement) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (copy < 0 || ::dup2(replacement, fd) >= 0) return copy;
  const int err = errno;
  ::close(copy);
  errno = err;
  return -1;
}

// Gives `fd` back its stream (the config serves HTTP after all).
void give_back(int copy, int fd) {
  if (copy < 0) return;
  ::dup2(copy, fd);
  ::close(copy);
}

}  // namespace

int serve_command(const std::filesystem::path& config_file, const std::optional<std::string>& http_listen) {
  // Only the config, read together with loading the plugins, can say it
  // serves HTTP: so the stream is taken first and given back then.
  const int protocol_out = http_listen ? -1 : take_protocol_fd(STDOUT_FILENO, STDERR_FILENO);
  if (!http_listen && protocol_out < 0) {
    spdlog::error("stdout: cannot keep the protocol stream from plugins: {}", std::strerror(errno));
    return 1;
  }
  const int null_in = http_listen ? -1 : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int protocol_in = null_in < 0 ? -1 : take_protocol_fd(STDIN_FILENO, null_in);
  if (null_in >= 0) ::close(null_in);
  if (!http_listen && protocol_in < 0) {
    spdlog::error("stdin: cannot keep the protocol stream from plugins: {}", std::strerror(errno));
    return 1;
  }
  auto loaded = load_everything(config_file);
  if (!loaded) {
    spdlog::error("{}", loaded.error().message);
    return 1;
  }
  auto redactor = argument_redactor(loaded->config);
  if (!redactor) {
    spdlog::error("{}", redactor.error().message);
    return 1;
  }
  record_argument_values(redactor->get());
  struct Forget {
    ~Forget() { record_argument_values(nullptr); }
  } forget;
  const std::optional<std::string> listen = http_listen ? http_listen : loaded->config.http.listen;
  if (listen) {
    give_back(protocol_out, STDOUT_FILENO);  // not stdio after all
    give_back(protocol_in, STDIN_FILENO);
    return serve_http(*loaded, *listen);
  }
  announce(*loaded, "stdio");

  DeadlineTimer timer;
  const Fetcher fetcher = make_fetcher(loaded->config);
  const ToolCallRunner runner(fetcher);
  auto sealer = make_sealer(loaded->config);
  if (!sealer) {
    spdlog::error("{}", sealer.error().message);
    return 1;
  }
  Executor executor(loaded->config.server.workers, loaded->config.server.queue_capacity);
  auto tasks = make_tasks(*loaded, executor, runner);
  if (!tasks) {
    spdlog::error("{}", tasks.error().message);
    return 1;
  }
  ServerState state = make_state(*loaded, executor, timer, nullptr, runner, *sealer);
  state.tasks = tasks->get();
  StdioTransport transport(protocol_in, protocol_out, loaded->config.server.max_message_bytes, executor);
  audit_server(audit::Kind::server_start, "stdio", "started", false, loaded->routes.get());
  {
    Session session(state, [&transport](std::string message, Outbound where) {
      if (!message.empty()) transport.write(std::move(message), where.final);
    });
    transport.run(session);
    // Closing stdin is how a stdio client says it is done, not that it
    // stopped reading: calls in flight still get to answer, for a while.
    spdlog::info("stdin closed; finishing calls in flight");
    // A call that ignores its cancellation keeps a thread (a worker, or a
    // reading thread that ran it) and the session it uses: the process
    // ends without them.
    if (!session.close(kShutdownGrace, kAbandonGrace)) abandon(*loaded);
    transport.stop();
  }
  if (*tasks) (*tasks)->stop();
  return finish(executor, *loaded);
}

}  // namespace airlock::host
