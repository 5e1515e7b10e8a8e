// The pin file: for each tool ever seen, the digest of its definition when
// it was first recorded (or last accepted), and that definition itself so an
// operator can see what changed. JSON, written whole to a temporary file and
// renamed over the old one, so a crash leaves either the old pins or the new.
#pragma once

#include "util/error.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <map>
#include <string>

namespace airlock::host {

struct Pin {
  std::string sha256;              // definition_digest() of `definition`
  std::string plugin;              // the file that provided the tool then
  std::string pinned_at;           // UTC, RFC 3339
  boost::json::object definition;  // tool_definition() when pinned
};

class PinStore {
 public:
  // A missing file is an empty store (the first start); anything unreadable
  // or malformed is an error naming the file, since pins that cannot be read
  // cannot protect anything.
  static Result<PinStore> load(const std::filesystem::path& file);

  const Pin* find(const std::string& tool) const;
  void set(const std::string& tool, Pin pin) { pins_[tool] = std::move(pin); }
  const std::map<std::string, Pin>& pins() const { return pins_; }

  // Writes every pin, sorted by tool name, one tool per line.
  Result<void> save() const;

  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  std::map<std::string, Pin> pins_;
};

// The current time as "2026-12-03T12:00:00Z".
std::string utc_now_text();

}  // namespace airlock::host
