#include "auth/oauth_authenticator.hpp"

#include "config/host_config.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace airlock::host {
namespace {

using namespace std::chrono_literals;

// A verified token is trusted again without a signature check for at most
// this long (and never past its exp): a key the issuer withdraws stops
// working within it.
constexpr auto kRememberFor = 60s;
constexpr std::size_t kMaxRemembered = 4096;

// A claim as a log and a session key may hold it: printable ASCII, the rest
// (and '%') percent-escaped, cut at 128 bytes.
std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 128)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte > 0x20 && byte < 0x7f && c != '%') {
      out.push_back(c);
    } else {
      out += fmt::format("%{:02X}", byte);
    }
  }
  return out;
}

std::string_view without_scheme(std::string_view url) {
  const auto start = url.find("://");
  return start == std::string_view::npos ? url : url.substr(start + 3);
}

FetchSettings fetch_settings(const OAuthConfig& config) {
  FetchSettings settings;
  settings.default_timeout = std::chrono::milliseconds(config.fetch_timeout_ms);
  settings.max_redirects = 0;  // metadata and keys are where the issuer says, not elsewhere
  return settings;
}

}  // namespace

OAuthAuthenticator::OAuthAuthenticator(const Config& config)
    : config_(config.oauth), fetcher_(fetch_settings(config.oauth), Resolver(host_overrides(config.egress.hosts))) {
  rules_.issuers = config_.authorization_servers;
  rules_.algorithms = config_.algorithms;
  rules_.leeway = std::chrono::seconds(config_.leeway_s);
  const IssuerKeys::Settings settings{std::chrono::seconds(config_.jwks_refresh_min_s),
                                      std::chrono::milliseconds(config_.fetch_timeout_ms), config_.fetch_addresses};
  for (const auto& issuer : config_.authorization_servers)
    issuers_.push_back(std::make_unique<IssuerKeys>(issuer, fetcher_, settings));
}

OAuthAuthenticator::~OAuthAuthenticator() = default;

void OAuthAuthenticator::prefetch() const {
  for (const auto& issuer : issuers_) issuer->keys_for({});
}

std::shared_ptr<const KeySet> OAuthAuthenticator::keys_of(std::string_view issuer, std::string_view kid) const {
  for (const auto& keys : issuers_)
    if (keys->issuer() == issuer) return keys->keys_for(kid);
  return nullptr;
}

OAuthAuthenticator::Outcome OAuthAuthenticator::authenticate(std::string_view token, std::string_view resource) const {
  const Sha256Digest digest = sha256(token);
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(remembered_mutex_);
    if (const auto it = remembered_.find(digest); it != remembered_.end()) {
      if (it->second.audience == resource && now < it->second.until) return {it->second.identity, {}};
      if (now >= it->second.until) remembered_.erase(it);
    }
  }

  TokenRules rules = rules_;
  rules.audience = std::string(resource);
  const auto verified = verify_access_token(
      token, rules, [this](std::string_view issuer, std::string_view kid) { return keys_of(issuer, kid); },
      std::chrono::system_clock::now());
  if (!verified) return {nullptr, verified.error().message};

  auto identity = identity_for(*verified);
  const auto left = verified->expires + rules.leeway - std::chrono::system_clock::now();
  const auto until = now + std::min<std::chrono::steady_clock::duration>(
                               kRememberFor, std::chrono::duration_cast<std::chrono::steady_clock::duration>(left));
  std::lock_guard lock(remembered_mutex_);
  if (remembered_.size() >= kMaxRemembered) {
    std::erase_if(remembered_, [now](const auto& entry) { return now >= entry.second.until; });
    if (remembered_.size() >= kMaxRemembered) remembered_.clear();
  }
  remembered_[digest] = Remembered{identity, std::string(resource), until};
  return {std::move(identity), {}};
}

std::shared_ptr<const Identity> OAuthAuthenticator::identity_for(const AccessToken& token) const {
  auto identity = std::make_shared<Identity>();
  identity->name = "oauth:" + printable(token.subject);
  if (config_.authorization_servers.size() > 1) identity->name += "@" + printable(without_scheme(token.issuer));
  identity->client = printable(token.client_id);
  identity->oauth = true;
  identity->tools.everything = identity->resources.everything = identity->prompts.everything = false;
  const auto add = [](Grant& grant, const std::vector<std::string>& globs) {
    for (const auto& glob : globs)
      if (std::find(grant.globs.begin(), grant.globs.end(), glob) == grant.globs.end()) grant.globs.push_back(glob);
  };
  for (const auto& scope : token.scopes) {
    const auto granted = config_.scopes.find(scope);
    if (granted == config_.scopes.end()) continue;
    add(identity->tools, granted->second.tools);
    add(identity->resources, granted->second.resources);
    add(identity->prompts, granted->second.prompts);
  }
  return identity;
}

std::string OAuthAuthenticator::scopes_granting(GrantKind kind, std::string_view name) const {
  std::string scopes;
  for (const auto& [scope, grant] : config_.scopes) {
    const auto& globs = kind == GrantKind::tool ? grant.tools : kind == GrantKind::resource ? grant.resources
                                                                                           : grant.prompts;
    if (std::none_of(globs.begin(), globs.end(), [name](const std::string& glob) { return glob_match(glob, name); }))
      continue;
    if (!scopes.empty()) scopes += ' ';
    scopes += scope;
  }
  return scopes;
}

}  // namespace airlock::host
