// Tests for the host's fetch (Fetcher) against real origins on 127.0.0.1:
// what it lets through, what it refuses before any connection, how it
// follows redirects, cuts bodies, times out and cancels, and the provenance
// it records for each hop. Names under .test reach 127.0.0.1 only through
// the resolver's overrides.
#include "egress/fetcher.hpp"
#include "origin_server.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <cctype>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace airlock::host {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;
using test::OriginServer;
using Clock = std::chrono::steady_clock;
namespace ip = boost::asio::ip;

const ip::address kLoopback = ip::make_address("127.0.0.1");

Fetcher make_fetcher(std::uint32_t max_redirects = 5) {
  FetchSettings settings;
  settings.default_timeout = 5s;  // a broken test fails instead of hanging
  settings.max_redirects = max_redirects;
  return Fetcher(settings, Resolver({{"origin.test", {kLoopback}},
                                     {"other.test", {kLoopback}},
                                     {"sneaky.test", {kLoopback}},
                                     {"private.test", {ip::make_address("10.0.0.1")}},
                                     {"mixed.test", {ip::make_address("10.0.0.1"), kLoopback}},
                                     {"nowhere.test", {}}}));
}

EgressPolicy policy(std::vector<std::string> rules, std::vector<std::string> addresses = {}) {
  std::vector<EgressRule> parsed_rules;
  for (const auto& text : rules) {
    auto parsed = parse_egress_rule(text);
    EXPECT_TRUE(parsed) << text << ": " << parsed.error().message;
    if (parsed) parsed_rules.push_back(*parsed);
  }
  std::vector<AddressRange> ranges;
  for (const auto& text : addresses) ranges.push_back(*parse_address_range(text));
  return EgressPolicy(std::move(parsed_rules), std::move(ranges));
}

std::string port_of(const OriginServer& server) { return std::to_string(server.port()); }

std::string name_url(const char* host, const OriginServer& server, std::string_view target) {
  return "http://" + std::string(host) + ":" + port_of(server) + std::string(target);
}

std::optional<std::string> header(const OriginServer::Request& request, std::string_view name) {
  for (const auto& [field, value] : request.headers) {
    if (field.size() == name.size() &&
        std::equal(field.begin(), field.end(), name.begin(), [](unsigned char a, unsigned char b) { return std::tolower(a) == std::tolower(b); }))
      return value;
  }
  return std::nullopt;
}

OriginServer::Handler reply(int status, std::string body, std::string content_type = "text/plain; charset=utf-8") {
  return [=](const OriginServer::Request&) {
    return OriginServer::Response{status, {{"Content-Type", content_type}}, body, {}};
  };
}

OriginServer::Handler redirect_to(int status, std::string location) {
  return [=](const OriginServer::Request&) {
    return OriginServer::Response{status, {{"Location", location}}, "moved", {}};
  };
}

FetchRequest get(std::string url) {
  FetchRequest request;
  request.url = std::move(url);
  return request;
}

// --- allowed

TEST(Fetcher, FetchesAnAllowedUrlWithItsBodyStatusAndContentType) {
  OriginServer origin(reply(200, "hello from origin"));
  const auto allowed = policy({"http://origin.test:" + port_of(origin)}, {"127.0.0.0/8"});
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(allowed, get(name_url("origin.test", origin, "/hello?x=1")), nullptr, provenance);

  ASSERT_EQ(outcome.status, AIRLOCK_STATUS_OK) << outcome.error;
  EXPECT_EQ(outcome.http_status, 200);
  EXPECT_EQ(outcome.body, "hello from origin");
  EXPECT_EQ(outcome.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(outcome.final_url, name_url("origin.test", origin, "/hello?x=1"));
  EXPECT_FALSE(outcome.truncated);
  EXPECT_TRUE(outcome.error.empty());

  const auto requests = origin.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target, "/hello?x=1");
  EXPECT_EQ(header(requests[0], "Host"), "origin.test:" + port_of(origin));
  EXPECT_EQ(header(requests[0], "User-Agent"), "airlock");
  EXPECT_EQ(header(requests[0], "Accept-Encoding"), std::nullopt);

  ASSERT_EQ(provenance.size(), 1u);
  const auto& record = provenance[0];
  EXPECT_EQ(record.url, outcome.final_url);
  EXPECT_EQ(record.host, "origin.test");
  EXPECT_EQ(record.port, origin.port());
  EXPECT_EQ(record.address, "127.0.0.1");
  EXPECT_TRUE(record.allowed);
  EXPECT_EQ(record.rule, "http://origin.test:" + port_of(origin));
  EXPECT_EQ(record.http_status, 200);
  EXPECT_EQ(record.bytes, 17u);
  EXPECT_FALSE(record.truncated);
  EXPECT_TRUE(record.error.empty());
}

