// Tests for a tool's egress set: grants as operators write them
// (parse_egress_rule), which URLs they admit (EgressPolicy::match), which
// addresses are special (special_range) and which of those a set opens
// (parse_address_range, refuse_address).
#include "egress/address_ranges.hpp"
#include "egress/egress_policy.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace airlock::host {
namespace {

using ::testing::HasSubstr;
namespace ip = boost::asio::ip;

EgressRule rule(std::string_view text) {
  auto parsed = parse_egress_rule(text);
  EXPECT_TRUE(parsed) << text << ": " << parsed.error().message;
  return parsed ? *parsed : EgressRule{};
}

Url url(std::string_view text) {
  auto parsed = parse_url(text);
  EXPECT_TRUE(parsed) << text << ": " << parsed.error().message;
  return parsed ? *parsed : Url{};
}

AddressRange range(std::string_view text) {
  auto parsed = parse_address_range(text);
  EXPECT_TRUE(parsed) << text << ": " << parsed.error().message;
  return parsed ? *parsed : AddressRange{};
}

ip::address address(const char* text) { return ip::make_address(text); }

// --- parse_egress_rule

TEST(ParseEgressRule, ReadsSchemeHostAndPortAsWritten) {
  const auto full = rule("HTTPS://API.Example.test:8443");
  EXPECT_EQ(full.text, "HTTPS://API.Example.test:8443");
  ASSERT_TRUE(full.scheme);
  EXPECT_EQ(*full.scheme, Scheme::https);
  EXPECT_EQ(full.host, "api.example.test");
  EXPECT_EQ(full.port, std::uint16_t{8443});
  EXPECT_FALSE(full.any_port);

  const auto bare = rule("example.test");
  EXPECT_FALSE(bare.scheme);
  EXPECT_EQ(bare.host, "example.test");
  EXPECT_FALSE(bare.port);
  EXPECT_FALSE(bare.any_port);

  const auto wildcard = rule("http://*.Example.test:*");
  EXPECT_EQ(*wildcard.scheme, Scheme::http);
  EXPECT_EQ(wildcard.host, "*.example.test");
  EXPECT_TRUE(wildcard.any_port);

  EXPECT_EQ(rule("*").host, "*");
  EXPECT_EQ(rule("127.0.0.1:8080").host, "127.0.0.1");
  EXPECT_EQ(rule("[::1]:8080").host, "::1");
  EXPECT_EQ(rule("[::1]:8080").port, std::uint16_t{8080});
  EXPECT_EQ(rule("[FD00:EC2::254]").host, "fd00:ec2::254");
}

TEST(ParseEgressRule, RefusesEveryMalformedGrantNamingTheProblem) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "egress rule is empty"},
      {"example.test ", "holds a space"},
      {"exa\tmple.test", "control character"},
      {"ftp://example.test", "scheme 'ftp' is not http or https"},
      {"https://user@example.test", "has userinfo"},
      {"https://example.test/", "has a path"},
      {"https://example.test/api", "has a path"},
      {"example.test?x=1", "has a query"},
      {"example.test#top", "has a fragment"},
      {"https://", "has no host"},
      {":443", "has no host"},
      {"example.test:0", "port '0' is not in 1..65535"},
      {"example.test:65536", "is not in 1..65535"},
      {"example.test:", "port is empty"},
      {"example.test:http", "is not a number"},
      {"*example.test", "'*' may only be the whole host"},
      {"api.*.test", "'*' may only be the whole host"},
      {"*.*.test", "'*' may only be the whole host"},
      {"*.", "host is empty"},
      {"*.127.0.0.1", "must be followed by a name"},
      {"127.1", "ambiguous IPv4"},
      {"0x7f.0.0.1:80", "ambiguous IPv4"},
      {"example%2etest", "percent-encoded"},
      {"example..test", "empty label"},
      {"::1", "write an IPv6 address in brackets"},
      {"[::1", "no closing ']'"},
      {"[::1]80", "unexpected text after ']'"},
      {"[fe80::1%25eth0]", "zone id"},
  };
  for (const auto& [text, reason] : cases) {
    const auto parsed = parse_egress_rule(text);
    ASSERT_FALSE(parsed) << "'" << text << "' parsed";
    EXPECT_THAT(parsed.error().message, HasSubstr(reason)) << text;
  }
}

// --- EgressPolicy::match

const char* matched(const EgressPolicy& policy, std::string_view target) {
  const EgressRule* found = policy.match(url(target));
  return found ? found->text.c_str() : nullptr;
}

