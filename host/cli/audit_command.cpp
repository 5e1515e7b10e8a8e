// `airlock audit`: verify a trail's chain and signatures, and make the key
// that signs its checkpoints.
#include "cli/commands.hpp"

#include "audit/audit_verify.hpp"
#include "audit/checkpoint_signer.hpp"
#include "util/json_text.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace airlock::host {

int audit_verify_command(const AuditVerifyArgs& args) {
  audit::VerifyOptions options;
  if (args.key) {
    auto key = audit::read_public_key(*args.key);
    if (!key) {
      fmt::print(stderr, "airlock: {}\n", key.error().message);
      return 2;
    }
    options.key = *key;
  }
  auto report = audit::verify_trail(args.files, options);
  if (!report) {
    fmt::print(stderr, "airlock: {}\n", report.error().message);
    return 2;
  }
  if (args.json)
    fmt::print("{}\n", to_json(audit::report_json(*report)));
  else
    fmt::print("{}", audit::render_report(*report));
  return report->failure ? 1 : 0;
}

int audit_keygen_command(const std::filesystem::path& key_file) {
  auto public_key = audit::generate_signing_key(key_file);
  if (!public_key) {
    fmt::print(stderr, "airlock: {}\n", public_key.error().message);
    return 2;
  }
  fmt::print("{}\n", *public_key);
  fmt::print(stderr, "wrote {} (the signing key: [audit] signing_key_file) and {}.pub (for `airlock audit verify "
                     "--key`)\n",
             key_file.string(), key_file.string());
  return 0;
}

}  // namespace airlock::host
