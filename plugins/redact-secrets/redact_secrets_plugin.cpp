// The airlock.redact-secrets text sanitizer; the logic is in
// redact_secrets.hpp. Settings, all optional:
//
//   [plugin."airlock-redact-secrets"]
//   builtin = true                        # false: only the patterns below
//   patterns = ["ACME-[0-9]{8}", "..."]   # extra RE2 patterns
#include <airlock/airlock.hpp>

#include <memory>
#include <stdexcept>
#include <string>

#include "redact_secrets.hpp"

namespace {

using airlock::plugins::SecretRedactor;

constexpr std::string_view kTable = "[plugin.\"airlock-redact-secrets\"]";

[[noreturn]] void refuse(const std::string& what) { throw std::invalid_argument(std::string(kTable) + " " + what); }

SecretRedactor::Options options_from(const boost::json::object& config) {
  SecretRedactor::Options options;
  for (const auto& [key, value] : config) {
    if (key == "builtin") {
      if (!value.is_bool()) refuse("builtin must be true or false");
      options.builtin = value.get_bool();
    } else if (key == "patterns") {
      if (!value.is_array()) refuse("patterns must be an array of strings");
      for (const boost::json::value& p : value.get_array()) {
        if (!p.is_string()) refuse("patterns must be an array of strings");
        options.patterns.emplace_back(p.get_string());
      }
    } else {
      refuse("has an unknown key '" + std::string(key) + "'");
    }
  }
  return options;
}

}  // namespace

AIRLOCK_PLUGIN(plugin) {
  plugin.info("airlock-redact-secrets", "1.0.0", "replaces credentials with [REDACTED]");
  const SecretRedactor::Options options = options_from(plugin.config());
  std::shared_ptr<const SecretRedactor> redactor;
  try {
    redactor = std::make_shared<const SecretRedactor>(options);
  } catch (const std::invalid_argument& e) {
    refuse(e.what());
  }
  plugin.text_sanitizer({.name = "airlock.redact-secrets",
                         .description = "replaces AWS, GitHub, Slack and Google keys, bearer tokens, JWTs, private "
                                        "key blocks and configured RE2 patterns with [REDACTED]"},
                        [redactor](std::string_view text) { return (*redactor)(text); });
}
