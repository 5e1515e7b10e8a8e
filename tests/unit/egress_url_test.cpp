// Tests for how the egress layer reads URLs (parse_url) and redirect
// locations (resolve_redirect): one reading or a refusal, never decoding.
#include "egress/egress_url.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace airlock::host {
namespace {

using ::testing::HasSubstr;

struct Accepted {
  const char* text;
  Scheme scheme;
  HostKind kind;
  const char* host;
  std::uint16_t port;
  const char* target;
  const char* fetched;  // Url::text
};

const Accepted kAccepted[] = {
    {"http://example.test/", Scheme::http, HostKind::name, "example.test", 80, "/", "http://example.test/"},
    {"https://example.test", Scheme::https, HostKind::name, "example.test", 443, "/", "https://example.test/"},
    {"HTTPS://API.Example.TEST:8443/a/b?c=d", Scheme::https, HostKind::name, "api.example.test", 8443, "/a/b?c=d",
     "https://api.example.test:8443/a/b?c=d"},
    {"http://example.test:80/", Scheme::http, HostKind::name, "example.test", 80, "/", "http://example.test:80/"},
    {"http://example.test?q=1", Scheme::http, HostKind::name, "example.test", 80, "/?q=1",
     "http://example.test/?q=1"},
    {"http://example.test/p#frag", Scheme::http, HostKind::name, "example.test", 80, "/p", "http://example.test/p"},
    {"http://example.test/r?to=https%3A%2F%2Fattacker.test", Scheme::http, HostKind::name, "example.test", 80,
     "/r?to=https%3A%2F%2Fattacker.test", "http://example.test/r?to=https%3A%2F%2Fattacker.test"},
    {"http://example.test/a/../b/./c", Scheme::http, HostKind::name, "example.test", 80, "/a/../b/./c",
     "http://example.test/a/../b/./c"},
    {"http://my_host-1.test/", Scheme::http, HostKind::name, "my_host-1.test", 80, "/", "http://my_host-1.test/"},
    {"http://127.0.0.1:8080/x", Scheme::http, HostKind::ipv4, "127.0.0.1", 8080, "/x", "http://127.0.0.1:8080/x"},
    {"http://0.0.0.0/", Scheme::http, HostKind::ipv4, "0.0.0.0", 80, "/", "http://0.0.0.0/"},
    {"http://[::1]:9/", Scheme::http, HostKind::ipv6, "::1", 9, "/", "http://[::1]:9/"},
    {"http://[FD00:EC2::254]/", Scheme::http, HostKind::ipv6, "fd00:ec2::254", 80, "/", "http://[fd00:ec2::254]/"},
    {"http://[::ffff:127.0.0.1]/", Scheme::http, HostKind::ipv6, "::ffff:127.0.0.1", 80, "/",
     "http://[::ffff:127.0.0.1]/"},
    {"https://example.test:65535/", Scheme::https, HostKind::name, "example.test", 65535, "/",
     "https://example.test:65535/"},
    {"http://example.test/@user", Scheme::http, HostKind::name, "example.test", 80, "/@user",
     "http://example.test/@user"},
};

TEST(ParseUrl, AcceptsEveryUnambiguousForm) {
  for (const auto& c : kAccepted) {
    const auto url = parse_url(c.text);
    ASSERT_TRUE(url) << c.text << ": " << url.error().message;
    EXPECT_EQ(url->scheme, c.scheme) << c.text;
    EXPECT_EQ(url->host_kind, c.kind) << c.text;
    EXPECT_EQ(url->host, c.host) << c.text;
    EXPECT_EQ(url->port, c.port) << c.text;
    EXPECT_EQ(url->target, c.target) << c.text;
    EXPECT_EQ(url->text, c.fetched) << c.text;
  }
}

struct Refused {
  std::string text;
  const char* reason;
};

const Refused kRefused[] = {
    {"", "url is empty"},
    {"example.test/", "is not an absolute http or https URL"},
    {"/relative/path", "is not an absolute http or https URL"},
    {"ftp://example.test/", "scheme 'ftp' is not http or https"},
    {"file:///etc/passwd", "scheme 'file' is not http or https"},
    {"javascript:alert(1)", "scheme 'javascript' is not http or https"},
    {"http:example.test", "has no '//' and host"},
    {"http:/example.test", "has no '//' and host"},
    {"http://user:pass@example.test/", "has userinfo"},
    {"http://allowed.test@evil.test/", "has userinfo"},
    {"http://@example.test/", "has userinfo"},
    {"http:///path", "has no host"},
    {"http://:80/", "has no host"},
    {"http://example.test/a b", "has a space at offset 21"},
    {"http://exa mple.test/", "has a space"},
    {"http://example.test/\r\nX-Injected: 1", "has a control character"},
    {std::string("http://example.test/\0", 21), "has a control character"},
    {"http://example.test/\t", "has a control character"},
    {"http://ex\xc3\xa4mple.test/", "has a non-ASCII byte"},
    {"http://example.test/\xff", "has a non-ASCII byte"},
    {"http://example.test\\@evil.test/", "holds a backslash"},
    {"http://example%2etest/", "is percent-encoded"},
    {"http://%31%32%37.0.0.1/", "is percent-encoded"},
    {"http://127.1/", "ambiguous IPv4"},
    {"http://127.0.1/", "ambiguous IPv4"},
    {"http://0x7f.0.0.1/", "ambiguous IPv4"},
    {"http://0x7f000001/", "ambiguous IPv4"},
    {"http://0177.0.0.1/", "ambiguous IPv4"},
    {"http://127.0.0.01/", "ambiguous IPv4"},
    {"http://2130706433/", "ambiguous IPv4"},
    {"http://256.0.0.1/", "ambiguous IPv4"},
    {"http://1.2.3.4.5/", "ambiguous IPv4"},
    {"http://example.0x1/", "ambiguous IPv4"},
    {"http://example.123/", "ambiguous IPv4"},
    {"http://example.test./", "has an empty label"},
    {"http://.example.test/", "has an empty label"},
    {"http://example..test/", "has an empty label"},
    {"http://exa!mple.test/", "holds '!'"},
    {"http://exa*mple.test/", "holds '*'"},
    {"http://" + std::string(64, 'a') + ".test/", "label longer than 63"},
    {"http://" + std::string(250, 'a') + ".test/", "longer than 253"},
    {"http://::1/", "write an IPv6 address in brackets"},
    {"http://[::1/", "no closing ']'"},
    {"http://[::1]x/", "unexpected text after ']'"},
    {"http://[fe80::1%25eth0]/", "zone id"},
    {"http://[v1.abc]/", "is not an IPv6 address"},
    {"http://[1:2:3]/", "is not an IPv6 address"},
    {"http://[]/", "is not an IPv6 address"},
    {"http://example.test:0/", "port '0' is not in 1..65535"},
    {"http://example.test:65536/", "port '65536' is not in 1..65535"},
    {"http://example.test:99999999999/", "is not in 1..65535"},
    {"http://example.test:/", "port is empty"},
    {"http://example.test:08080/", "leading zero"},
    {"http://example.test:+80/", "is not a number"},
    {"http://example.test:8a/", "is not a number"},
    {"http://example.test/%zz", "does not start a percent escape"},
    {"http://example.test/%4", "does not start a percent escape"},
    {"http://example.test/<script>", "character '<'"},
    {"http://example.test/a\"b", "character '\"'"},
    {"http://example.test/{x}", "character '{'"},
    {"http://example.test/a|b", "character '|'"},
    {"http://example.test/#a#b", "second '#'"},
    {"http://example.test/" + std::string(9000, 'a'), "longer than 8192"},
};

TEST(ParseUrl, RefusesEveryAmbiguousOrMalformedFormNamingTheProblem) {
  for (const auto& c : kRefused) {
    const auto url = parse_url(c.text);
    ASSERT_FALSE(url) << c.text << " parsed as " << url->text;
    EXPECT_THAT(url.error().message, HasSubstr(c.reason)) << c.text;
  }
}

// The rule a refusal names is what provenance and the audit log record: a
// few fixed words, never the URL's own bytes.
TEST(ParseUrl, NamesTheRuleEveryRefusalBreaks) {
  const std::pair<std::string, const char*> cases[] = {
      {"", "empty url"},
      {"http://example.test/" + std::string(9000, 'a'), "url too long"},
      {"example.test/", "not an absolute url"},
      {"file:///etc/passwd", "scheme file not allowed"},
      {"GOPHER://example.test/", "scheme gopher not allowed"},
      {"http:example.test", "no host"},
      {"http:///path", "no host"},
      {"http://user:pass@example.test/", "userinfo not allowed"},
      {"http://example.test\\@evil.test/", "backslash not allowed"},
      {"http://exa mple.test/", "space not allowed"},
      {"http://example.test/\r\nX: 1", "control character not allowed"},
      {"http://ex\xc3\xa4mple.test/", "non-ASCII byte not allowed"},
      {"http://example%2etest/", "percent-encoded host not allowed"},
      {"http://127.1/", "ambiguous IPv4 address"},
      {"http://2130706433/", "ambiguous IPv4 address"},
      {"http://0x7f.0.0.1/", "ambiguous IPv4 address"},
      {"http://example..test/", "empty host label"},
      {"http://" + std::string(64, 'a') + ".test/", "host label too long"},
      {"http://" + std::string(250, 'a') + ".test/", "host too long"},
      {"http://exa!mple.test/", "character not allowed in host"},
      {"http://::1/", "colon in host"},
      {"http://[::1/", "unclosed IPv6 literal"},
      {"http://[::1]x/", "text after IPv6 literal"},
      {"http://[fe80::1%25eth0]/", "IPv6 zone id not allowed"},
      {"http://[1:2:3]/", "malformed IPv6 address"},
      {"http://example.test:0/", "port out of range"},
      {"http://example.test:/", "empty port"},
      {"http://example.test:08080/", "port with leading zero"},
      {"http://example.test:8a/", "port not a number"},
      {"http://example.test/%zz", "malformed percent escape"},
      {"http://example.test/<script>", "character not allowed in url"},
      {"http://example.test/#a#b", "second fragment"},
  };
  for (const auto& [text, rule] : cases) {
    const auto url = parse_url(text);
    ASSERT_FALSE(url) << text << " parsed as " << url->text;
    EXPECT_EQ(url.error().rule, rule) << text << ": " << url.error().message;
  }
  for (const auto& c : kRefused) {
    const auto url = parse_url(c.text);
    ASSERT_FALSE(url) << c.text;
    EXPECT_FALSE(url.error().rule.empty()) << c.text << ": " << url.error().message;
  }
}

TEST(ParseUrl, NeverEchoesControlCharactersInItsErrors) {
  const auto url = parse_url("http://example.test/\r\nSet-Cookie: x");
  ASSERT_FALSE(url);
  EXPECT_EQ(url.error().message.find('\r'), std::string::npos);
  EXPECT_EQ(url.error().message.find('\n'), std::string::npos);
  EXPECT_THAT(url.error().message, HasSubstr("\\x0d\\x0a"));
}

TEST(SchemeName, NamesBothSchemesAndTheirPorts) {
  EXPECT_EQ(scheme_name(Scheme::http), "http");
  EXPECT_EQ(scheme_name(Scheme::https), "https");
  EXPECT_EQ(default_port(Scheme::http), 80);
  EXPECT_EQ(default_port(Scheme::https), 443);
}

// --- resolve_redirect

Url base_url() {
  auto url = parse_url("http://a.test/b/c/d;p?q");
  EXPECT_TRUE(url);
  return *url;
}

// RFC 3986 section 5.4.1 (normal examples) and 5.4.2 (abnormal), with the
// base "http://a/b/c/d;p?q" renamed to a.test and fragments dropped.
TEST(ResolveRedirect, FollowsTheReferenceResolutionExamplesOfRfc3986) {
  const std::pair<const char*, const char*> cases[] = {
      {"g", "http://a.test/b/c/g"},
      {"./g", "http://a.test/b/c/g"},
      {"g/", "http://a.test/b/c/g/"},
      {"/g", "http://a.test/g"},
      {"//g.test", "http://g.test/"},
      {"?y", "http://a.test/b/c/d;p?y"},
      {"g?y", "http://a.test/b/c/g?y"},
      {"#s", "http://a.test/b/c/d;p?q"},
      {"g#s", "http://a.test/b/c/g"},
      {"g?y#s", "http://a.test/b/c/g?y"},
      {";x", "http://a.test/b/c/;x"},
      {"g;x", "http://a.test/b/c/g;x"},
      {"", "http://a.test/b/c/d;p?q"},
      {".", "http://a.test/b/c/"},
      {"./", "http://a.test/b/c/"},
      {"..", "http://a.test/b/"},
      {"../", "http://a.test/b/"},
      {"../g", "http://a.test/b/g"},
      {"../..", "http://a.test/"},
      {"../../", "http://a.test/"},
      {"../../g", "http://a.test/g"},
      {"../../../g", "http://a.test/g"},
      {"../../../../g", "http://a.test/g"},
      {"/./g", "http://a.test/g"},
      {"/../g", "http://a.test/g"},
      {"g.", "http://a.test/b/c/g."},
      {".g", "http://a.test/b/c/.g"},
      {"g..", "http://a.test/b/c/g.."},
      {"..g", "http://a.test/b/c/..g"},
      {"./../g", "http://a.test/b/g"},
      {"./g/.", "http://a.test/b/c/g/"},
      {"g/./h", "http://a.test/b/c/g/h"},
      {"g/../h", "http://a.test/b/c/h"},
      {"g;x=1/./y", "http://a.test/b/c/g;x=1/y"},
      {"g;x=1/../y", "http://a.test/b/c/y"},
      {"g?y/./x", "http://a.test/b/c/g?y/./x"},
      {"g?y/../x", "http://a.test/b/c/g?y/../x"},
      {"https://other.test:8443/x/../y?z", "https://other.test:8443/y?z"},
      {"HTTP://Other.TEST/", "http://other.test/"},
  };
  const Url base = base_url();
  for (const auto& [location, expected] : cases) {
    const auto url = resolve_redirect(base, location);
    ASSERT_TRUE(url) << location << ": " << url.error().message;
    EXPECT_EQ(url->text, expected) << location;
  }
}

TEST(ResolveRedirect, KeepsTheBasePortAndSchemeForRelativeAndSchemeRelativeLocations) {
  const auto base = parse_url("https://a.test:8443/dir/page");
  ASSERT_TRUE(base);
  EXPECT_EQ(resolve_redirect(*base, "next")->text, "https://a.test:8443/dir/next");
  EXPECT_EQ(resolve_redirect(*base, "//b.test/x")->text, "https://b.test/x");
  EXPECT_EQ(resolve_redirect(*base, "//b.test:9/x")->port, 9);
  const auto ipv6 = parse_url("http://[::1]:8080/a/b");
  ASSERT_TRUE(ipv6);
  EXPECT_EQ(resolve_redirect(*ipv6, "../c")->text, "http://[::1]:8080/c");
}

TEST(ResolveRedirect, PreservesPercentEncodingByteForByte) {
  const Url base = base_url();
  const auto url = resolve_redirect(base, "/r?to=https%3A%2F%2Fattacker.test%2F");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->text, "http://a.test/r?to=https%3A%2F%2Fattacker.test%2F");
  EXPECT_EQ(url->host, "a.test");
  // Encoded dots are data, not segments, and case of escapes is kept.
  EXPECT_EQ(resolve_redirect(base, "%2e%2E/%2Fx")->text, "http://a.test/b/c/%2e%2E/%2Fx");
  EXPECT_EQ(resolve_redirect(base, "/a/%2e%2e/b")->text, "http://a.test/a/%2e%2e/b");
}

