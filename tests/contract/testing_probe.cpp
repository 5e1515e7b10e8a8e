// A vendor-style test binary over airlock::testing, with the plugin given as
// the last command-line argument: contract_cli_test runs it on a broken and
// on a good plugin and reads GoogleTest's verdict.
#include <airlock/testing.hpp>

#include <string>

namespace {

std::string g_plugin;  // set in main before GoogleTest registers the cases

const std::string& probe_plugin() { return g_plugin; }

}  // namespace

AIRLOCK_CONTRACT_TESTS(Probe, probe_plugin());

int main(int argc, char** argv) {
  // Before InitGoogleTest: that is when the parameterized cases are listed.
  if (argc > 1 && std::string(argv[argc - 1]).rfind("--", 0) != 0) g_plugin = argv[--argc];
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
