// [egress] and the tool bindings' egress grants (config/egress_section.cpp).
#include "config_test_support.hpp"

#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;
using config_test::error_of;
using config_test::parse;
using testing::HasSubstr;

// --- egress

TEST(HostConfigEgress, ReadsGrantsAddressesAndHostWideSettings) {
  const auto config = parse(R"([egress]
timeout_ms = 2500
max_response_bytes = 4096
max_redirects = 2

[egress.hosts]
"Docs.Test" = ["127.0.0.1", "::1"]

[tools."web.fetch"]
egress = ["https://*.example.org", "http://docs.test:8080"]
egress_addresses = ["127.0.0.0/8"]

[tools."web.*"]
egress = []
)");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->egress.timeout_ms, 2500u);
  EXPECT_EQ(config->egress.max_response_bytes, 4096u);
  EXPECT_EQ(config->egress.max_redirects, 2u);
  ASSERT_EQ(config->egress.hosts.count("docs.test"), 1u);  // names are lowercased
  EXPECT_EQ(config->egress.hosts.at("docs.test").size(), 2u);
  ASSERT_EQ(config->tools.size(), 2u);
  const auto& fetch = config->tools[0];
  ASSERT_TRUE(fetch.egress.has_value());
  ASSERT_EQ(fetch.egress->size(), 2u);
  EXPECT_EQ((*fetch.egress)[0].text, "https://*.example.org");
  EXPECT_EQ((*fetch.egress)[1].port, std::optional<std::uint16_t>(8080));
  ASSERT_EQ(fetch.egress_addresses.size(), 1u);
  EXPECT_EQ(fetch.egress_addresses[0].text, "127.0.0.0/8");
  // An empty list is a binding that grants nothing, not an absent one.
  ASSERT_TRUE(config->tools[1].egress.has_value());
  EXPECT_TRUE(config->tools[1].egress->empty());
}

TEST(HostConfigEgress, DefaultsGrantNothing) {
  const auto config = parse("[tools.\"web.fetch\"]\nchain = \"none\"\n");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_FALSE(config->tools[0].egress.has_value());
  EXPECT_TRUE(config->egress.hosts.empty());
  EXPECT_EQ(config->egress.max_redirects, 5u);
}

TEST(HostConfigEgress, NamesTheGrantThatDoesNotParse) {
  const auto message = error_of("[tools.\"web.fetch\"]\negress = [\"https://ok.example\", \"https://a.example/path\"]\n");
  EXPECT_THAT(message, HasSubstr("airlock.toml:2:"));
  EXPECT_THAT(message, HasSubstr("tools.\"web.fetch\".egress[1]"));
}

TEST(HostConfigEgress, RefusesAddressGrantsWithoutDestinations) {
  const auto message = error_of("[tools.\"web.fetch\"]\negress_addresses = [\"10.0.0.0/8\"]\n");
  EXPECT_THAT(message, HasSubstr("egress_addresses"));
  EXPECT_THAT(message, HasSubstr("'egress'"));
}

TEST(HostConfigEgress, RefusesABadAddressRange) {
  const auto message =
      error_of("[tools.\"web.fetch\"]\negress = [\"http://x.test\"]\negress_addresses = [\"10.0.0.0/33\"]\n");
  EXPECT_THAT(message, HasSubstr("egress_addresses[0]"));
}

TEST(HostConfigEgress, RefusesResolverEntriesThatAreNotAddresses) {
  EXPECT_THAT(error_of("[egress.hosts]\n\"docs.test\" = [\"localhost\"]\n"),
              HasSubstr("expected an IPv4 or IPv6 address, got \"localhost\""));
  EXPECT_THAT(error_of("[egress.hosts]\n\"docs test\" = [\"127.0.0.1\"]\n"), HasSubstr("expected a host name"));
  EXPECT_THAT(error_of("[egress]\nmax_redirects = 21\n"), HasSubstr("egress.max_redirects"));
  EXPECT_THAT(error_of("[egress]\nproxy = \"x\"\n"), HasSubstr("unknown key 'proxy' in [egress]"));
}

}  // namespace
}  // namespace airlock::host