TEST(EgressPolicyMatch, AdmitsAnExactNameOnTheSchemesDefaultPortOnly) {
  const EgressPolicy policy({rule("api.example.test")}, {});
  EXPECT_STREQ(matched(policy, "https://api.example.test/x"), "api.example.test");
  EXPECT_STREQ(matched(policy, "http://api.example.test/x"), "api.example.test");
  EXPECT_STREQ(matched(policy, "https://API.EXAMPLE.TEST:443/"), "api.example.test");
  EXPECT_EQ(matched(policy, "https://api.example.test:8443/"), nullptr);
  EXPECT_EQ(matched(policy, "http://api.example.test:443/"), nullptr);   // 443 is not http's default
  EXPECT_EQ(matched(policy, "https://api.example.test:80/"), nullptr);
  EXPECT_EQ(matched(policy, "https://example.test/"), nullptr);
  EXPECT_EQ(matched(policy, "https://x.api.example.test/"), nullptr);
  EXPECT_EQ(matched(policy, "https://api.example.test.evil.test/"), nullptr);
  EXPECT_EQ(matched(policy, "https://evilapi.example.test/"), nullptr);
}

TEST(EgressPolicyMatch, HonoursTheScheme) {
  const EgressPolicy policy({rule("https://secure.test"), rule("http://plain.test:8080")}, {});
  EXPECT_STREQ(matched(policy, "https://secure.test/"), "https://secure.test");
  EXPECT_EQ(matched(policy, "http://secure.test/"), nullptr);
  EXPECT_EQ(matched(policy, "http://secure.test:443/"), nullptr);
  EXPECT_STREQ(matched(policy, "http://plain.test:8080/"), "http://plain.test:8080");
  EXPECT_EQ(matched(policy, "https://plain.test:8080/"), nullptr);
}

TEST(EgressPolicyMatch, WildcardSuffixAdmitsNamesBelowItButNotTheApex) {
  const EgressPolicy policy({rule("*.example.test")}, {});
  EXPECT_STREQ(matched(policy, "https://a.example.test/"), "*.example.test");
  EXPECT_STREQ(matched(policy, "https://a.b.example.test/"), "*.example.test");
  EXPECT_EQ(matched(policy, "https://example.test/"), nullptr);
  EXPECT_EQ(matched(policy, "https://badexample.test/"), nullptr);
  EXPECT_EQ(matched(policy, "https://example.test.evil.test/"), nullptr);
  EXPECT_EQ(matched(policy, "https://a.example.test:8443/"), nullptr);
}

TEST(EgressPolicyMatch, AnyPortAndExplicitPorts) {
  const EgressPolicy policy({rule("any.test:*"), rule("one.test:9000")}, {});
  EXPECT_STREQ(matched(policy, "http://any.test:1/"), "any.test:*");
  EXPECT_STREQ(matched(policy, "https://any.test:65535/"), "any.test:*");
  EXPECT_STREQ(matched(policy, "https://any.test/"), "any.test:*");
  EXPECT_STREQ(matched(policy, "http://one.test:9000/"), "one.test:9000");
  EXPECT_STREQ(matched(policy, "https://one.test:9000/"), "one.test:9000");
  EXPECT_EQ(matched(policy, "http://one.test/"), nullptr);
  EXPECT_EQ(matched(policy, "http://one.test:9001/"), nullptr);
}

TEST(EgressPolicyMatch, StarAdmitsAnyHostOnDefaultPorts) {
  const EgressPolicy policy({rule("*")}, {});
  EXPECT_STREQ(matched(policy, "https://anything.test/"), "*");
  EXPECT_STREQ(matched(policy, "http://93.184.216.34/"), "*");
  EXPECT_STREQ(matched(policy, "http://[2001:4860::8888]/"), "*");
  EXPECT_EQ(matched(policy, "http://anything.test:8080/"), nullptr);
}

TEST(EgressPolicyMatch, LiteralAddressesMatchByAddressNotByName) {
  const EgressPolicy policy({rule("127.0.0.1:*"), rule("[::1]:*")}, {});
  EXPECT_STREQ(matched(policy, "http://127.0.0.1:8080/"), "127.0.0.1:*");
  EXPECT_STREQ(matched(policy, "http://[::1]:8080/"), "[::1]:*");
  EXPECT_STREQ(matched(policy, "http://[0:0::1]:8080/"), "[::1]:*");
  EXPECT_EQ(matched(policy, "http://127.0.0.2:8080/"), nullptr);
  EXPECT_EQ(matched(policy, "http://localhost:8080/"), nullptr);
}

