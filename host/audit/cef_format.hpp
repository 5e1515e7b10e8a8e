// Audit records as ArcSight CEF:0 lines, for SIEMs that predate OCSF:
//
//   CEF:0|airlock|airlock|<version>|<kind>|<title>|<severity 0-10>|<extensions>
//
// Extensions use CEF's own keys where one fits (rt, act, outcome, suser,
// src, dhost, dst, dpt, request, requestMethod, app, msg, dvchost) and
// labelled custom fields for the rest:
//   cs1 mcpSession   cs2 requestId   cs3 reason   cs4 subject
//   cs5 airlockDetail (the detail object, compact JSON)
//   flexString1 oauthClient   flexString2 protocol
//   cn1 httpStatus   cn2 durationMs   cn3 bytes
//   cs6 airlockChain = "<replica>:<seq>:<prev hex>", always the last pair
#pragma once

#include "audit/record_format.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace airlock::host::audit {

// `value` escaped for a header field: backslash and pipe; a line break
// becomes a space, since a header cannot hold one.
std::string cef_header_escape(std::string_view value);

// `value` escaped for an extension value: backslash, equals sign, and line
// breaks as \n and \r.
std::string cef_extension_escape(std::string_view value);

// Severity on CEF's 0-10 scale.
int cef_severity(Severity severity) noexcept;

// The record of `event` at `link`, without a newline.
std::string format_cef(const Event& event, const ChainLink& link, const FormatContext& context);

// A CEF line taken apart: the seven header fields, unescaped, and the
// extension pairs, unescaped, in order. Nothing when it is not CEF:0.
struct CefRecord {
  std::string header[7];  // version ("CEF:0"), vendor, product, version, class id, name, severity
  std::vector<std::pair<std::string, std::string>> extensions;
  const std::string* find(std::string_view key) const;
};
std::optional<CefRecord> parse_cef(std::string_view line);

// The link, kind and detail of a CEF line; nothing when it is not one of
// ours (no well-formed cs6 airlockChain).
std::optional<ChainedRecord> parse_cef_record(std::string_view line);

}  // namespace airlock::host::audit
