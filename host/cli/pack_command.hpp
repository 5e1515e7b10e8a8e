// `airlock pack build|verify|install`: the subcommands and their options, on
// the app of the airlock-pack binary (pack_main.cpp), which `airlock pack`
// runs.
#pragma once

#include "cli/pack_build.hpp"
#include "packs/pack_verify.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace airlock::host {

class PackCommand {
 public:
  // Adds build, verify and install to `app`, which then needs one of them.
  explicit PackCommand(CLI::App& app);

  // The exit code: 0 done; 1 the pack was refused (or the build failed);
  // 2 a usage or config error.
  int run() const;

 private:
  // Trust, then the pack verified: what verify and install both start
  // with. On a refusal, says why on stderr and sets `code` (1 refused, 2
  // usage or config).
  std::optional<VerifiedPack> verified(int& code) const;
  int verify() const;
  int install() const;

  CLI::App* pack_ = nullptr;
  CLI::App* build_ = nullptr;
  CLI::App* verify_ = nullptr;
  CLI::App* install_ = nullptr;
  PackBuildArgs build_args_;
  std::filesystem::path pack_path_;
  std::optional<std::filesystem::path> config_;
  std::vector<std::string> keys_;
  bool require_signed_ = false;
  std::filesystem::path install_dir_ = "/var/lib/airlock/packs";
};

}  // namespace airlock::host
