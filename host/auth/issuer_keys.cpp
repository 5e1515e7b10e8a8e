#include "auth/issuer_keys.hpp"

#include "egress/egress_url.hpp"

#include <boost/json/parse.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace airlock::host {
namespace json = boost::json;
namespace {

using namespace std::chrono_literals;

// Metadata and key sets are a few KiB; this bounds what a hostile server can make airlock hold.
constexpr std::uint64_t kMaxDocumentBytes = 1u << 20;
constexpr auto kRetryWithoutKeys = 2s;

// "scheme://host:port" of an issuer, as an egress rule: the operator named
// this server, so its own address is granted even when it is loopback.
std::vector<EgressRule> rules_for(const std::string& issuer) {
  std::vector<EgressRule> rules;
  if (const auto url = parse_url(issuer)) {
    const std::string host = url->host_kind == HostKind::ipv6 ? "[" + url->host + "]" : url->host;
    if (auto own = parse_egress_rule(fmt::format("{}://{}:{}", scheme_name(url->scheme), host, url->port)))
      rules.push_back(std::move(*own));
  }
  // A jwks_uri on another host: any public address, special ones only when granted.
  if (auto any = parse_egress_rule("*:*")) rules.push_back(std::move(*any));
  return rules;
}

// RFC 8414 3.1: the well-known segment goes between the host and the path.
std::string rfc8414_metadata_url(std::string_view issuer) {
  const auto authority_start = issuer.find("://") + 3;
  const auto path_start = issuer.find('/', authority_start);
  if (path_start == std::string_view::npos) return std::string(issuer) + "/.well-known/oauth-authorization-server";
  std::string_view path = issuer.substr(path_start);
  while (path.ends_with('/')) path.remove_suffix(1);
  return fmt::format("{}/.well-known/oauth-authorization-server{}", issuer.substr(0, path_start), path);
}

// OpenID Connect Discovery 1.0 4: appended to the issuer.
std::string openid_metadata_url(std::string_view issuer) {
  while (issuer.ends_with('/')) issuer.remove_suffix(1);
  return std::string(issuer) + "/.well-known/openid-configuration";
}

// https, or http to a loopback host (as for issuers): keys fetched in the
// clear from elsewhere could be swapped on the way.
bool is_acceptable_key_url(std::string_view url) {
  const auto parsed = parse_url(url);
  if (!parsed) return false;
  if (parsed->scheme == Scheme::https) return true;
  return parsed->host == "localhost" || parsed->host == "127.0.0.1" || parsed->host == "::1";
}

}  // namespace

IssuerKeys::IssuerKeys(std::string issuer, const Fetcher& fetcher, Settings settings)
    : issuer_(std::move(issuer)),
      fetcher_(fetcher),
      settings_(std::move(settings)),
      policy_(rules_for(issuer_), settings_.addresses) {}

std::shared_ptr<const KeySet> IssuerKeys::keys_for(std::string_view kid) {
  std::unique_lock lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  const bool known = keys_ && (kid.empty() || keys_->has_kid(kid));
  if (known) return keys_;
  if (fetching_) {
    fetched_.wait_for(lock, settings_.timeout * 3, [this] { return !fetching_; });
    return keys_;
  }
  const auto pause = keys_ ? std::chrono::duration_cast<std::chrono::steady_clock::duration>(settings_.refresh_min)
                           : std::chrono::duration_cast<std::chrono::steady_clock::duration>(kRetryWithoutKeys);
  if (attempted_ && now - last_attempt_ < pause) return keys_;
  attempted_ = true;
  last_attempt_ = now;
  fetching_ = true;
  lock.unlock();

  auto fetched = fetch_keys();

  lock.lock();
  fetching_ = false;
  if (fetched) {
    keys_ = std::move(*fetched);
  } else {
    spdlog::warn("oauth: the keys of {} cannot be fetched: {}", issuer_, fetched.error().message);
  }
  fetched_.notify_all();
  return keys_;
}

Result<std::shared_ptr<const KeySet>> IssuerKeys::fetch_keys() {
  std::string uri;
  {
    std::lock_guard lock(mutex_);
    uri = jwks_uri_;
  }
  if (uri.empty()) {
    auto discovered = discover_jwks_uri();
    if (!discovered) return discovered.error();
    uri = std::move(*discovered);
  }
  auto document = get(uri);
  if (!document) return document.error();
  auto set = KeySet::parse(*document);
  if (!set) return Error{fmt::format("{}: {}", uri, set.error().message)};
  spdlog::info("oauth: {} signing key(s) of {} from {}", set->size(), issuer_, uri);
  std::lock_guard lock(mutex_);
  jwks_uri_ = uri;
  return std::make_shared<const KeySet>(std::move(*set));
}

Result<std::string> IssuerKeys::discover_jwks_uri() {
  std::string failures;
  for (const auto& url : {rfc8414_metadata_url(issuer_), openid_metadata_url(issuer_)}) {
    auto document = get(url);
    if (!document) {
      failures += (failures.empty() ? "" : "; ") + document.error().message;
      continue;
    }
    boost::system::error_code ec;
    const json::value metadata = json::parse(*document, ec);
    const auto* object = metadata.if_object();
    if (ec || !object) return Error{fmt::format("{}: the metadata is not a JSON object", url)};
    // RFC 8414 3.3: metadata that names another issuer must not be used,
    // or one server could hand out keys for another.
    const auto* issuer = object->if_contains("issuer");
    if (!issuer || !issuer->is_string() || issuer->get_string() != issuer_)
      return Error{fmt::format("{}: the metadata's issuer is not {}", url, issuer_)};
    const auto* jwks_uri = object->if_contains("jwks_uri");
    if (!jwks_uri || !jwks_uri->is_string()) return Error{fmt::format("{}: the metadata has no jwks_uri", url)};
    const std::string uri(jwks_uri->get_string());
    if (!is_acceptable_key_url(uri))
      return Error{fmt::format("{}: jwks_uri must be an https URL (http only on loopback)", url)};
    // Spelled out: a string converts to Result<string> two ways under GCC.
    return Result<std::string>(boost::system::in_place_value, uri);
  }
  return Error{failures};
}

Result<std::string> IssuerKeys::get(const std::string& url) const {
  FetchRequest request;
  request.url = url;
  request.headers = {{"Accept", "application/json"}};
  request.timeout = settings_.timeout;
  request.max_response_bytes = kMaxDocumentBytes;
  request.actor = "the OAuth key fetch";
  std::vector<EgressRecord> provenance;
  FetchOutcome outcome = fetcher_.fetch(policy_, request, nullptr, provenance);
  if (outcome.status != AIRLOCK_STATUS_OK) return Error{fmt::format("{}: {}", url, outcome.error)};
  if (outcome.http_status != 200) return Error{fmt::format("{}: HTTP status {}", url, outcome.http_status)};
  if (outcome.truncated) return Error{fmt::format("{}: larger than {} bytes", url, kMaxDocumentBytes)};
  return Result<std::string>(boost::system::in_place_value, std::move(outcome.body));
}

}  // namespace airlock::host
