// The `airlock` command: serve MCP, list what a config loads, or check plugins.
#include "cli/commands.hpp"
#include "cli/startup.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <thread>
#include <vector>

#include <malloc.h>
#include <unistd.h>

namespace {

// `airlock pack ...` is the airlock-pack binary beside this one (see
// cli/pack_main.cpp for why it is separate). Returns only when it cannot run.
int run_pack_binary(int argc, char** argv) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path binary = (ec ? std::filesystem::path(argv[0]) : self).parent_path() / "airlock-pack";
  std::vector<char*> args{argv[0]};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execv(binary.c_str(), args.data());
  std::fprintf(stderr, "airlock: cannot run %s for `airlock pack`: %s\n", binary.c_str(), std::strerror(errno));
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "pack") return run_pack_binary(argc, argv);
  // A client that closes its end mid-write must not kill the server;
  // write() reports EPIPE instead and the transport stops answering.
  std::signal(SIGPIPE, SIG_IGN);
  // Tool results are allocated on one thread and freed on another, often
  // hundreds of KiB at a time. glibc's defaults give each such buffer its own
  // mmap and trim freed arenas eagerly, which under load costs more in page
  // faults than the work itself; keep freed memory for reuse instead.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  // Memory kept for reuse is kept per arena, and glibc makes up to eight
  // arenas per core: each thread that passes large results through then
  // holds its own high-water mark. More arenas than cores buy no
  // parallelism (only that many threads allocate at once); at 256 KiB x 32
  // calls in flight they cost a fifth of the peak RSS.
  mallopt(M_ARENA_MAX, static_cast<int>(std::max(2u, std::thread::hardware_concurrency())));
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

  airlock::host::CheckCommandArgs check_args;
  auto* check = app.add_subcommand("check", "Hold plugins to the sanitizer and tool contract (exit 1 on a violation)");
  check->add_option("plugins", check_args.plugins, "Plugin files (.so) to check")->required()->check(CLI::ExistingFile);
  check->add_option("-c,--config", check_args.config_file, "airlock.toml whose [plugin.\"<name>\"] tables the plugins get")
      ->check(CLI::ExistingFile);
  check->add_flag("--json", check_args.json, "Print the report as JSON");
  check->add_option("--seed", check_args.seed, "Seed of the generated corpus and schedules (default 1)");
  check->add_option("--corpus", check_args.corpus_dir, "Directory of extra inputs, one per file (*.json: whole results)")
      ->check(CLI::ExistingDirectory);
  check->add_flag("--fast", check_args.fast, "Only the fast subset that [plugins] require_check runs at start");
  check->add_flag("--in-process", check_args.in_process,
                  "Load the plugins into this process, not a confined worker as the server would");

  airlock::host::PinCommandArgs pin_args;
  auto* pin = app.add_subcommand("pin", "Hold each tool's definition to its pin; record new tools (exit 1: a change is left)");
  pin->add_option("-c,--config", pin_args.config_file, "airlock.toml whose [pinning] file to use")
      ->required()
      ->check(CLI::ExistingFile);
  pin->add_option("--accept", pin_args.accept, "Tool whose changed definition becomes its pin (repeatable)");
  pin->add_flag("--accept-all", pin_args.accept_all, "Accept every changed definition");

  auto* audit = app.add_subcommand("audit", "Verify an audit trail, or make the key that signs its checkpoints");
  audit->require_subcommand(1);
  airlock::host::AuditVerifyArgs verify_args;
  auto* audit_verify =
      audit->add_subcommand("verify", "Check the chain and checkpoint signatures (exit 1: a record does not verify)");
  audit_verify->add_option("files", verify_args.files, "Trail files, oldest first (rotated ones before the current)")
      ->required();
  audit_verify->add_option("--key", verify_args.key, "KEYFILE.pub: every checkpoint must be signed by this key");
  audit_verify->add_flag("--json", verify_args.json, "Print the report as JSON");
  std::filesystem::path keygen_file;
  auto* audit_keygen = audit->add_subcommand("keygen", "Write a new Ed25519 checkpoint key KEYFILE and KEYFILE.pub");
  audit_keygen->add_option("keyfile", keygen_file, "Where to write the signing key (never overwritten)")->required();

  // Never parsed here (main runs airlock-pack first); listed for --help.
  app.add_subcommand("pack", "Build, verify and install signed tool packs (see airlock pack --help)")
      ->allow_extras();

  // Usage errors exit 2, as the README promises, whatever CLI11's own code
  // for the kind of error; --help and --version exit 0.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (*serve) return airlock::host::serve_command(config, http);
  if (*list) return airlock::host::list_command(list_config);
  if (*check) return airlock::host::check_command(check_args);
  if (*pin) return airlock::host::pin_command(pin_args);
  if (*audit_verify) return airlock::host::audit_verify_command(verify_args);
  if (*audit_keygen) return airlock::host::audit_keygen_command(keygen_file);
  return 2;
}