TEST(Fetcher, SendsThePathAndQueryExactlyAsWritten) {
  OriginServer origin(reply(404, "nope"));
  const auto allowed = policy({"127.0.0.1:" + port_of(origin)});
  const std::string target = "/a/../b/./%2e%2E/c;x?to=https%3A%2F%2Fattacker.test%2F&y=%41";
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(allowed, get(origin.url(target)), nullptr, provenance);
  ASSERT_EQ(outcome.status, AIRLOCK_STATUS_OK) << outcome.error;
  EXPECT_EQ(outcome.http_status, 404);  // an HTTP error status is still a response
  ASSERT_EQ(origin.requests().size(), 1u);
  EXPECT_EQ(origin.requests()[0].target, target);
}

TEST(Fetcher, ReachesALoopbackAddressThatAGrantWritesLiterally) {
  OriginServer origin(reply(200, "literal"));
  const auto allowed = policy({"127.0.0.1:" + port_of(origin)});
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(allowed, get(origin.url("/")), nullptr, provenance);
  ASSERT_EQ(outcome.status, AIRLOCK_STATUS_OK) << outcome.error;
  EXPECT_EQ(outcome.body, "literal");
  ASSERT_EQ(provenance.size(), 1u);
  EXPECT_EQ(provenance[0].address, "127.0.0.1");
}

TEST(Fetcher, SendsMethodHeadersAndBodyAsGivenWithoutInventingAny) {
  OriginServer origin(reply(201, "created"));
  const auto allowed = policy({"127.0.0.1:*"});
  FetchRequest request = get(origin.url("/items"));
  request.method = "PUT";
  request.headers = {{"X-Custom", "one two"}, {"Content-Type", "application/json"}, {"X-Empty", ""}};
  request.body = R"({"a":1})";
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(allowed, request, nullptr, provenance);
  ASSERT_EQ(outcome.status, AIRLOCK_STATUS_OK) << outcome.error;
  EXPECT_EQ(outcome.http_status, 201);
  const auto requests = origin.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "PUT");
  EXPECT_EQ(requests[0].body, R"({"a":1})");
  EXPECT_EQ(header(requests[0], "X-Custom"), "one two");
  EXPECT_EQ(header(requests[0], "X-Empty"), "");
  EXPECT_EQ(header(requests[0], "Content-Type"), "application/json");
  EXPECT_EQ(header(requests[0], "Content-Length"), "7");
  EXPECT_EQ(header(requests[0], "Expect"), std::nullopt);

  FetchRequest post = get(origin.url("/form"));
  post.method = "POST";
  post.body = "raw bytes";
  ASSERT_EQ(make_fetcher().fetch(allowed, post, nullptr, provenance).status, AIRLOCK_STATUS_OK);
  ASSERT_EQ(origin.requests().size(), 2u);
  EXPECT_EQ(origin.requests()[1].method, "POST");
  EXPECT_EQ(origin.requests()[1].body, "raw bytes");
  EXPECT_EQ(header(origin.requests()[1], "Content-Type"), std::nullopt);  // curl's form default is suppressed
}

// --- denied before any connection

struct DeniedCase {
  const char* what;
  std::vector<std::string> rules;
};

TEST(Fetcher, DeniesAUrlOutsideTheSetByHostPortOrSchemeAndSendsNothing) {
  OriginServer origin(reply(200, "must not be reached"));
  const std::string port = port_of(origin);
  const DeniedCase cases[] = {
      {"host", {"other.test:" + port}},
      {"port", {"origin.test:1", "origin.test"}},
      {"scheme", {"https://origin.test:" + port}},
      {"wildcard apex", {"*.origin.test:*"}},
      {"empty set", {}},
  };
  const std::string url = name_url("origin.test", origin, "/secret");
  for (const auto& c : cases) {
    std::vector<EgressRecord> provenance;
    const auto outcome = make_fetcher().fetch(policy(c.rules, {"127.0.0.0/8"}), get(url), nullptr, provenance);
    EXPECT_EQ(outcome.status, AIRLOCK_STATUS_DENIED) << c.what;
    EXPECT_THAT(outcome.error, HasSubstr("egress denied: " + url + " is outside the egress set")) << c.what;
    EXPECT_THAT(outcome.error, HasSubstr(c.rules.empty() ? "(grants: none)" : "(grants: " + c.rules[0])) << c.what;
    EXPECT_EQ(outcome.final_url, url) << c.what;
    ASSERT_EQ(provenance.size(), 1u) << c.what;
    EXPECT_FALSE(provenance[0].allowed) << c.what;
    EXPECT_EQ(provenance[0].url, url) << c.what;
    EXPECT_EQ(provenance[0].address, "") << c.what;
    EXPECT_THAT(provenance[0].rule, HasSubstr("no grant admits " + url)) << c.what;
  }
  EXPECT_TRUE(origin.requests().empty());
}

