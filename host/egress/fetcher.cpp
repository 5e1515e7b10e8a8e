// The host's fetch for tools: every decision, before the HTTP client runs.
//
// For each hop (the URL, then each redirect) the fetcher parses the URL
// itself, finds the tool's grant for its scheme, host and port, resolves the
// name itself, checks every address, and hands the HTTP client (hop.hpp,
// libcurl in a module) only the addresses it checked. The client never
// follows a redirect: the fetcher resolves Location itself and starts the
// next hop from the top.
#include "egress/fetcher.hpp"

#include "egress/hop.hpp"
#include "util/ascii.hpp"

#include <algorithm>
#include <optional>

namespace airlock::host {
namespace {

namespace ip = boost::asio::ip;
using Clock = std::chrono::steady_clock;

// RFC 9110 section 5.6.2 tchar.
bool is_tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view text) { return !text.empty() && std::all_of(text.begin(), text.end(), is_tchar); }

// For messages: printable ASCII as is, anything else as '?', cut short.
std::string shown(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 100)) out += c >= 0x20 && c < 0x7f ? c : '?';
  if (text.size() > 100) out += "...";
  return out;
}

// A URL refused unread, as a record keeps it: percent-escaped wherever a
// byte is not printable ASCII or is a space or '"', so that it reads as one
// token in the audit log and cannot forge a field there; cut short.
std::string recorded(std::string_view text) {
  constexpr std::size_t kLimit = 1024;
  constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text.substr(0, kLimit)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte > 0x20 && byte < 0x7f && byte != '"') {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  if (text.size() > kLimit) out += "...";
  return out;
}

// Headers the host writes itself: a tool setting them could smuggle a
// second request or misdescribe the body.
constexpr std::string_view kHostOwnedHeaders[] = {"Host", "Content-Length", "Transfer-Encoding", "Connection"};

// Credentials a redirect to another origin must not carry there.
constexpr std::string_view kCredentialHeaders[] = {"Authorization", "Cookie", "Proxy-Authorization"};

std::optional<std::string> bad_request(const FetchRequest& request) {
  if (request.method.empty()) return "method is empty";
  if (!is_token(request.method)) return "method '" + shown(request.method) + "' is not an RFC 9110 token";
  if (request.method == "HEAD" && !request.body.empty()) return "a HEAD request cannot have a body";
  for (const auto& [name, value] : request.headers) {
    if (!is_token(name)) return "header name '" + shown(name) + "' is not an RFC 9110 token";
    for (const auto owned : kHostOwnedHeaders) {
      if (iequals(name, owned)) return "header " + name + " is set by the host itself; leave it out";
    }
    for (const char c : value) {
      if (c == '\r' || c == '\n' || c == '\0') return "header " + name + ": value holds a CR, LF or NUL byte";
      if ((c > 0 && c < 0x20 && c != '\t') || c == 0x7f)
        return "header " + name + ": value holds a control character";
    }
  }
  return std::nullopt;
}

bool is_redirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

std::string origin_of(const Url& url) {
  return std::string(scheme_name(url.scheme)) + "://" + url.host + ":" + std::to_string(url.port);
}

}  // namespace

Fetcher::Fetcher(FetchSettings settings, Resolver resolver)
    : settings_(std::move(settings)), resolver_(std::move(resolver)) {}

const FetchSettings& Fetcher::settings() const { return settings_; }

