#include "tasks/task_record.hpp"

#include <array>
#include <utility>

namespace airlock::host {

namespace {

// The names are the protocol's ("input_required"), and what the stores keep.
constexpr std::array<std::pair<TaskStatus, std::string_view>, 5> kStatusNames{{
    {TaskStatus::working, "working"},
    {TaskStatus::input_required, "input_required"},
    {TaskStatus::completed, "completed"},
    {TaskStatus::failed, "failed"},
    {TaskStatus::cancelled, "cancelled"},
}};

}  // namespace

std::string_view to_string(TaskStatus status) {
  for (const auto& [value, name] : kStatusNames)
    if (value == status) return name;
  return "unknown";
}

std::optional<TaskStatus> task_status_from(std::string_view name) {
  for (const auto& [value, known] : kStatusNames)
    if (known == name) return value;
  return std::nullopt;
}

}  // namespace airlock::host
