#include "tasks/task_store.hpp"

#include "util/utf8.hpp"

#include <fmt/format.h>

#include <limits>

namespace airlock::host {

bool is_task_id(std::string_view id) {
  if (id.size() != 64) return false;
  for (const char c : id)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::int64_t task_expires_ms(const TaskRecord& record) {
  if (record.ttl_ms > std::numeric_limits<std::int64_t>::max() - record.created_ms)
    return std::numeric_limits<std::int64_t>::max();
  return record.created_ms + record.ttl_ms;
}

Result<void> check_task_record(const TaskRecord& record) {
  if (!is_task_id(record.id)) {
    // The id may be anything here; show a bounded, printable part of it.
    std::string shown;
    for (const char c : record.id.substr(0, 80)) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
    return Error{fmt::format("task id '{}': expected 64 lowercase hex digits", shown)};
  }
  if (record.owner.empty()) return Error{fmt::format("task {}: the owner is empty", record.id)};
  if (record.tool.empty()) return Error{fmt::format("task {}: the tool name is empty", record.id)};

  const std::pair<std::string_view, const std::string*> texts[] = {
      {"owner", &record.owner},
      {"tool", &record.tool},
      {"arguments", &record.arguments},
      {"protocol_version", &record.protocol_version},
      {"meta", &record.meta},
      {"status_message", &record.status_message},
      {"result", &record.result},
      {"error", &record.error},
      {"input_requests", &record.input_requests},
      {"answers", &record.answers},
      {"pending", &record.pending},
      {"runner", &record.runner},
  };
  for (const auto& [name, text] : texts) {
    if (text->find('\0') != std::string::npos)
      return Error{fmt::format("task {}: field '{}' holds a NUL byte", record.id, name)};
    if (!valid_utf8(*text)) return Error{fmt::format("task {}: field '{}' is not valid UTF-8", record.id, name)};
  }

  const std::pair<std::string_view, std::int64_t> times[] = {
      {"created_ms", record.created_ms},         {"updated_ms", record.updated_ms},
      {"ttl_ms", record.ttl_ms},                 {"poll_interval_ms", record.poll_interval_ms},
      {"heartbeat_ms", record.heartbeat_ms},
  };
  for (const auto& [name, value] : times)
    if (value < 0) return Error{fmt::format("task {}: field '{}' is negative ({})", record.id, name, value)};
  return {};
}

}  // namespace airlock::host