TEST(EgressPolicyMatch, ReturnsTheFirstRuleThatAdmitsAndNothingWhenEmpty) {
  const EgressPolicy policy({rule("http://*.example.test:*"), rule("a.example.test")}, {});
  EXPECT_STREQ(matched(policy, "http://a.example.test/"), "http://*.example.test:*");
  EXPECT_STREQ(matched(policy, "https://a.example.test/"), "a.example.test");
  const EgressPolicy nothing;
  EXPECT_TRUE(nothing.empty());
  EXPECT_EQ(matched(nothing, "https://a.example.test/"), nullptr);
  EXPECT_EQ(nothing.describe_grants(), "none");
  EXPECT_EQ(policy.describe_grants(), "http://*.example.test:*, a.example.test");
}

// --- special_range

TEST(SpecialRange, ClassifiesIpv4SpecialPurposeAddresses) {
  const std::pair<const char*, const char*> cases[] = {
      {"127.0.0.1", "loopback"},        {"127.255.255.254", "loopback"},
      {"10.1.2.3", "private"},          {"172.16.0.1", "private"},
      {"172.31.255.255", "private"},    {"192.168.1.1", "private"},
      {"169.254.1.1", "link-local"},    {"169.254.169.254", "cloud metadata"},
      {"100.100.100.200", "cloud metadata"}, {"100.64.0.1", "shared"},
      {"100.127.255.255", "shared"},    {"0.0.0.0", "unspecified"},
      {"0.1.2.3", "unspecified"},       {"224.0.0.1", "multicast"},
      {"239.255.255.250", "multicast"}, {"255.255.255.255", "broadcast"},
      {"240.0.0.1", "reserved"},        {"192.0.2.10", "documentation"},
      {"198.51.100.7", "documentation"}, {"203.0.113.9", "documentation"},
      {"198.18.0.1", "reserved"},       {"192.0.0.8", "reserved"},
  };
  for (const auto& [text, name] : cases) {
    const auto found = special_range(address(text));
    ASSERT_TRUE(found) << text;
    EXPECT_EQ(*found, name) << text;
  }
  for (const char* ordinary : {"93.184.216.34", "8.8.8.8", "172.32.0.1", "172.15.255.255", "100.128.0.1",
                               "169.253.255.255", "192.169.0.1", "1.1.1.1", "223.255.255.255"}) {
    EXPECT_FALSE(special_range(address(ordinary))) << ordinary;
  }
}

TEST(SpecialRange, ClassifiesIpv6AndJudgesEmbeddedIpv4ByTheAddressInside) {
  const std::pair<const char*, const char*> cases[] = {
      {"::1", "loopback"},
      {"::", "unspecified"},
      {"fe80::1", "link-local"},
      {"fc00::1", "private"},
      {"fd12:3456::1", "private"},
      {"fd00:ec2::254", "cloud metadata"},
      {"ff02::1", "multicast"},
      {"2001:db8::1", "documentation"},
      {"::ffff:127.0.0.1", "loopback"},
      {"::ffff:10.0.0.1", "private"},
      {"::ffff:169.254.169.254", "cloud metadata"},
      {"::127.0.0.1", "loopback"},
      {"64:ff9b::7f00:1", "loopback"},
      {"64:ff9b::a9fe:a9fe", "cloud metadata"},
      {"2002:7f00:1::", "loopback"},
      {"2002:c0a8:101::1", "private"},
      {"64:ff9b:1::1", "private"},
      {"100::1", "reserved"},
      {"2001::1", "reserved"},
      {"4000::1", "reserved"},
      {"fec0::1", "private"},
  };
  for (const auto& [text, name] : cases) {
    const auto found = special_range(address(text));
    ASSERT_TRUE(found) << text;
    EXPECT_EQ(*found, name) << text;
  }
  for (const char* ordinary : {"2606:4700::1111", "2a00:1450:4001::1", "::ffff:8.8.8.8", "64:ff9b::808:808",
                               "2002:808:808::1"}) {
    EXPECT_FALSE(special_range(address(ordinary))) << ordinary;
  }
}

// --- parse_address_range and AddressRange::contains

TEST(AddressRange, ParsesNetworksAndSingleAddresses) {
  const auto net = range("10.0.0.0/8");
  EXPECT_EQ(net.prefix, 8u);
  EXPECT_EQ(net.text, "10.0.0.0/8");
  EXPECT_TRUE(net.contains(address("10.255.0.1")));
  EXPECT_FALSE(net.contains(address("11.0.0.1")));
  EXPECT_FALSE(net.contains(address("::1")));

  const auto single = range("127.0.0.1");
  EXPECT_EQ(single.prefix, 32u);
  EXPECT_TRUE(single.contains(address("127.0.0.1")));
  EXPECT_FALSE(single.contains(address("127.0.0.2")));

  const auto v6 = range("fd00::/8");
  EXPECT_TRUE(v6.contains(address("fd12::1")));
  EXPECT_FALSE(v6.contains(address("fc00::1")));
  EXPECT_FALSE(v6.contains(address("10.0.0.1")));
  EXPECT_EQ(range("::1").prefix, 128u);
  EXPECT_TRUE(range("0.0.0.0/0").contains(address("8.8.8.8")));
  EXPECT_TRUE(range("172.16.0.0/12").contains(address("172.31.1.1")));
  EXPECT_FALSE(range("172.16.0.0/12").contains(address("172.32.1.1")));
}

