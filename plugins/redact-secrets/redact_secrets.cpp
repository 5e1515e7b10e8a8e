// The airlock.redact-secrets patterns and their one-pass search; the rules
// are in redact_secrets.hpp.
#include "redact_secrets.hpp"

#include "literal_prefilter.hpp"

#include <re2/re2.h>

#include <array>
#include <cstddef>
#include <stdexcept>

namespace airlock::plugins {

namespace {

// Each with the reason for its shape where it is not the obvious one.
constexpr std::array<SecretPattern, 9> kBuiltin = {{
    // Long-term (AKIA) and temporary (ASIA) access key ids.
    {"aws-access-key-id", R"re((?:AKIA|ASIA)[0-9A-Z]{16})re"},
    // The whole assignment goes, key name included, so that no `key = [REDACTED]`
    // is left for the value to match again. Env files shout, JSON and YAML
    // quote; the value stops at white space or a quote, so `"key": "v"}`
    // keeps its closing brace.
    {"aws-secret-access-key", R"re((?i:aws_secret_access_key)["']?\s*[=:]\s*["']?[^\s"']+["']?)re"},
    {"github-token", R"re(gh[pousr]_[A-Za-z0-9]{36,})re"},
    {"github-fine-grained-token", R"re(github_pat_[A-Za-z0-9_]{22,})re"},
    {"slack-token", R"re(xox[abprs]-[A-Za-z0-9-]{10,})re"},
    {"google-api-key", R"re(AIza[0-9A-Za-z_-]{35})re"},
    // At least 8 token characters, so that prose ("Bearer bonds") survives;
    // `[` is not a token character, so `Bearer [REDACTED]` never matches.
    {"bearer-token", R"re(Bearer\s+[A-Za-z0-9._~+/-]{8,}=*)re"},
    // A block whose END line is missing (a leaf cut short) is redacted to the
    // end of the text rather than left half-visible.
    {"private-key-block",
     R"re(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z))re"},
    // header.payload.signature; the signature is empty for alg "none".
    {"jwt", R"re(eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)re"},
}};

// Room for many operator patterns; the DFA caches of a big alternation fall
// back to RE2's NFA (still linear) rather than fail when this fills up.
constexpr int kMaxMem = 32 << 20;

// Latin-1: every byte is one character, so a leaf's invalid UTF-8 cannot
// cut a match short (in UTF-8 mode no class or `.` matches an invalid byte,
// and a private key with one stray byte in it would stay whole).
RE2::Options re2_options() {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  options.set_max_mem(kMaxMem);
  return options;
}

// True if `re` matches the empty string in any context RE2 tells apart: the
// empty-width assertions (^ $ \A \z \b \B, multi-line or not) only look at
// whether the neighbours are the text's edge, a newline, a word character or
// another character, and these 16 texts put every pair of those around the
// position tried.
bool can_match_empty(const RE2& re) {
  constexpr std::array<std::string_view, 4> kSides = {"", "a", " ", "\n"};
  for (std::string_view before : kSides) {
    for (std::string_view after : kSides) {
      const std::string text = std::string(before) + std::string(after);
      if (re.Match(text, before.size(), before.size(), RE2::ANCHOR_BOTH, nullptr, 0)) return true;
    }
  }
  return false;
}

std::string indexed(std::size_t i) { return "patterns[" + std::to_string(i) + "]"; }

// The alternation of `sources`, each in a non-capturing group.
std::string alternation(const std::vector<std::string_view>& sources) {
  std::string combined;
  for (std::string_view source : sources) {
    if (!combined.empty()) combined += '|';
    combined += "(?:";
    combined += source;
    combined += ')';
  }
  return combined;
}

}  // namespace

std::span<const SecretPattern> builtin_secret_patterns() noexcept { return kBuiltin; }

SecretRedactor::SecretRedactor(const Options& options) {
  const RE2::Options re2 = re2_options();
  std::vector<std::string_view> sources;
  if (options.builtin)
    for (const SecretPattern& p : kBuiltin) sources.push_back(p.regex);

  for (std::size_t i = 0; i < options.patterns.size(); ++i) {
    const RE2 re(options.patterns[i], re2);
    if (!re.ok()) throw std::invalid_argument(indexed(i) + ": invalid RE2 pattern: " + re.error());
    if (can_match_empty(re))
      throw std::invalid_argument(indexed(i) + ": can match the empty string, which cannot be redacted");
    if (RE2::PartialMatch(kRedactionMarker, re))
      throw std::invalid_argument(indexed(i) + ": matches the marker " + std::string(kRedactionMarker) +
                                  ", so a second pass would redact the redaction");
    sources.push_back(options.patterns[i]);
  }
  if (sources.empty())
    throw std::invalid_argument("builtin = false and no patterns: there is nothing to redact");

  auto combined = std::make_unique<const RE2>(alternation(sources), re2);
  if (!combined->ok()) {
    // A pattern can be valid alone and not inside a group: `\Qabc` quotes
    // the closing parenthesis. Name it if it is one of the operator's.
    for (std::size_t i = 0; i < options.patterns.size(); ++i) {
      const RE2 grouped(alternation({options.patterns[i]}), re2);
      if (!grouped.ok())
        throw std::invalid_argument(indexed(i) + ": cannot be combined with the other patterns: " +
                                    grouped.error());
    }
    throw std::invalid_argument("patterns: too large for RE2 together: " + combined->error());
  }
  combined_ = std::move(combined);
  if (options.prefilter) {
    auto prefilter = std::make_unique<const LiteralPrefilter>(sources, re2);
    if (prefilter->active()) prefilter_ = std::move(prefilter);
  }
}

bool SecretRedactor::prefiltered() const noexcept { return prefilter_ != nullptr; }

SecretRedactor::~SecretRedactor() = default;
SecretRedactor::SecretRedactor(SecretRedactor&&) noexcept = default;
SecretRedactor& SecretRedactor::operator=(SecretRedactor&&) noexcept = default;

std::optional<std::string> SecretRedactor::operator()(std::string_view text) const {
  if (prefilter_ && !prefilter_->may_match(text)) return std::nullopt;
  const re2::StringPiece input(text.data(), text.size());
  re2::StringPiece match;
  std::string out;
  bool redacted = false;
  std::size_t copied = 0;  // text[0, copied) is in `out` already
  std::size_t from = 0;    // where the next search starts
  while (from <= text.size() && combined_->Match(input, from, text.size(), RE2::UNANCHORED, &match, 1)) {
    const auto start = static_cast<std::size_t>(match.data() - input.data());
    const std::size_t end = start + match.size();
    if (end == start) {  // refused at construction; never loop on it regardless
      from = start + 1;
      continue;
    }
    out.append(text.substr(copied, start - copied));
    out.append(kRedactionMarker);
    redacted = true;
    copied = from = end;
  }
  if (!redacted) return std::nullopt;
  out.append(text.substr(copied));
  return out;
}

}  // namespace airlock::plugins