TEST(Fetcher, DeniesANameThatResolvesToLoopbackUnlessEgressAddressesGrantsIt) {
  OriginServer origin(reply(200, "inside"));
  const std::string url = name_url("origin.test", origin, "/");
  const std::string grant = "origin.test:" + port_of(origin);

  std::vector<EgressRecord> provenance;
  const auto denied = make_fetcher().fetch(policy({grant}), get(url), nullptr, provenance);
  EXPECT_EQ(denied.status, AIRLOCK_STATUS_DENIED);
  EXPECT_THAT(denied.error, HasSubstr("egress denied: " + url));
  EXPECT_THAT(denied.error, HasSubstr("127.0.0.1 is loopback and egress_addresses does not grant it"));
  EXPECT_THAT(denied.error, HasSubstr(grant));
  ASSERT_EQ(provenance.size(), 1u);
  EXPECT_FALSE(provenance[0].allowed);
  EXPECT_EQ(provenance[0].address, "");
  EXPECT_THAT(provenance[0].rule, HasSubstr("127.0.0.1 is loopback"));
  EXPECT_TRUE(origin.requests().empty());

  provenance.clear();
  const auto allowed = make_fetcher().fetch(policy({grant}, {"127.0.0.0/8"}), get(url), nullptr, provenance);
  ASSERT_EQ(allowed.status, AIRLOCK_STATUS_OK) << allowed.error;
  EXPECT_EQ(allowed.body, "inside");
  ASSERT_EQ(provenance.size(), 1u);
  EXPECT_TRUE(provenance[0].allowed);
  EXPECT_EQ(origin.requests().size(), 1u);
}

TEST(Fetcher, DeniesANameThatResolvesIntoAPrivateRange) {
  std::vector<EgressRecord> provenance;
  const auto outcome =
      make_fetcher().fetch(policy({"private.test:*"}, {"127.0.0.0/8"}), get("http://private.test:8080/"), nullptr, provenance);
  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_DENIED);
  EXPECT_THAT(outcome.error, HasSubstr("10.0.0.1 is private and egress_addresses does not grant it"));
  ASSERT_EQ(provenance.size(), 1u);
  EXPECT_FALSE(provenance[0].allowed);
  EXPECT_EQ(provenance[0].host, "private.test");
  EXPECT_EQ(provenance[0].port, 8080);
}

TEST(Fetcher, ConnectsOnlyToTheResolvedAddressesItAllowed) {
  OriginServer origin(reply(200, "via loopback"));
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(policy({"mixed.test:*"}, {"127.0.0.0/8"}),
                                            get(name_url("mixed.test", origin, "/")), nullptr, provenance);
  ASSERT_EQ(outcome.status, AIRLOCK_STATUS_OK) << outcome.error;
  EXPECT_EQ(outcome.body, "via loopback");
  ASSERT_EQ(provenance.size(), 1u);
  EXPECT_EQ(provenance[0].address, "127.0.0.1");
}

// --- redirects

TEST(Fetcher, RefusesARedirectToAHostOutsideTheSetAndRecordsBothHops) {
  OriginServer target(reply(200, "must not be reached"));
  const std::string location = name_url("other.test", target, "/landing");
  OriginServer origin(redirect_to(302, location));
  const auto allowed = policy({"127.0.0.1:" + port_of(origin)}, {"127.0.0.0/8"});
  FetchRequest request = get(origin.url("/start"));
  request.follow_redirects = true;
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(allowed, request, nullptr, provenance);

  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_DENIED);
  EXPECT_THAT(outcome.error, HasSubstr("egress denied: " + location + " (redirected from " + origin.url("/start") + ")"));
  EXPECT_THAT(outcome.error, HasSubstr("grants: 127.0.0.1:" + port_of(origin)));
  EXPECT_EQ(outcome.final_url, location);
  EXPECT_EQ(origin.requests().size(), 1u);
  EXPECT_TRUE(target.requests().empty());
  ASSERT_EQ(provenance.size(), 2u);
  EXPECT_TRUE(provenance[0].allowed);
  EXPECT_EQ(provenance[0].http_status, 302);
  EXPECT_EQ(provenance[0].address, "127.0.0.1");
  EXPECT_FALSE(provenance[1].allowed);
  EXPECT_EQ(provenance[1].url, location);
  EXPECT_EQ(provenance[1].host, "other.test");
  EXPECT_THAT(provenance[1].rule, HasSubstr("no grant admits " + location));
}

