// redact_secrets.hpp — the core of the airlock.redact-secrets sanitizer:
// replaces every credential-looking match in a string leaf with the fixed
// marker [REDACTED].
//
// MATCHING. The built-in patterns (below) and the operator's patterns are
// compiled once, as one RE2 alternation `(?:p0)|(?:p1)|…`, built-ins first.
// RE2 matches in time linear in the text, whatever the pattern, so no pattern
// and no input can stall a worker (no ReDoS). A leaf is searched in one pass,
// left to right: at the leftmost position where any pattern matches, the
// first pattern that matches there wins (RE2's leftmost-first), its whole
// match is replaced by the marker, and the search resumes after it.
//
// BYTES, NOT CHARACTERS. Patterns and text are read byte-wise (RE2's Latin-1
// mode), because tool output is not guaranteed to be UTF-8 and in UTF-8 mode
// an invalid byte matches nothing, not even `.` or `\S`: one stray byte would
// let the rest of a secret through. A UTF-8 literal in a pattern (`é`) still
// matches its own bytes; but `.` is one byte, and a class holds bytes, so
// write a non-ASCII alternative as `(?:é|è)` rather than `[éè]`.
//
// BUILT-IN PATTERNS (exact regexes in redact_secrets.cpp, also returned by
// builtin_secret_patterns()), in priority order:
//   aws-access-key-id          AKIA or ASIA and 16 of [0-9A-Z]
//   aws-secret-access-key      `aws_secret_access_key` in any case, `=` or
//                              `:`, and the value up to white space or a
//                              quote; the key name goes too
//   github-token               gh[pousr]_ and 36 or more letters and digits
//   github-fine-grained-token  github_pat_ and 22 or more [A-Za-z0-9_]
//   slack-token                xox[abprs]- and 10 or more [A-Za-z0-9-]
//   google-api-key             AIza and 35 of [0-9A-Za-z_-]
//   bearer-token               `Bearer`, white space, 8 or more token
//                              characters [A-Za-z0-9._~+/-] and any `=`
//   private-key-block          -----BEGIN … PRIVATE KEY----- through its END
//                              line, or to the end of the text without one
//   jwt                        eyJ….eyJ….signature (the signature may be empty)
// `builtin = false` in the plugin's table leaves only the operator's patterns.
//
// SPEED. Before searching a leaf, the redactor asks a LiteralPrefilter
// (literal_prefilter.hpp) whether the leaf holds any literal a match needs;
// most leaves hold none and are left as they are without an RE2 search.
//
// IDEMPOTENCE. Every pattern is refused at compile time if it can match the
// empty string (in any context RE2 distinguishes) or can match anywhere in
// the marker itself, so a redacted leaf's markers are never matched again.
// The built-in patterns also never match across a marker: only the AWS
// secret pattern (its value) and the private-key pattern (`(?s:.*?)`) can
// contain `[`, and both begin with a literal that, wherever the first pass
// left it, either matched there already or cannot match on any later pass
// (the private-key pattern runs to the end of the text when its END line is
// missing). An operator's pattern should keep to the same
// rule: one that can match text around a marker (`D\]x`) can break
// idempotence, which the checks above cannot rule out in general.
//
// Redaction only ever replaces a match with a fixed marker: nothing is
// decoded or rebuilt, so no new destination can come out of it.
#ifndef AIRLOCK_PLUGINS_REDACT_SECRETS_HPP
#define AIRLOCK_PLUGINS_REDACT_SECRETS_HPP

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace airlock::plugins {

class LiteralPrefilter;

inline constexpr std::string_view kRedactionMarker = "[REDACTED]";

struct SecretPattern {
  std::string_view name;
  std::string_view regex;  // RE2 syntax
};

// The built-in set, in match priority order.
std::span<const SecretPattern> builtin_secret_patterns() noexcept;

// Compiled patterns, immutable once built: operator() is const and safe to
// call from any number of threads at once (RE2 is).
class SecretRedactor {
 public:
  struct Options {
    bool builtin = true;                // include builtin_secret_patterns()
    std::vector<std::string> patterns;  // the operator's, RE2 syntax
    // Skip the search of a leaf that holds none of the literals a match
    // needs. It changes no answer, only the time; false always searches
    // (the fuzz target compares the two).
    bool prefilter = true;
  };

  // Throws std::invalid_argument with a message that names the offending
  // pattern by its index in `patterns` ("patterns[2]: invalid RE2 pattern:
  // missing ): (abc"), but never quotes a whole pattern (it may be a literal
  // secret); or that says there is nothing to redact.
  explicit SecretRedactor(const Options& options);
  ~SecretRedactor();
  SecretRedactor(SecretRedactor&&) noexcept;
  SecretRedactor& operator=(SecretRedactor&&) noexcept;
  SecretRedactor(const SecretRedactor&) = delete;
  SecretRedactor& operator=(const SecretRedactor&) = delete;

  // `text` with every match replaced by kRedactionMarker, or nullopt when
  // nothing matches.
  std::optional<std::string> operator()(std::string_view text) const;

  // Whether the prefilter can rule texts out at all (a pattern that needs
  // no literal leaves it inactive).
  bool prefiltered() const noexcept;

 private:
  std::unique_ptr<const re2::RE2> combined_;
  std::unique_ptr<const LiteralPrefilter> prefilter_;  // null: always search
};

}  // namespace airlock::plugins

#endif  // AIRLOCK_PLUGINS_REDACT_SECRETS_HPP
