// The host's side of the HTTP client module: found and loaded on the first
// hop, then called directly.
#include "egress/hop.hpp"

#include "util/host_module.hpp"

namespace airlock::host {
namespace {

constexpr std::string_view kModule = "airlock-egress-curl.so";
using HopEntry = void(const HopTarget&, HopResult&);

}  // namespace

HopResult run_hop(const HopTarget& target) {
  // Loaded once, by whichever hop comes first; a failure stays the answer
  // (the file will not appear by itself) and each hop says so.
  static const Result<HopEntry*> client =
      load_host_module_entry<HopEntry>(kModule, "airlock_hop_abi", kHopAbi, "airlock_run_hop");
  HopResult result;
  if (!client) {
    result.status = AIRLOCK_STATUS_NETWORK_ERROR;
    result.error = "the host's HTTP client is unavailable: " + client.error().message;
    return result;
  }
  (*client)(target, result);
  return result;
}

}  // namespace airlock::host