TEST(Fetcher, RefusesARedirectToANameThatResolvesToLoopback) {
  OriginServer target(reply(200, "must not be reached"));
  const std::string location = name_url("sneaky.test", target, "/");
  OriginServer origin(redirect_to(301, location));
  // The first hop is allowed by its literal address; the redirect's name is
  // granted, but not the loopback address it resolves to.
  const auto allowed = policy({"127.0.0.1:" + port_of(origin), "sneaky.test:*"});
  FetchRequest request = get(origin.url("/"));
  request.follow_redirects = true;
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(allowed, request, nullptr, provenance);

  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_DENIED);
  EXPECT_THAT(outcome.error, HasSubstr("127.0.0.1 is loopback and egress_addresses does not grant it"));
  EXPECT_THAT(outcome.error, HasSubstr("sneaky.test:*"));
  EXPECT_TRUE(target.requests().empty());
  ASSERT_EQ(provenance.size(), 2u);
  EXPECT_TRUE(provenance[0].allowed);
  EXPECT_FALSE(provenance[1].allowed);
  EXPECT_EQ(provenance[1].host, "sneaky.test");
}

TEST(Fetcher, RefusesARedirectToALoopbackLiteralThatOnlyAWildcardAdmits) {
  OriginServer target(reply(200, "must not be reached"));
  OriginServer origin(redirect_to(307, target.url("/")));
  const auto allowed = policy({"127.0.0.1:" + port_of(origin), "*:*"});
  FetchRequest request = get(origin.url("/"));
  request.follow_redirects = true;
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(allowed, request, nullptr, provenance);
  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_DENIED);
  EXPECT_THAT(outcome.error, HasSubstr("127.0.0.1 is loopback"));
  EXPECT_TRUE(target.requests().empty());
  ASSERT_EQ(provenance.size(), 2u);
  EXPECT_FALSE(provenance[1].allowed);
}

TEST(Fetcher, FollowsAnAllowedRedirectAndRecordsEveryHop) {
  OriginServer target(reply(200, "landed", "application/json"));
  OriginServer origin(redirect_to(302, "http://other.test:" + port_of(target) + "/x/../landing?q=%2F"));
  const auto allowed = policy({"127.0.0.1:" + port_of(origin), "other.test:" + port_of(target)}, {"127.0.0.0/8"});
  FetchRequest request = get(origin.url("/start"));
  request.follow_redirects = true;
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(allowed, request, nullptr, provenance);

  ASSERT_EQ(outcome.status, AIRLOCK_STATUS_OK) << outcome.error;
  EXPECT_EQ(outcome.http_status, 200);
  EXPECT_EQ(outcome.body, "landed");
  EXPECT_EQ(outcome.content_type, "application/json");
  EXPECT_EQ(outcome.final_url, name_url("other.test", target, "/landing?q=%2F"));
  ASSERT_EQ(target.requests().size(), 1u);
  EXPECT_EQ(target.requests()[0].target, "/landing?q=%2F");
  ASSERT_EQ(provenance.size(), 2u);
  EXPECT_EQ(provenance[0].url, origin.url("/start"));
  EXPECT_EQ(provenance[0].http_status, 302);
  EXPECT_EQ(provenance[0].rule, "127.0.0.1:" + port_of(origin));
  EXPECT_EQ(provenance[1].url, outcome.final_url);
  EXPECT_EQ(provenance[1].http_status, 200);
  EXPECT_EQ(provenance[1].rule, "other.test:" + port_of(target));
  EXPECT_TRUE(provenance[1].allowed);
}

TEST(Fetcher, RedirectsRewriteOrKeepTheMethodByStatusAndDropCredentialsAcrossOrigins) {
  OriginServer target(reply(200, "ok"));
  for (const int status : {301, 302, 303, 307, 308}) {
    OriginServer origin(redirect_to(status, target.url("/next")));
    const auto allowed = policy({"127.0.0.1:*"});
    FetchRequest request = get(origin.url("/"));
    request.method = "POST";
    request.body = "payload";
    request.headers = {{"Authorization", "Bearer secret"}, {"Content-Type", "text/plain"}, {"X-Keep", "1"}};
    request.follow_redirects = true;
    std::vector<EgressRecord> provenance;
    const auto outcome = make_fetcher().fetch(allowed, request, nullptr, provenance);
    ASSERT_EQ(outcome.status, AIRLOCK_STATUS_OK) << status << ": " << outcome.error;
    const auto seen = target.requests().back();
    const bool keeps = status == 307 || status == 308;
    EXPECT_EQ(seen.method, keeps ? "POST" : "GET") << status;
    EXPECT_EQ(seen.body, keeps ? "payload" : "") << status;
    EXPECT_EQ(header(seen, "Content-Type").has_value(), keeps) << status;
    EXPECT_EQ(header(seen, "Authorization"), std::nullopt) << status;
    EXPECT_EQ(header(seen, "X-Keep"), "1") << status;
    EXPECT_EQ(header(origin.requests()[0], "Authorization"), "Bearer secret") << status;
  }
  EXPECT_EQ(target.requests().size(), 5u);
}

