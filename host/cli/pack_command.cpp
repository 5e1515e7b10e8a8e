#include "cli/pack_command.hpp"

#include "audit/audit_trail.hpp"
#include "cli/startup.hpp"
#include "config/host_config.hpp"
#include "packs/pack_install.hpp"
#include "packs/pack_open.hpp"
#include "packs/trust_keys.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;

// [trust] from the config (if any), plus --key values (a .pub file or the
// base64 line), plus --require-signed.
Result<TrustPolicy> trust_from(const std::optional<fs::path>& config_file, const std::vector<std::string>& keys,
                               bool require_signed) {
  TrustConfig trust;
  if (config_file) {
    auto config = load_config(*config_file);
    if (!config) return config.error();
    trust = config->trust;
  }
  auto policy = trust_policy(trust);
  if (!policy) return policy.error();
  for (const std::string& arg : keys) {
    std::string text = arg;
    std::error_code ec;
    if (fs::is_regular_file(arg, ec)) {
      std::ifstream in(arg, std::ios::binary);
      std::ostringstream s;
      s << in.rdbuf();
      text = s.str();
    }
    auto key = minisign::parse_public_key(text);
    if (!key) return Error{fmt::format("--key {}: {}", arg, key.error().message)};
    if (!policy->find(key->id)) policy->keys.push_back(*key);
  }
  policy->require_signed = policy->require_signed || require_signed;
  return policy;
}

void print_pack(const VerifiedPack& pack) {
  const PackManifest& m = pack.manifest;
  fmt::print("pack {} {} from {}\n", m.name, m.version, m.vendor);
  if (m.description) fmt::print("  {}\n", *m.description);
  fmt::print("abi {}\n", m.abi.value_or("?"));
  const PackOrigin origin = pack.origin();
  fmt::print("signature: {}\n", pack.signer ? "verified, key " + origin.signer : origin.signer);
  for (const auto& o : pack.objects) {
    fmt::print("object {}  {} bytes  abi {}\n  sha256 {}\n", o.entry.file, o.entry.size, o.entry.abi,
               sha256_hex(o.entry.sha256));
    if (!o.entry.tools.empty()) fmt::print("  tools: {}\n", fmt::join(o.entry.tools, ", "));
    if (!o.entry.sanitizers.empty()) fmt::print("  sanitizers: {}\n", fmt::join(o.entry.sanitizers, ", "));
  }
}

}  // namespace

PackCommand::PackCommand(CLI::App& app) : pack_(&app) {
  pack_->require_subcommand(1);

  build_ = pack_->add_subcommand("build", "Make a pack (directory or .tar.gz) from SRC/pack.toml and its objects");
  build_->add_option("source", build_args_.source, "Directory with pack.toml and the .so files")
      ->required()
      ->check(CLI::ExistingDirectory);
  build_->add_option("-o,--out", build_args_.out, "Output directory, or a .tar.gz")->required();
  build_->add_option("--sign", build_args_.secret_key,
                     "minisign secret key (minisign -G); an encrypted one reads AIRLOCK_PACK_PASSWORD")
      ->check(CLI::ExistingFile);

  auto trust_options = [this](CLI::App* sub) {
    sub->add_option("-c,--config", config_, "airlock.toml whose [trust] to use")->check(CLI::ExistingFile);
    sub->add_option("--key", keys_, "Trusted minisign public key: a .pub file or the base64 line (repeatable)");
    sub->add_flag("--require-signed", require_signed_, "Refuse a pack not signed by a trusted key");
  };
  verify_ = pack_->add_subcommand("verify", "Check a pack's signature and digests (exit 1 when refused)");
  verify_->add_option("pack", pack_path_, "Pack directory or .tar.gz")->required();
  trust_options(verify_);

  install_ = pack_->add_subcommand("install", "Verify a pack, then install it into DIR/<name>/ atomically");
  install_->add_option("pack", pack_path_, "Pack directory or .tar.gz")->required();
  install_->add_option("--dir", install_dir_, "Plugin directory to install into (default /var/lib/airlock/packs)");
  trust_options(install_);
}

int PackCommand::run() const {
  if (build_->parsed()) {
    auto built = build_pack(build_args_);
    if (!built) {
      fmt::print(stderr, "airlock: {}\n", built.error().message);
      return 1;
    }
    fmt::print("built {}\n", built->string());
    return 0;
  }
  if (verify_->parsed()) return verify();
  if (install_->parsed()) return install();
  return 2;
}

namespace {

void audit_pack(audit::Kind kind, std::string subject, std::string reason, std::string signer = {},
                std::string installed_at = {}) {
  if (!audit::enabled()) return;
  audit::Event event;
  event.kind = kind;
  event.failed = kind == audit::Kind::pack_refused;
  event.outcome = kind == audit::Kind::pack_refused ? "refused" : kind == audit::Kind::pack_installed ? "installed"
                                                                                                       : "verified";
  event.subject = std::move(subject);
  event.reason = std::move(reason);
  if (!signer.empty()) event.detail["signer"] = std::move(signer);
  if (!installed_at.empty()) event.detail["path"] = std::move(installed_at);
  audit::record(std::move(event));
}

}  // namespace

std::optional<VerifiedPack> PackCommand::verified(int& code) const {
  auto trust = trust_from(config_, keys_, require_signed_);
  if (!trust) {
    fmt::print(stderr, "airlock: {}\n", trust.error().message);
    code = 2;
    return std::nullopt;
  }
  std::error_code ec;
  if (!fs::exists(pack_path_, ec)) {
    fmt::print(stderr, "airlock: {}: no such file or directory\n", pack_path_.string());
    code = 2;
    return std::nullopt;
  }
  auto pack = verify_pack(pack_path_, *trust);
  if (!pack) {
    audit_pack(audit::Kind::pack_refused, pack_path_.string(), pack.error().message);
    fmt::print(stderr, "airlock: {}\n", pack.error().message);
    code = 1;
    return std::nullopt;
  }
  audit_pack(audit::Kind::pack_verified, pack->manifest.name, {}, pack->origin().signer);
  for (const auto& w : pack->warnings) fmt::print(stderr, "airlock: warning: {}\n", w);
  return std::move(*pack);
}

int PackCommand::verify() const {
  int code = 0;
  auto pack = verified(code);
  if (!pack) return code;
  print_pack(*pack);
  return 0;
}

int PackCommand::install() const {
  // With a config that has [audit], what is installed (or refused) is
  // recorded under this command's own chain.
  InstalledTrail trail;
  if (config_) {
    if (auto config = load_config(*config_)) {
      auto opened = open_audit_trail(*config, ".pack");
      if (!opened) {
        fmt::print(stderr, "airlock: {}\n", opened.error().message);
        return 2;
      }
      trail = std::move(*opened);
    }
  }
  int code = 0;
  auto pack = verified(code);
  if (!pack) return code;
  auto installed = install_pack(*pack, install_dir_);
  if (!installed) {
    audit_pack(audit::Kind::pack_refused, pack->manifest.name, installed.error().message);
    fmt::print(stderr, "airlock: {}\n", installed.error().message);
    return 1;
  }
  audit_pack(audit::Kind::pack_installed, pack->manifest.name, {}, pack->origin().signer, installed->string());
  fmt::print("installed {} {} into {}\n", pack->manifest.name, pack->manifest.version, installed->string());
  if (const std::string snippet = suggested_config(pack->manifest); !snippet.empty()) fmt::print("\n{}", snippet);
  return 0;
}

}  // namespace airlock::host
