// Audit records as OCSF 1.3.0 events, one JSON object per line. Each kind
// maps onto the OCSF class that describes it (API Activity for a tool call,
// Network Activity for egress, Authentication, HTTP Activity, Application
// Lifecycle, Event Log Activity for the trail's own records); what OCSF has
// no attribute for goes under `unmapped`, and the chain's link is the last
// member of `unmapped`, so it is the last thing on the line.
#pragma once

#include "audit/record_format.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace airlock::host::audit {

inline constexpr std::string_view kOcsfVersion = "1.3.0";

// Where a kind sits in OCSF: its class and activity.
struct OcsfActivity {
  int category_uid;
  std::string_view category_name;
  int class_uid;
  std::string_view class_name;
  int activity_id;
  std::string_view activity_name;
};

OcsfActivity ocsf_activity(const Event& event) noexcept;

// The record of `event` at `link`, without a newline.
std::string format_ocsf(const Event& event, const ChainLink& link, const FormatContext& context);
// ... appended to `out`: the writer joins a batch's records in one buffer.
void append_ocsf(std::string& out, const Event& event, const ChainLink& link, const FormatContext& context);

// The link, kind and detail of an OCSF line; nothing when the line is not
// one JSON object carrying unmapped.airlock_chain and metadata.event_code.
std::optional<ChainedRecord> parse_ocsf_record(std::string_view line);

}  // namespace airlock::host::audit
