// Which plugins run in a worker: [isolation] as the config reader takes it,
// and the decision the registry asks for each plugin.
#include "config/host_config.hpp"
#include "isolation/isolation_policy.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace airlock::host {
namespace {

using ::testing::HasSubstr;

Config parse(const std::string& text) {
  auto config = parse_config(text, "/etc/airlock/airlock.toml");
  EXPECT_TRUE(config) << (config ? "" : config.error().message);
  return config ? std::move(*config) : Config{};
}

std::string error_of(const std::string& text) {
  auto config = parse_config(text, "airlock.toml");
  return config ? std::string("(accepted)") : config.error().message;
}

// Sets AIRLOCK_ISOLATION for one test, and puts back what was there.
class Environment {
 public:
  explicit Environment(const char* value) {
    if (const char* old = std::getenv("AIRLOCK_ISOLATION")) old_ = old;
    if (value)
      setenv("AIRLOCK_ISOLATION", value, 1);
    else
      unsetenv("AIRLOCK_ISOLATION");
  }
  ~Environment() {
    if (old_)
      setenv("AIRLOCK_ISOLATION", old_->c_str(), 1);
    else
      unsetenv("AIRLOCK_ISOLATION");
  }
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

 private:
  std::optional<std::string> old_;
};

TEST(IsolationPolicy, RunsAThirdPartyDirectoryInAWorker) {
  Environment env(nullptr);
  const Config config = parse("");
  const auto d = IsolationPolicy(config).decide("/opt/vendor/plugins", "");
  EXPECT_TRUE(d.isolated);
  EXPECT_EQ(d.reason, "third-party");
}

TEST(IsolationPolicy, RunsAirlocksOwnPluginDirectoryInProcess) {
  Environment env(nullptr);
  const Config config = parse("");
  const auto d = IsolationPolicy(config).decide(AIRLOCK_PLUGIN_DIR, "");
  EXPECT_FALSE(d.isolated);
  EXPECT_EQ(d.reason, "airlock's own plugin directory");
  EXPECT_TRUE(is_first_party_dir(std::string(AIRLOCK_PLUGIN_DIR) + "/"));
  EXPECT_FALSE(is_first_party_dir(std::string(AIRLOCK_PLUGIN_DIR) + "/../fixtures"));
}

TEST(IsolationPolicy, RunsADirectoryOrPackTheOperatorTrustsInProcessAndNothingElse) {
  Environment env(nullptr);
  const Config config = parse(R"([isolation]
in_process = ["/opt/trusted/plugins/", "acme-tools"]
)");
  const IsolationPolicy policy(config);
  EXPECT_FALSE(policy.decide("/opt/trusted/plugins", "").isolated);
  EXPECT_THAT(policy.decide("/opt/trusted/plugins", "").reason, HasSubstr("[isolation] in_process"));
  EXPECT_FALSE(policy.decide("/var/lib/airlock/packs", "acme-tools").isolated);
  EXPECT_TRUE(policy.decide("/var/lib/airlock/packs", "acme-tools-2").isolated);
  EXPECT_TRUE(policy.decide("/opt/trusted", "").isolated);
}

TEST(IsolationPolicy, ModeInProcessTrustsEveryPlugin) {
  Environment env(nullptr);
  const Config config = parse("[isolation]\nmode = \"in-process\"\n");
  const auto d = IsolationPolicy(config).decide("/opt/vendor/plugins", "");
  EXPECT_FALSE(d.isolated);
  EXPECT_THAT(d.reason, HasSubstr("mode = \"in-process\""));
}

TEST(IsolationPolicy, TheEnvironmentOverridesEveryChoiceBothWays) {
  const Config config = parse("[isolation]\nmode = \"in-process\"\n");
  {
    Environment env("process");
    const IsolationPolicy policy(config);
    EXPECT_TRUE(policy.decide(AIRLOCK_PLUGIN_DIR, "").isolated);
    EXPECT_TRUE(policy.decide("/opt/vendor/plugins", "").isolated);
  }
  {
    Environment env("in-process");
    const Config isolating = parse("");
    EXPECT_FALSE(IsolationPolicy(isolating).decide("/opt/vendor/plugins", "").isolated);
  }
  {
    Environment env("sandboxed");  // not a mode: ignored, the config decides
    const Config isolating = parse("");
    EXPECT_TRUE(IsolationPolicy(isolating).decide("/opt/vendor/plugins", "").isolated);
    EXPECT_FALSE(IsolationPolicy(isolating).forced());
  }
}

TEST(IsolationPolicy, APluginFileGetsItsOwnLimitsOverTheDefaults) {
  Environment env(nullptr);
  const Config config = parse(R"([isolation]
memory_mb = 512
max_workers = 3
cancel_grace_ms = 200

[isolation.plugins."acme_tools.so"]
memory_mb = 128
)");
  const IsolationPolicy policy(config);
  const IsolationSettings acme = policy.settings_for("/opt/acme/acme_tools.so");
  EXPECT_EQ(acme.memory_mb, 128u);
  EXPECT_EQ(acme.max_workers, 3u);
  EXPECT_EQ(acme.cancel_grace.count(), 200);
  const IsolationSettings other = policy.settings_for("/opt/acme/other.so");
  EXPECT_EQ(other.memory_mb, 512u);
}

TEST(IsolationConfig, NamesTheKeyOfEveryBadValue) {
  EXPECT_THAT(error_of("[isolation]\nmode = \"sandbox\"\n"), HasSubstr("isolation.mode"));
  EXPECT_THAT(error_of("[isolation]\nmemory_mb = 16\n"), HasSubstr("isolation.memory_mb"));
  EXPECT_THAT(error_of("[isolation]\nmax_workers = 0\n"), HasSubstr("isolation.max_workers"));
  EXPECT_THAT(error_of("[isolation]\nisolate = true\n"), HasSubstr("unknown key 'isolate' in [isolation]"));
  EXPECT_THAT(error_of("[isolation.plugins.\"a.so\"]\nmemory = 1\n"), HasSubstr("unknown key 'memory'"));
  EXPECT_THAT(error_of("[isolation]\nin_process = \"/opt\"\n"), HasSubstr("isolation.in_process"));
}

}  // namespace
}  // namespace airlock::host