// A fuzz finding (tests/fuzz/corpus/egress_redirect): dot-segment removal
// turned the path of a location with a scheme and no authority into "//x",
// which then read back as the host x.
TEST(ResolveRedirect, NeverTurnsAPathIntoAHost) {
  const Url base = base_url();
  for (const char* location : {"http:/./..//evil.test/x", "http:/..//evil.test", "http:/.//evil.test",
                               "https:/a/../..//evil.test/"}) {
    const auto url = resolve_redirect(base, location);
    EXPECT_FALSE(url) << location << " resolved to " << url->text;
  }
  // With an authority, the same path stays a path.
  const auto url = resolve_redirect(base, "/./..//evil.test/x");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->host, "a.test");
  EXPECT_EQ(url->target, "//evil.test/x");
}

TEST(ResolveRedirect, RefusesLocationsThatAreNotUsableHttpUrls) {
  const Url base = base_url();
  const std::pair<const char*, const char*> cases[] = {
      {"ftp://a.test/", "scheme 'ftp' is not http or https"},
      {"g:h", "scheme 'g' is not http or https"},
      {"http:g", "has no '//' and host"},
      {"//user@evil.test/", "has userinfo"},
      {"//127.1/", "ambiguous IPv4"},
      {"/a b", "has a space"},
      {"/\x01", "has a control character"},
      {"//evil%2etest/", "percent-encoded"},
  };
  for (const auto& [location, reason] : cases) {
    const auto url = resolve_redirect(base, location);
    ASSERT_FALSE(url) << location << " resolved to " << url->text;
    EXPECT_THAT(url.error().message, HasSubstr("redirect location")) << location;
    EXPECT_THAT(url.error().message, HasSubstr(reason)) << location;
  }
}

TEST(ResolveRedirect, NamesTheRuleARefusedLocationBreaks) {
  const Url base = base_url();
  const std::pair<const char*, const char*> cases[] = {
      {"file:///etc/passwd", "scheme file not allowed"},
      {"gopher://a.test:70/", "scheme gopher not allowed"},
      {"http://2130706433/", "ambiguous IPv4 address"},
      {"//user@evil.test/", "userinfo not allowed"},
      {"/\x01", "control character not allowed"},
      {"//evil%2etest/", "percent-encoded host not allowed"},
  };
  for (const auto& [location, rule] : cases) {
    const auto url = resolve_redirect(base, location);
    ASSERT_FALSE(url) << location << " resolved to " << url->text;
    EXPECT_EQ(url.error().rule, rule) << location << ": " << url.error().message;
  }
}

}  // namespace
}  // namespace airlock::host
