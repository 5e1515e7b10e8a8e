// The vendor's whole test: every check of the contract, once per sanitizer
// and tool the plugin registers, as GoogleTest cases.
#include <airlock/testing.hpp>

AIRLOCK_CONTRACT_TESTS(MySanitizer, MY_SANITIZER_PLUGIN);