TEST(Fetcher, ReturnsTheRedirectItselfWhenNotAskedToFollow) {
  OriginServer target(reply(200, "must not be reached"));
  OriginServer origin(redirect_to(302, target.url("/")));
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(policy({"127.0.0.1:*"}), get(origin.url("/")), nullptr, provenance);
  ASSERT_EQ(outcome.status, AIRLOCK_STATUS_OK) << outcome.error;
  EXPECT_EQ(outcome.http_status, 302);
  EXPECT_EQ(outcome.body, "moved");
  EXPECT_EQ(outcome.final_url, origin.url("/"));
  EXPECT_TRUE(target.requests().empty());
  ASSERT_EQ(provenance.size(), 1u);
  EXPECT_EQ(provenance[0].http_status, 302);
}

TEST(Fetcher, GivesUpAfterTheRedirectLimit) {
  OriginServer origin(redirect_to(302, "/again"));
  FetchRequest request = get(origin.url("/"));
  request.follow_redirects = true;
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher(2).fetch(policy({"127.0.0.1:*"}), request, nullptr, provenance);
  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_NETWORK_ERROR);
  EXPECT_THAT(outcome.error, HasSubstr("too many redirects (limit 2)"));
  EXPECT_EQ(origin.requests().size(), 3u);
  EXPECT_EQ(provenance.size(), 3u);
}

// A Location the host will not read is a destination refused like any
// other: DENIED, recorded with the rule it breaks, and nothing sent there.
TEST(Fetcher, RefusesARedirectToAnUnreadableLocationAsADenialNamingTheRule) {
  OriginServer target(reply(200, "must not be reached"));
  const std::string port = port_of(target);
  const std::pair<std::string, std::string> cases[] = {
      {"file:///etc/passwd", "redirect: scheme file not allowed"},
      {"gopher://127.0.0.1:" + port + "/", "redirect: scheme gopher not allowed"},
      {"http://2130706433:" + port + "/", "redirect: ambiguous IPv4 address"},
      {"http://user@127.0.0.1:" + port + "/", "redirect: userinfo not allowed"},
      {"http://127.0.0.1:" + port + "\\@other.test/", "redirect: backslash not allowed"},
  };
  for (const auto& [location, rule] : cases) {
    OriginServer origin(redirect_to(302, location));
    FetchRequest request = get(origin.url("/start"));
    request.follow_redirects = true;
    std::vector<EgressRecord> provenance;
    const auto outcome = make_fetcher().fetch(policy({"127.0.0.1:*"}, {"127.0.0.0/8"}), request, nullptr, provenance);

    EXPECT_EQ(outcome.status, AIRLOCK_STATUS_DENIED) << location << ": " << outcome.error;
    EXPECT_THAT(outcome.error, HasSubstr("egress denied")) << location;
    EXPECT_THAT(outcome.error, HasSubstr(rule)) << location;
    EXPECT_THAT(outcome.error, HasSubstr("redirected from " + origin.url("/start"))) << location;
    ASSERT_EQ(provenance.size(), 2u) << location;
    EXPECT_TRUE(provenance[0].allowed);
    EXPECT_EQ(provenance[0].http_status, 302);
    EXPECT_FALSE(provenance[1].allowed) << location;
    EXPECT_EQ(provenance[1].url, location);
    EXPECT_EQ(provenance[1].rule, rule);
    EXPECT_TRUE(provenance[1].address.empty());
  }
  EXPECT_TRUE(target.requests().empty());
}