FetchOutcome Fetcher::fetch(const EgressPolicy& policy, const FetchRequest& request,
                            const std::atomic<bool>* cancelled, std::vector<EgressRecord>& provenance) const {
  FetchOutcome outcome;
  const auto finish = [&](airlock_status status, std::string error) {
    outcome.status = status;
    outcome.error = std::move(error);
    return outcome;
  };

  // A URL the host will not read is a destination refused like any other:
  // recorded with the rule it breaks, and DENIED to the tool. `written` is
  // the URL or Location as it came, shown printable for provenance and logs.
  const auto refuse = [&](std::string_view written, std::string_view where, const UrlRefusal& refusal,
                          std::string_view context) {
    EgressRecord record;
    record.url = recorded(written);
    record.rule = std::string(where) + ": " + refusal.rule;
    provenance.push_back(record);
    // As for a hop refused by the policy: no response of its own.
    outcome.http_status = 0;
    outcome.content_type.clear();
    return finish(AIRLOCK_STATUS_DENIED,
                  "egress denied: " + refusal.message + std::string(context) + " (" + record.rule + ")");
  };

  if (auto problem = bad_request(request)) return finish(AIRLOCK_STATUS_INVALID_ARGUMENT, *problem);
  auto url = parse_url(request.url);
  if (!url) return refuse(request.url, "url", url.error(), "");

  // The operator's settings are the defaults and the ceilings: a tool may
  // ask for less time or fewer bytes, never more.
  const auto timeout = request.timeout.count() > 0 ? std::min(request.timeout, settings_.default_timeout)
                                                   : settings_.default_timeout;
  const std::uint64_t limit = request.max_response_bytes > 0
                                  ? std::min(request.max_response_bytes, settings_.default_max_response_bytes)
                                  : settings_.default_max_response_bytes;
  const std::string actor = request.actor.empty() ? "this tool" : "tool '" + request.actor + "'";
  const auto deadline = Clock::now() + timeout;
  HopRequest hop{request.method, request.headers, request.body};
  std::optional<std::string> redirected_from;

  for (std::uint32_t redirects = 0;; ++redirects) {
    outcome.final_url = url->text;
    outcome.http_status = 0;
    outcome.content_type.clear();
    if (cancelled && cancelled->load()) return finish(AIRLOCK_STATUS_CANCELLED, "fetch of " + url->text + " was cancelled");

    EgressRecord record;
    record.url = url->text;
    record.host = url->host;
    record.port = url->port;
    const std::string destination =
        url->text + (redirected_from ? " (redirected from " + *redirected_from + ")" : std::string());

    const EgressRule* rule = policy.match(*url);
    if (!rule) {
      record.rule = "no grant admits " + url->text + " (grants: " + policy.describe_grants() + ")";
      provenance.push_back(std::move(record));
      return finish(AIRLOCK_STATUS_DENIED, "egress denied: " + destination +
                                               " is outside the egress set of " + actor + " (grants: " +
                                               policy.describe_grants() + ")");
    }

    auto resolved = resolver_.resolve(*url, deadline, cancelled);
    if (!resolved && cancelled && cancelled->load())
      return finish(AIRLOCK_STATUS_CANCELLED, "fetch of " + url->text + " was cancelled");
    if (!resolved && Clock::now() >= deadline) {
      record.allowed = true;
      record.rule = rule->text;
      record.error = resolved.error().message;
      provenance.push_back(std::move(record));
      return finish(AIRLOCK_STATUS_TIMEOUT, "fetch of " + destination + " timed out after " +
                                                std::to_string(timeout.count()) + " ms: " + resolved.error().message);
    }
    if (!resolved) {
      record.allowed = true;
      record.rule = rule->text;
      record.error = resolved.error().message;
      provenance.push_back(std::move(record));
      return finish(AIRLOCK_STATUS_NETWORK_ERROR, "fetch of " + destination + " failed: " + resolved.error().message);
    }
    std::vector<ip::address> checked;
    std::string refusals;
    for (const auto& address : *resolved) {
      if (auto why = policy.refuse_address(address, *rule)) {
        refusals += (refusals.empty() ? "" : "; ") + *why;
      } else {
        checked.push_back(address);
      }
    }
    if (checked.empty()) {
      record.rule = refusals + " (grant '" + rule->text + "' admits " + url->host + " by name only)";
      provenance.push_back(std::move(record));
      return finish(AIRLOCK_STATUS_DENIED, "egress denied: " + destination + " resolves to no address " + actor + " may reach: " +
                                               refusals + " (grant '" + rule->text + "' admits the name only)");
    }

    if (Clock::now() >= deadline) {
      record.allowed = true;
      record.rule = rule->text;
      record.error = "timed out before connecting";
      provenance.push_back(std::move(record));
      return finish(AIRLOCK_STATUS_TIMEOUT,
                    "fetch of " + destination + " timed out after " + std::to_string(timeout.count()) + " ms");
    }

    HopResult result = run_hop({*url, hop, checked, settings_.user_agent, limit, deadline, cancelled});
    record.allowed = result.status != AIRLOCK_STATUS_DENIED;
    record.rule = record.allowed ? rule->text : result.error;
    record.address = result.address;
    record.http_status = static_cast<int>(result.http_status);
    record.bytes = result.body.size();
    record.truncated = result.truncated;
    if (result.status == AIRLOCK_STATUS_TIMEOUT)
      result.error = "fetch of " + destination + " timed out after " + std::to_string(timeout.count()) + " ms";
    if (result.status != AIRLOCK_STATUS_OK && record.allowed) record.error = result.error;
    provenance.push_back(std::move(record));
    if (result.status != AIRLOCK_STATUS_OK) return finish(result.status, result.error);

    outcome.http_status = static_cast<int>(result.http_status);
    outcome.content_type = std::move(result.content_type);
    if (!request.follow_redirects || !is_redirect(result.http_status) || !result.location) {
      outcome.body = std::move(result.body);
      outcome.truncated = result.truncated;
      return finish(AIRLOCK_STATUS_OK, "");
    }

    if (!result.location_error.empty())
      return finish(AIRLOCK_STATUS_NETWORK_ERROR, "fetch of " + url->text + " failed: " + result.location_error);
    if (redirects >= settings_.max_redirects)
      return finish(AIRLOCK_STATUS_NETWORK_ERROR, "fetch of " + request.url + " failed: too many redirects (limit " +
                                                      std::to_string(settings_.max_redirects) + ")");
    auto next = resolve_redirect(*url, *result.location);
    if (!next) return refuse(*result.location, "redirect", next.error(), " (redirected from " + url->text + ")");

    // RFC 9110 section 15.4: 301/302/303 may turn into a GET without body;
    // 307/308 repeat the request as it was.
    if (result.http_status <= 303 && hop.method != "GET" && hop.method != "HEAD") {
      hop.method = "GET";
      hop.body.clear();
      std::erase_if(hop.headers, [](const auto& header) { return iequals(header.first, "Content-Type"); });
    }
    if (origin_of(*next) != origin_of(*url)) {
      std::erase_if(hop.headers, [](const auto& header) {
        return std::any_of(std::begin(kCredentialHeaders), std::end(kCredentialHeaders),
                           [&](std::string_view name) { return iequals(header.first, name); });
      });
    }
    redirected_from = url->text;
    url = std::move(next);
  }
}

}  // namespace airlock::host
