#include "pins/pin_store.hpp"

#include "pins/tool_definition.hpp"
#include "util/sha256.hpp"

#include <boost/json/parse.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace airlock::host {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kFormatKey = "airlock_pins";
constexpr std::int64_t kFormatVersion = 1;

// Reads one tool's entry; the message says which member is wrong.
Result<Pin> read_pin(const json::value& entry) {
  const auto* object = entry.if_object();
  if (!object) return Error{"expected an object"};
  Pin pin;
  auto text = [&](std::string_view key, std::string& out) -> bool {
    const auto* value = object->if_contains(key);
    if (!value || !value->is_string()) return false;
    out = value->get_string();
    return true;
  };
  if (!text("sha256", pin.sha256) || !parse_sha256_hex(pin.sha256))
    return Error{"'sha256' must be 64 hex digits"};
  if (!text("plugin", pin.plugin)) return Error{"'plugin' must be a string"};
  if (!text("pinned_at", pin.pinned_at)) return Error{"'pinned_at' must be a string"};
  const auto* definition = object->if_contains("definition");
  if (!definition || !definition->is_object()) return Error{"'definition' must be an object"};
  pin.definition = definition->get_object();
  // The digest is what is compared; a definition that does not match it
  // would show the operator a diff against something that was never pinned.
  if (definition_digest(pin.definition) != pin.sha256)
    return Error{"'definition' does not match 'sha256' (edited by hand?)"};
  return pin;
}

}  // namespace

std::string utc_now_text() {
  const auto now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
}

Result<PinStore> PinStore::load(const fs::path& file) {
  PinStore store;
  store.file_ = file;
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    if (ec) return Error{fmt::format("{}: cannot read pin file: {}", file.string(), ec.message())};
    return store;
  }
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return Error{fmt::format("{}: cannot read pin file", file.string())};

  json::error_code parse_error;
  const json::value root = json::parse(text.str(), parse_error);
  if (parse_error) return Error{fmt::format("{}: not a pin file: {}", file.string(), parse_error.message())};
  const auto* object = root.if_object();
  const auto* version = object ? object->if_contains(kFormatKey) : nullptr;
  if (!version || !version->is_int64() || version->get_int64() != kFormatVersion)
    return Error{fmt::format("{}: not a pin file of this airlock (expected \"{}\": {})", file.string(), kFormatKey,
                             kFormatVersion)};
  const auto* tools = object->if_contains("tools");
  if (!tools || !tools->is_object()) return Error{fmt::format("{}: 'tools' must be an object", file.string())};
  for (const auto& [name, entry] : tools->get_object()) {
    auto pin = read_pin(entry);
    if (!pin) return Error{fmt::format("{}: tools.\"{}\": {}", file.string(), std::string(name), pin.error().message)};
    store.pins_.emplace(name, std::move(*pin));
  }
  return store;
}

const Pin* PinStore::find(const std::string& tool) const {
  auto it = pins_.find(tool);
  return it == pins_.end() ? nullptr : &it->second;
}

Result<void> PinStore::save() const {
  std::string text = fmt::format("{{\n  \"{}\": {},\n  \"tools\": {{", kFormatKey, kFormatVersion);
  bool first = true;
  for (const auto& [name, pin] : pins_) {
    json::object entry;
    entry["sha256"] = pin.sha256;
    entry["plugin"] = pin.plugin;
    entry["pinned_at"] = pin.pinned_at;
    entry["definition"] = pin.definition;
    text += fmt::format("{}\n    {}: {}", first ? "" : ",", canonical_json(json::string(name)),
                        canonical_json(entry));
    first = false;
  }
  text += "\n  }\n}\n";

  // Same directory, so the rename is atomic; fsync before it, so the new
  // name never points at a file whose bytes are still in flight.
  std::error_code ec;
  if (file_.has_parent_path()) fs::create_directories(file_.parent_path(), ec);
  const fs::path temporary = file_.string() + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return Error{fmt::format("{}: cannot write pin file: {}", file_.string(), std::strerror(errno))};
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  const bool synced = written == text.size() && ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  if (!synced || ::rename(temporary.c_str(), file_.c_str()) != 0) {
    const int error = synced ? errno : saved_errno;
    ::unlink(temporary.c_str());
    return Error{fmt::format("{}: cannot write pin file: {}", file_.string(), std::strerror(error))};
  }
  return {};
}

}  // namespace airlock::host