// A URL the host will not read is refused, not an argument error: the tool
// learns it was denied and why, and the refusal is provenance.
TEST(Fetcher, RefusesAnUnreadableUrlAsADenialNamingTheRule) {
  OriginServer origin(reply(200, "must not be reached"));
  const std::string port = port_of(origin);
  const std::pair<std::string, std::string> cases[] = {
      {"http://u@127.0.0.1:" + port + "/", "url: userinfo not allowed"},
      {"http://127.1:" + port + "/", "url: ambiguous IPv4 address"},
      {"http://2130706433:" + port + "/", "url: ambiguous IPv4 address"},
      {"http://127.0.0.1:" + port + "\\@origin.test/", "url: backslash not allowed"},
      {"http://%31%32%37.0.0.1:" + port + "/", "url: percent-encoded host not allowed"},
      {"ftp://127.0.0.1/", "url: scheme ftp not allowed"},
  };
  for (const auto& [url, rule] : cases) {
    std::vector<EgressRecord> provenance;
    const auto outcome = make_fetcher().fetch(policy({"127.0.0.1:*"}, {"127.0.0.0/8"}), get(url), nullptr, provenance);
    EXPECT_EQ(outcome.status, AIRLOCK_STATUS_DENIED) << url << ": " << outcome.error;
    EXPECT_THAT(outcome.error, HasSubstr("egress denied")) << url;
    EXPECT_THAT(outcome.error, HasSubstr(rule)) << url;
    ASSERT_EQ(provenance.size(), 1u) << url;
    EXPECT_FALSE(provenance[0].allowed);
    EXPECT_EQ(provenance[0].url, url);
    EXPECT_EQ(provenance[0].rule, rule);
  }
  // What a record holds of a URL goes to the audit log as one token: bytes
  // that could end the line or the field there are escaped.
  const std::pair<std::string, std::string> escaped[] = {
      {"http://127.0.0.1/\r\nX: y", "http://127.0.0.1/%0D%0AX:%20y"},
      {"not a url", "not%20a%20url"},
      {"http://127.0.0.1/ reason=\"allowed\"", "http://127.0.0.1/%20reason=%22allowed%22"},
  };
  for (const auto& [url, kept] : escaped) {
    std::vector<EgressRecord> provenance;
    const auto outcome = make_fetcher().fetch(policy({"127.0.0.1:*"}), get(url), nullptr, provenance);
    EXPECT_EQ(outcome.status, AIRLOCK_STATUS_DENIED);
    ASSERT_EQ(provenance.size(), 1u);
    EXPECT_EQ(provenance[0].url, kept);
  }
  EXPECT_TRUE(origin.requests().empty());
}

// --- limits, time and cancellation

TEST(Fetcher, CutsABodyAtTheLimitAndSaysSo) {
  OriginServer origin(reply(200, std::string(200'000, 'x')));
  const auto allowed = policy({"127.0.0.1:*"});
  FetchRequest request = get(origin.url("/big"));
  request.max_response_bytes = 1000;
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(allowed, request, nullptr, provenance);
  ASSERT_EQ(outcome.status, AIRLOCK_STATUS_OK) << outcome.error;
  EXPECT_TRUE(outcome.truncated);
  EXPECT_EQ(outcome.body, std::string(1000, 'x'));
  EXPECT_EQ(outcome.http_status, 200);
  ASSERT_EQ(provenance.size(), 1u);
  EXPECT_TRUE(provenance[0].truncated);
  EXPECT_EQ(provenance[0].bytes, 1000u);

  // A body exactly at the limit is whole.
  request.max_response_bytes = 200'000;
  const auto whole = make_fetcher().fetch(allowed, request, nullptr, provenance);
  ASSERT_EQ(whole.status, AIRLOCK_STATUS_OK) << whole.error;
  EXPECT_FALSE(whole.truncated);
  EXPECT_EQ(whole.body.size(), 200'000u);
}

TEST(Fetcher, TimesOutOnASlowServerWithinItsBudget) {
  OriginServer origin([](const OriginServer::Request&) {
    return OriginServer::Response{200, {}, "late", 5s};
  });
  FetchRequest request = get(origin.url("/slow"));
  request.timeout = 300ms;
  std::vector<EgressRecord> provenance;
  const auto started = Clock::now();
  const auto outcome = make_fetcher().fetch(policy({"127.0.0.1:*"}), request, nullptr, provenance);
  const auto took = Clock::now() - started;
  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_TIMEOUT);
  EXPECT_THAT(outcome.error, HasSubstr("timed out after 300 ms"));
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 1500ms);
  ASSERT_EQ(provenance.size(), 1u);
  EXPECT_TRUE(provenance[0].allowed);
  EXPECT_EQ(provenance[0].address, "127.0.0.1");
  EXPECT_THAT(provenance[0].error, HasSubstr("timed out"));
}

TEST(Fetcher, StopsPromptlyWhenTheCallIsCancelled) {
  OriginServer origin([](const OriginServer::Request&) {
    return OriginServer::Response{200, {}, "late", 5s};
  });
  std::atomic<bool> cancelled = false;
  std::thread canceller([&] {
    std::this_thread::sleep_for(150ms);
    cancelled = true;
  });
  std::vector<EgressRecord> provenance;
  const auto started = Clock::now();
  const auto outcome = make_fetcher().fetch(policy({"127.0.0.1:*"}), get(origin.url("/")), &cancelled, provenance);
  const auto took = Clock::now() - started;
  canceller.join();
  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_CANCELLED);
  EXPECT_THAT(outcome.error, HasSubstr("cancelled"));
  EXPECT_LT(took, 1s);
  ASSERT_EQ(provenance.size(), 1u);
  EXPECT_THAT(provenance[0].error, HasSubstr("cancelled"));
}

TEST(Fetcher, DoesNothingWhenAlreadyCancelled) {
  OriginServer origin(reply(200, "must not be reached"));
  const std::atomic<bool> cancelled = true;
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(policy({"127.0.0.1:*"}), get(origin.url("/")), &cancelled, provenance);
  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_CANCELLED);
  EXPECT_TRUE(origin.requests().empty());
  EXPECT_TRUE(provenance.empty());
}

