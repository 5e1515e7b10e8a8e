// The `airlock` command: serve MCP, or list what a config loads.
#include "cli/commands.hpp"
#include "cli/startup.hpp"

#include <CLI/CLI.hpp>

#include <csignal>
#include <malloc.h>

int main(int argc, char** argv) {
  // A client that closes its end mid-write must not kill the server;
  // write() reports EPIPE instead and the transport stops answering.
  std::signal(SIGPIPE, SIG_IGN);
  // Tool results are allocated on one thread and freed on another, often
  // hundreds of KiB at a time. glibc's defaults give each such buffer its own
  // mmap and trim freed arenas eagerly, which under load costs more in page
  // faults than the work itself; keep freed memory for reuse instead.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  airlock::host::init_logging();

  CLI::App app{"airlock — an MCP server host for sanitized tool plugins", "airlock"};
  app.set_version_flag("--version", std::string("airlock ") + AIRLOCK_VERSION);
  app.require_subcommand(1);

  std::string config;
  std::optional<std::string> http;
  auto* serve = app.add_subcommand("serve", "Serve the configured tools over MCP (stdio by default)");
  serve->add_option("-c,--config", config, "airlock.toml to serve")->required()->check(CLI::ExistingFile);
  serve->add_option("--http", http, "Serve Streamable HTTP at HOST:PORT/mcp instead of stdio");

  std::string list_config;
  auto* list = app.add_subcommand("list", "List plugins, tools, sanitizers and each tool's chain");
  list->add_option("-c,--config", list_config, "airlock.toml to read")->required()->check(CLI::ExistingFile);

  CLI11_PARSE(app, argc, argv);
  if (*serve) return airlock::host::serve_command(config, http);
  if (*list) return airlock::host::list_command(list_config);
  return 2;
}
