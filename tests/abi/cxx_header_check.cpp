// cxx_header_check.cpp — airlock.h compiles as C++ on its own under the
// project's warnings (-Wold-style-cast included), and so does airlock.hpp.
#include <airlock/airlock.h>
#include <airlock/airlock.hpp>

static_assert(AIRLOCK_ABI_VERSION == 0x00010005u);
static_assert(AIRLOCK_TOOL_REENTRANT == 1u && AIRLOCK_TOOL_CANCELLABLE == 2u);

std::uint32_t airlock_cxx_header_check();
std::uint32_t airlock_cxx_header_check() { return AIRLOCK_ABI_VERSION | AIRLOCK_TOOL_REENTRANT; }