// --- network errors

TEST(Fetcher, ReportsANameThatDoesNotResolveAsANetworkError) {
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(policy({"nowhere.test"}), get("http://nowhere.test/"), nullptr, provenance);
  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_NETWORK_ERROR);
  EXPECT_THAT(outcome.error, HasSubstr("cannot resolve nowhere.test"));
  ASSERT_EQ(provenance.size(), 1u);
  EXPECT_TRUE(provenance[0].allowed);
  EXPECT_THAT(provenance[0].error, HasSubstr("cannot resolve nowhere.test"));
}

TEST(Fetcher, ReportsARefusedConnectionAsANetworkError) {
  std::string url;
  {
    OriginServer gone(reply(200, ""));
    url = gone.url("/");
  }
  std::vector<EgressRecord> provenance;
  const auto outcome = make_fetcher().fetch(policy({"127.0.0.1:*"}), get(url), nullptr, provenance);
  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_NETWORK_ERROR);
  EXPECT_THAT(outcome.error, HasSubstr("fetch of " + url + " failed"));
  ASSERT_EQ(provenance.size(), 1u);
  EXPECT_TRUE(provenance[0].allowed);
  EXPECT_FALSE(provenance[0].error.empty());
}

// --- invalid requests

TEST(Fetcher, RefusesBadMethodsAndHeadersBeforeDoingAnything) {
  OriginServer origin(reply(200, "must not be reached"));
  const auto allowed = policy({"127.0.0.1:*"});
  struct Case {
    std::string method;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string url;
    std::string body;
    const char* reason;
  };
  const std::string url = origin.url("/");
  const Case cases[] = {
      {"", {}, url, "", "method is empty"},
      {"GE T", {}, url, "", "method 'GE T' is not an RFC 9110 token"},
      {"GET\r\nX: y", {}, url, "", "is not an RFC 9110 token"},
      {"HEAD", {}, url, "body", "a HEAD request cannot have a body"},
      {"GET", {{"Host", "evil.test"}}, url, "", "header Host is set by the host itself"},
      {"GET", {{"content-length", "5"}}, url, "", "header content-length is set by the host itself"},
      {"GET", {{"Transfer-Encoding", "chunked"}}, url, "", "header Transfer-Encoding is set by the host itself"},
      {"GET", {{"CONNECTION", "close"}}, url, "", "header CONNECTION is set by the host itself"},
      {"GET", {{"Bad Name", "x"}}, url, "", "header name 'Bad Name' is not an RFC 9110 token"},
      {"GET", {{"", "x"}}, url, "", "header name '' is not an RFC 9110 token"},
      {"GET", {{"X-Split", "a\r\nInjected: 1"}}, url, "", "header X-Split: value holds a CR, LF or NUL byte"},
      {"GET", {{"X-Nul", std::string("a\0b", 3)}}, url, "", "header X-Nul: value holds a CR, LF or NUL byte"},
      {"GET", {{"X-Ctl", "a\x01"}}, url, "", "header X-Ctl: value holds a control character"},
  };
  for (const auto& c : cases) {
    FetchRequest request = get(c.url);
    request.method = c.method;
    request.headers = c.headers;
    request.body = c.body;
    std::vector<EgressRecord> provenance;
    const auto outcome = make_fetcher().fetch(allowed, request, nullptr, provenance);
    EXPECT_EQ(outcome.status, AIRLOCK_STATUS_INVALID_ARGUMENT) << c.reason;
    EXPECT_THAT(outcome.error, HasSubstr(c.reason));
    EXPECT_TRUE(provenance.empty()) << c.reason;
  }
  EXPECT_TRUE(origin.requests().empty());
}

