// [audit]: the audit trail's sink, format and chain.
#include "config/config_reader.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace airlock::host::config_reading {

void ConfigReader::read_audit(const toml::table& table) {
  auto& audit = config_.audit;
  audit.enabled = true;
  bool sink_read = true;  // a bad sink is the problem to name, not the file it would have needed
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const std::string path = "audit." + key_text(name);
    if (name == "sink") {
      if (auto value = choice_value(node, path, kAuditSinks)) {
        audit.sink = *value;
      } else {
        sink_read = false;
      }
    } else if (name == "file") {
      if (auto value = string_value(node, path); value && value->empty()) {
        report(place(node, path), "expected a file name, got \"\"");
      } else if (value) {
        audit.file = resolve(*value);
      }
    } else if (name == "syslog_socket") {
      if (auto value = string_value(node, path); value && value->empty()) {
        report(place(node, path), "expected a socket path, got \"\"");
      } else if (value) {
        audit.syslog_socket = resolve(*value);
      }
    } else if (name == "format") {
      if (auto value = choice_value(node, path, kAuditFormats)) audit.format = *value;
    } else if (name == "queue") {
      if (auto value = integer_value(node, path, 16, 1'048'576)) audit.queue = *value;
    } else if (name == "checkpoint_interval_s") {
      if (auto value = integer_value(node, path, 1, 86'400)) audit.checkpoint_interval_s = *value;
    } else if (name == "signing_key_file") {
      if (auto value = string_value(node, path); value && value->empty()) {
        report(place(node, path), "expected a key file, got \"\"");
      } else if (value) {
        audit.signing_key_file = resolve(*value);
      }
    } else if (name == "record_arguments") {
      if (auto value = bool_value(node, path)) audit.record_arguments = *value;
    } else if (name == "replica") {
      if (auto value = string_value(node, path); value && !is_identity(*value)) {
        report(place(node, path), "expected 1 to 64 of [A-Za-z0-9._@-], got " + quote(*value));
      } else if (value) {
        audit.replica = *value;
      }
    } else {
      report_unknown_key(key, "audit");
    }
  }
  if (sink_read && audit.sink == AuditSinkKind::file && audit.file.empty())
    report(place(table, "audit"), "missing key 'file': sink = \"file\" needs the file to write records to");
}

}  // namespace airlock::host::config_reading