TEST(AddressRange, ContainsTheIpv4MappedFormOfItsAddresses) {
  const auto loopback = range("127.0.0.0/8");
  EXPECT_TRUE(loopback.contains(address("::ffff:127.0.0.1")));
  EXPECT_FALSE(loopback.contains(address("::ffff:10.0.0.1")));
}

TEST(AddressRange, RefusesMalformedRangesNamingTheProblem) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "is not an IPv4 or IPv6 address"},
      {"localhost", "is not an IPv4 or IPv6 address"},
      {"127.1", "is not an IPv4 or IPv6 address"},
      {"10.0.0.0/33", "prefix /33 is longer than 32 bits"},
      {"::/129", "prefix /129 is longer than 128 bits"},
      {"10.0.0.0/", "is not a number of bits"},
      {"10.0.0.0/x", "is not a number of bits"},
      {"10.0.0.0/08", "is not a number of bits"},
      {"10.0.0.0/-1", "is not a number of bits"},
      {"10.0.0.1/8", "has bits set past its /8 prefix"},
      {"fd00::1/8", "has bits set past its /8 prefix"},
      {"fe80::1%eth0", "zone id"},
  };
  for (const auto& [text, reason] : cases) {
    const auto parsed = parse_address_range(text);
    ASSERT_FALSE(parsed) << "'" << text << "' parsed";
    EXPECT_THAT(parsed.error().message, HasSubstr(reason)) << text;
    EXPECT_THAT(parsed.error().message, HasSubstr("address range '" + std::string(text) + "'")) << text;
  }
}

// --- EgressPolicy::refuse_address

TEST(RefuseAddress, AllowsOrdinaryAddressesAndRefusesSpecialOnesWithAReason) {
  const EgressPolicy policy({rule("*.example.test")}, {});
  const EgressRule& grant = policy.rules()[0];
  EXPECT_FALSE(policy.refuse_address(address("93.184.216.34"), grant));
  EXPECT_EQ(policy.refuse_address(address("127.0.0.1"), grant),
            "127.0.0.1 is loopback and egress_addresses does not grant it");
  EXPECT_EQ(policy.refuse_address(address("169.254.169.254"), grant),
            "169.254.169.254 is cloud metadata and egress_addresses does not grant it");
  EXPECT_EQ(policy.refuse_address(address("::ffff:10.0.0.1"), grant),
            "::ffff:10.0.0.1 is private and egress_addresses does not grant it");
}

TEST(RefuseAddress, AllowsASpecialAddressInsideAGrantedRange) {
  const EgressPolicy policy({rule("*.test:*")}, {range("127.0.0.0/8"), range("fd00::/8")});
  const EgressRule& grant = policy.rules()[0];
  EXPECT_FALSE(policy.refuse_address(address("127.0.0.1"), grant));
  EXPECT_FALSE(policy.refuse_address(address("127.9.9.9"), grant));
  EXPECT_FALSE(policy.refuse_address(address("::ffff:127.0.0.1"), grant));
  EXPECT_FALSE(policy.refuse_address(address("fd00::5"), grant));
  EXPECT_TRUE(policy.refuse_address(address("10.0.0.1"), grant));
  EXPECT_TRUE(policy.refuse_address(address("169.254.169.254"), grant));
  EXPECT_TRUE(policy.refuse_address(address("::1"), grant));
}

TEST(RefuseAddress, AllowsTheVeryAddressAGrantWritesLiterallyAndNoOther) {
  const EgressPolicy policy({rule("169.254.169.254"), rule("[::1]:*"), rule("*")}, {});
  EXPECT_FALSE(policy.refuse_address(address("169.254.169.254"), policy.rules()[0]));
  EXPECT_TRUE(policy.refuse_address(address("169.254.169.253"), policy.rules()[0]));
  EXPECT_FALSE(policy.refuse_address(address("::1"), policy.rules()[1]));
  EXPECT_TRUE(policy.refuse_address(address("127.0.0.1"), policy.rules()[1]));
  // "*" admits every name, but no special address comes with it.
  EXPECT_TRUE(policy.refuse_address(address("169.254.169.254"), policy.rules()[2]));
  EXPECT_TRUE(policy.refuse_address(address("127.0.0.1"), policy.rules()[2]));
}

}  // namespace
}  // namespace airlock::host
