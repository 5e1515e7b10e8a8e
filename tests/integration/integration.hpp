// Shared by the integration tests: the configs they start airlock with.
#pragma once

#include "canary.h"
#include "mcp_stdio_client.hpp"
#include "temp_config.hpp"
#include "test_paths.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace airlock::test {

// The canary fixture's marker: a tool result carrying it must never leak
// when its chain fails, neither to the client nor to the log.
// kCanaryCore is the part a partial leak would still show.
inline constexpr std::string_view kCanary = AIRLOCK_CANARY;
inline constexpr std::string_view kCanaryCore = kCanary.substr(kCanary.size() - 6);
static_assert(kCanaryCore == "7f3a9c");

// A config loading the first-party and example plugins plus the canary
// fixture, with `rest` (chains and bindings) appended.
inline std::string standard_config(std::string_view rest = "", std::string_view server_extra = "") {
  std::string toml = "[server]\n"
                     "name = \"test-server\"\n"
                     "page_size = 2\n"
                     "max_message_bytes = 65536\n"
                     "workers = 4\n";
  toml += server_extra;
  toml += "\n[plugins]\n" + toml_dirs({kPluginDir, fixture_dir("canary")}) +
          "\non_error = \"fail\"\n\n";
  toml += rest;
  return toml;
}

// A server on `config`, already initialized; fails the test if it is not.
inline std::unique_ptr<McpStdioClient> start_initialized(const TempConfig& config) {
  std::unique_ptr<McpStdioClient> client = serve(config.path());
  const Message init = client->initialize();
  EXPECT_NE(nullptr, find(init, "/result")) << init.line << "\nstderr:\n" << client->stderr_text();
  return client;
}

// The text of the first content block of a tools/call result.
inline std::string first_text(const Message& m) { return string_at(m, "/result/content/0/text"); }

// The text of every text content block of a tools/call result.
inline std::vector<std::string> all_texts(const Message& m) {
  std::vector<std::string> texts;
  const boost::json::value* content = find(m, "/result/content");
  if (!content || !content->is_array()) return texts;
  for (const boost::json::value& block : content->as_array()) {
    const boost::json::object* o = block.if_object();
    if (o && o->contains("text") && o->at("text").is_string())
      texts.emplace_back(o->at("text").as_string());
  }
  return texts;
}

}  // namespace airlock::test
