// Audit events as CEF:0 lines, and the reader `airlock audit verify` uses
// to take them apart again. The escapes are CEF's: in the header a pipe or
// backslash is escaped with a backslash; in extensions an equals sign or a
// backslash is, and line breaks are written as \n and \r, so a record is
// always one line whatever its values hold.
#include "audit/cef_format.hpp"

#include "util/json_writer.hpp"

#include <boost/json/parse.hpp>

#include <charconv>
#include <chrono>

namespace airlock::host::audit {
namespace json = boost::json;

namespace {

constexpr std::string_view kChainLabel = "airlockChain";

// Appends " key=value" (no leading space for the first pair).
void add(std::string& out, std::string_view key, std::string_view value) {
  if (out.back() != '|') out += ' ';
  out += key;
  out += '=';
  out += cef_extension_escape(value);
}

void add_labelled(std::string& out, std::string_view key, std::string_view label, std::string_view value) {
  add(out, std::string(key) + "Label", label);
  add(out, key, value);
}

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

std::string unescape_extension(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '\\' && i + 1 < value.size()) {
      const char next = value[++i];
      out += next == 'n' ? '\n' : next == 'r' ? '\r' : next;
    } else {
      out += value[i];
    }
  }
  return out;
}

bool is_lower_hex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (const char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::string cef_header_escape(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\' || c == '|') out += '\\';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

std::string cef_extension_escape(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '=':
        out += "\\=";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
  return out;
}

int cef_severity(Severity severity) noexcept {
  switch (severity) {
    case Severity::informational:
      return 1;
    case Severity::low:
      return 3;
    case Severity::medium:
      return 5;
    case Severity::high:
      return 8;
  }
  return 0;
}

std::string format_cef(const Event& event, const ChainLink& link, const FormatContext& context) {
  std::string out = "CEF:0|airlock|airlock|";
  out += cef_header_escape(context.product_version);
  out += '|';
  out += cef_header_escape(kind_name(event.kind));
  out += '|';
  out += cef_header_escape(kind_title(event.kind));
  out += '|';
  out += std::to_string(cef_severity(severity_of(event)));
  out += '|';

  add(out, "rt",
      std::to_string(
          std::chrono::duration_cast<std::chrono::milliseconds>(event.time.time_since_epoch()).count()));
  add(out, "outcome", event.failed ? "failure" : "success");
  if (!event.outcome.empty()) add(out, "act", event.outcome);
  add(out, "msg", describe(event));
  add(out, "dvchost", context.host_name);
  if (!event.actor.caller.empty()) add(out, "suser", event.actor.caller);
  if (!event.actor.client.empty()) add_labelled(out, "flexString1", "oauthClient", event.actor.client);
  if (!event.actor.address.empty()) add(out, "src", event.actor.address);
  if (!event.actor.transport.empty()) add(out, "app", event.actor.transport);
  if (!event.destination.empty()) {
    add(out, "request", event.destination);
    if (const auto parts = split_destination(event.destination)) {
      add(out, "dhost", parts->host);
      add(out, "dpt", std::to_string(parts->port));
    }
  } else if (!event.http_path.empty()) {
    add(out, "request", event.http_path);
  }
  if (!event.address.empty()) add(out, "dst", event.address);
  if (!event.http_method.empty()) add(out, "requestMethod", event.http_method);
  if (!event.actor.session.empty()) add_labelled(out, "cs1", "mcpSession", event.actor.session);
  if (!event.actor.request.empty()) add_labelled(out, "cs2", "requestId", event.actor.request);
  if (!event.reason.empty()) add_labelled(out, "cs3", "reason", event.reason);
  if (!event.subject.empty()) add_labelled(out, "cs4", "subject", event.subject);
  if (has_detail(event)) {
    std::string detail;
    {
      JsonObjectWriter members(detail);
      write_detail(members, event);
    }
    add_labelled(out, "cs5", "airlockDetail", detail);
  }
  // flexString1 is the OAuth client's.
  if (!event.actor.protocol.empty()) add_labelled(out, "flexString2", "protocol", event.actor.protocol);
  if (event.http_status != 0) add_labelled(out, "cn1", "httpStatus", std::to_string(event.http_status));
  if (event.duration)
    add_labelled(out, "cn2", "durationMs",
                 std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(*event.duration).count()));
  if (event.bytes) add_labelled(out, "cn3", "bytes", std::to_string(*event.bytes));
  // Last, so the link is the end of the line.
  add_labelled(out, "cs6", kChainLabel, link.replica + ":" + std::to_string(link.seq) + ":" + link.prev);
  return out;
}

const std::string* CefRecord::find(std::string_view key) const {
  for (const auto& [k, v] : extensions)
    if (k == key) return &v;
  return nullptr;
}

std::optional<CefRecord> parse_cef(std::string_view line) {
  if (!line.starts_with("CEF:0|")) return std::nullopt;
  CefRecord record;
  std::size_t field = 0;
  std::size_t i = 0;
  for (; i < line.size() && field < 7; ++i) {
    const char c = line[i];
    if (c == '\\' && i + 1 < line.size() && (line[i + 1] == '\\' || line[i + 1] == '|')) {
      record.header[field] += line[++i];
    } else if (c == '|') {
      ++field;
    } else {
      record.header[field] += c;
    }
  }
  if (field != 7) return std::nullopt;
  const std::string_view extension = line.substr(i);

  // An unescaped '=' ends a key; the key starts after the last space before it.
  std::vector<std::size_t> equals;
  for (std::size_t j = 0; j < extension.size(); ++j) {
    if (extension[j] == '\\')
      ++j;
    else if (extension[j] == '=')
      equals.push_back(j);
  }
  std::size_t value_start = 0;
  std::string pending_key;
  for (const std::size_t eq : equals) {
    std::size_t key_start = eq;
    while (key_start > value_start && is_key_char(extension[key_start - 1])) --key_start;
    if (key_start == eq) return std::nullopt;  // "=" with no key before it
    if (!pending_key.empty()) {
      // The value ends at the space before this key.
      if (key_start == value_start || extension[key_start - 1] != ' ') return std::nullopt;
      record.extensions.emplace_back(std::move(pending_key),
                                     unescape_extension(extension.substr(value_start, key_start - 1 - value_start)));
    } else if (key_start != value_start) {
      return std::nullopt;  // text before the first key
    }
    pending_key = std::string(extension.substr(key_start, eq - key_start));
    value_start = eq + 1;
  }
  if (!pending_key.empty())
    record.extensions.emplace_back(std::move(pending_key), unescape_extension(extension.substr(value_start)));
  return record;
}

std::optional<ChainedRecord> parse_cef_record(std::string_view line) {
  auto record = parse_cef(line);
  if (!record || record->header[1] != "airlock") return std::nullopt;
  const std::string* label = record->find("cs6Label");
  const std::string* chain = record->find("cs6");
  if (!label || *label != kChainLabel || !chain) return std::nullopt;
  // "<replica>:<seq>:<prev>": the replica may hold ':', seq and prev cannot.
  const std::string_view text = *chain;
  const auto prev_colon = text.rfind(':');
  if (prev_colon == std::string_view::npos || prev_colon == 0) return std::nullopt;
  const auto seq_colon = text.rfind(':', prev_colon - 1);
  if (seq_colon == std::string_view::npos) return std::nullopt;
  ChainedRecord parsed;
  parsed.link.replica = std::string(text.substr(0, seq_colon));
  const std::string_view seq = text.substr(seq_colon + 1, prev_colon - seq_colon - 1);
  const auto [end, error] = std::from_chars(seq.data(), seq.data() + seq.size(), parsed.link.seq);
  if (error != std::errc{} || end != seq.data() + seq.size() || seq.empty()) return std::nullopt;
  parsed.link.prev = std::string(text.substr(prev_colon + 1));
  if (!is_lower_hex64(parsed.link.prev)) return std::nullopt;
  parsed.kind = record->header[4];
  if (const std::string* detail = record->find("cs5"); detail && record->find("cs5Label") &&
                                                       *record->find("cs5Label") == "airlockDetail") {
    boost::system::error_code ec;
    json::value value = json::parse(*detail, ec);
    if (ec || !value.is_object()) return std::nullopt;
    parsed.detail = std::move(value.get_object());
  }
  return parsed;
}

}  // namespace airlock::host::audit