TEST(Fetcher, RunsConcurrentFetchesIndependently) {
  OriginServer origin([](const OriginServer::Request& request) {
    return OriginServer::Response{200, {}, request.target, 50ms};
  });
  const Fetcher fetcher = make_fetcher();
  const auto allowed = policy({"127.0.0.1:*"});
  std::vector<std::thread> threads;
  std::vector<FetchOutcome> outcomes(4);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    threads.emplace_back([&, i] {
      std::vector<EgressRecord> provenance;
      outcomes[i] = fetcher.fetch(allowed, get(origin.url("/" + std::to_string(i))), nullptr, provenance);
    });
  }
  for (auto& thread : threads) thread.join();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    ASSERT_EQ(outcomes[i].status, AIRLOCK_STATUS_OK) << outcomes[i].error;
    EXPECT_EQ(outcomes[i].body, "/" + std::to_string(i));
  }
}

// --- a system resolver that does not answer

// A fetcher whose system lookups (names outside the overrides) take `delay`.
Fetcher fetcher_with_slow_dns(std::chrono::milliseconds delay) {
  FetchSettings settings;
  settings.default_timeout = 5s;
  return Fetcher(settings, Resolver({}, [delay](const std::string&) -> Result<Resolver::Addresses> {
                   std::this_thread::sleep_for(delay);
                   return Resolver::Addresses{kLoopback};
                 }));
}

TEST(Fetcher, ItsTimeoutCoversASystemResolverThatDoesNotAnswer) {
  FetchRequest request = get("http://slow-dns.test/");
  request.timeout = 200ms;
  std::vector<EgressRecord> provenance;
  const auto started = Clock::now();
  const auto outcome = fetcher_with_slow_dns(3s).fetch(policy({"slow-dns.test"}), request, nullptr, provenance);
  const auto took = Clock::now() - started;
  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_TIMEOUT);
  EXPECT_THAT(outcome.error, HasSubstr("timed out after 200 ms"));
  EXPECT_THAT(outcome.error, HasSubstr("cannot resolve slow-dns.test"));
  EXPECT_GE(took, 150ms);
  EXPECT_LT(took, 1s);
  ASSERT_EQ(provenance.size(), 1u);
  EXPECT_THAT(provenance[0].error, HasSubstr("did not answer in time"));
}

TEST(Fetcher, CancellationStopsTheWaitForTheSystemResolver) {
  std::atomic<bool> cancelled = false;
  std::thread canceller([&] {
    std::this_thread::sleep_for(100ms);
    cancelled = true;
  });
  std::vector<EgressRecord> provenance;
  const auto started = Clock::now();
  const auto outcome =
      fetcher_with_slow_dns(3s).fetch(policy({"slow-dns.test"}), get("http://slow-dns.test/"), &cancelled, provenance);
  const auto took = Clock::now() - started;
  canceller.join();
  EXPECT_EQ(outcome.status, AIRLOCK_STATUS_CANCELLED);
  EXPECT_LT(took, 1s);
}

TEST(Resolver, BoundsTheLookupsLeftWaitingOnTheSystemResolver) {
  // Lookups that block until released: each caller gives up at its
  // deadline, but the lookup keeps its thread. The gate is shared with the
  // lookup threads, which may still be finishing when the test ends.
  struct Gate {
    std::mutex mutex;
    std::condition_variable cv;
    bool open = false;
  };
  const auto gate = std::make_shared<Gate>();
  const Resolver resolver({}, [gate](const std::string&) -> Result<Resolver::Addresses> {
    std::unique_lock lock(gate->mutex);
    gate->cv.wait(lock, [&] { return gate->open; });
    return Resolver::Addresses{kLoopback};
  });
  const Url url = *parse_url("http://stuck.test/");
  for (std::size_t i = 0; i < Resolver::kMaxLookupsInFlight; ++i) {
    const auto answer = resolver.resolve(url, Clock::now() + 1ms);
    ASSERT_FALSE(answer);
    EXPECT_THAT(answer.error().message, HasSubstr("did not answer in time"));
  }
  const auto refused = resolver.resolve(url, Clock::now() + 1s);
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("lookups are already waiting"));

  {
    const std::lock_guard lock(gate->mutex);
    gate->open = true;
  }
  gate->cv.notify_all();
  // The stuck lookups finish and free their places.
  Result<Resolver::Addresses> answer = Error{"not tried"};
  for (int attempt = 0; attempt < 200 && !answer; ++attempt) {
    answer = resolver.resolve(url, Clock::now() + 1s);
    if (!answer) std::this_thread::sleep_for(5ms);
  }
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(answer->front(), kLoopback);
}

}  // namespace
}  // namespace airlock::host
