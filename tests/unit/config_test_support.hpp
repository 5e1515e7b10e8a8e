// Shared by the config tests (one per area of host/config): parse a config
// from text, and the error a config must produce.
#pragma once

#include "config/host_config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace airlock::host::config_test {

inline Result<Config> parse(std::string_view text) { return parse_config(text, "airlock.toml"); }

// The error a config must produce; fails the test when it parses.
inline std::string error_of(std::string_view text) {
  const auto config = parse(text);
  EXPECT_FALSE(config.has_value()) << "config parsed, but an error was expected";
  return config.has_value() ? std::string() : config.error().message;
}

}  // namespace airlock::host::config_test
