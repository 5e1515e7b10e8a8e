// The function ABI 1.4 adds to airlock_host_api: call_fetch, a tool's only
// way to the network. host_api.cpp puts it in the table; like every table
// entry, it never throws.
#pragma once

#include <airlock/airlock.h>

namespace airlock::host::fetch_api {

airlock_status call_fetch(airlock_call* call, const airlock_fetch_request* request,
                          airlock_fetch_response* response) noexcept;

}  // namespace airlock::host::fetch_api
