// The subcommands of the `airlock` command line; each returns the exit code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace airlock::host {

// `airlock serve`: MCP over stdio (or, later, Streamable HTTP).
int serve_command(const std::filesystem::path& config_file, const std::optional<std::string>& http_listen);

// `airlock list`: what is loaded and how every tool is bound.
int list_command(const std::filesystem::path& config_file);

struct CheckCommandArgs {
  std::vector<std::filesystem::path> plugins;
  std::optional<std::filesystem::path> config_file;  // [plugin."<name>"] tables, sanitizer_timeout_ms
  std::optional<std::filesystem::path> corpus_dir;   // operator corpus: one item per file
  std::uint64_t seed = 1;
  bool json = false;
  bool fast = false;  // only the load-time subset (what require_check runs)
  bool in_process = false;  // load into this process rather than a confined worker
};

// `airlock check`: the contract checks on plugin files. 0: all passed; 1: a
// violation or a plugin that does not load; 2: a bad config or corpus.
int check_command(const CheckCommandArgs& args);

struct PinCommandArgs {
  std::filesystem::path config_file;
  std::vector<std::string> accept;  // tools whose changed definition becomes their pin
  bool accept_all = false;
};

// `airlock pin`: each tool against its pin; records tools never seen and the
// accepted changes. 0: nothing changed is left unaccepted; 1: something is;
// 2: a bad config, pin file or tool name.
int pin_command(const PinCommandArgs& args);

struct AuditVerifyArgs {
  std::vector<std::filesystem::path> files;  // in order: the oldest rotated file first
  std::optional<std::filesystem::path> key;  // KEYFILE.pub: every checkpoint must carry its signature
  bool json = false;
};

// `airlock audit verify`: the trail's chain and checkpoint signatures. 0:
// verified; 1: a record does not verify; 2: an unreadable file or a bad key.
int audit_verify_command(const AuditVerifyArgs& args);

// `airlock audit keygen KEYFILE`: a new Ed25519 checkpoint key (KEYFILE, mode
// 0600, never overwritten) and KEYFILE.pub; prints the public key. 0 or 2.
int audit_keygen_command(const std::filesystem::path& key_file);

}  // namespace airlock::host
