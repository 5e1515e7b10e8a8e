// Writing a JSON object as text, member by member, for records a server
// writes many thousand times a second (audit records): no tree is built,
// so nothing is allocated but the output. Strings are escaped exactly as
// Boost.JSON's serializer escapes them, so a record reads the same whichever
// way it was written; a value that is already a Boost.JSON tree is appended
// through the serializer.
//
// The writer does not check its use: every key once per object, and a
// nested object or array ended before its parent writes again.
#pragma once

#include "util/json_text.hpp"

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace airlock::host {

class JsonArrayWriter;

// One JSON object being written onto the end of `out`: '{' at construction,
// '}' at end() (or destruction, whichever comes first).
class JsonObjectWriter {
 public:
  explicit JsonObjectWriter(std::string& out) : out_(&out) { out_->push_back('{'); }
  ~JsonObjectWriter() { end(); }
  JsonObjectWriter(JsonObjectWriter&& other) noexcept : out_(other.out_), first_(other.first_) {
    other.out_ = nullptr;
  }
  JsonObjectWriter(const JsonObjectWriter&) = delete;
  JsonObjectWriter& operator=(const JsonObjectWriter&) = delete;
  JsonObjectWriter& operator=(JsonObjectWriter&&) = delete;

  void string(std::string_view name, std::string_view value) {
    key(name);
    append_json_string(*out_, value);
  }
  // One string made of `parts`, joined: no text is built to hold them first.
  void string(std::string_view name, std::span<const std::string_view> parts) {
    key(name);
    out_->push_back('"');
    for (const std::string_view part : parts) append_json_string_body(*out_, part);
    out_->push_back('"');
  }
  void string(std::string_view name, std::initializer_list<std::string_view> parts) {
    string(name, std::span<const std::string_view>(parts.begin(), parts.size()));
  }
  void number(std::string_view name, std::int64_t value) {
    key(name);
    append_json_integer(*out_, value);
  }
  void number(std::string_view name, std::uint64_t value) {
    key(name);
    append_json_integer(*out_, value);
  }
  void number(std::string_view name, int value) { number(name, std::int64_t{value}); }
  void number(std::string_view name, unsigned value) { number(name, std::uint64_t{value}); }
  void boolean(std::string_view name, bool value) {
    key(name);
    out_->append(value ? "true" : "false");
  }
  // A Boost.JSON value (an object, a string, ...) as its serializer writes it.
  template <class T>
  void value(std::string_view name, const T& json) {
    key(name);
    append_json(*out_, json);
  }
  // A member whose name is not the caller's literal (a key taken from a
  // Boost.JSON object): the name is escaped.
  template <class T>
  void member(std::string_view name, const T& json) {
    if (!first_) out_->push_back(',');
    first_ = false;
    append_json_string(*out_, name);
    out_->push_back(':');
    append_json(*out_, json);
  }
  // A member whose value is an object or array written next.
  JsonObjectWriter object(std::string_view name) {
    key(name);
    return JsonObjectWriter(*out_);
  }
  inline JsonArrayWriter array(std::string_view name);

  void end() {
    if (!out_) return;
    out_->push_back('}');
    out_ = nullptr;
  }

 private:
  // Member names are the caller's literals, which need no escape.
  void key(std::string_view name) {
    if (!first_) out_->push_back(',');
    first_ = false;
    out_->push_back('"');
    out_->append(name);
    out_->append("\":");
  }

  std::string* out_;
  bool first_ = true;
};

// One JSON array of objects being written onto the end of `out`.
class JsonArrayWriter {
 public:
  explicit JsonArrayWriter(std::string& out) : out_(&out) { out_->push_back('['); }
  ~JsonArrayWriter() { end(); }
  JsonArrayWriter(JsonArrayWriter&& other) noexcept : out_(other.out_), first_(other.first_) {
    other.out_ = nullptr;
  }
  JsonArrayWriter(const JsonArrayWriter&) = delete;
  JsonArrayWriter& operator=(const JsonArrayWriter&) = delete;
  JsonArrayWriter& operator=(JsonArrayWriter&&) = delete;

  JsonObjectWriter object() {
    if (!first_) out_->push_back(',');
    first_ = false;
    return JsonObjectWriter(*out_);
  }

  void end() {
    if (!out_) return;
    out_->push_back(']');
    out_ = nullptr;
  }

 private:
  std::string* out_;
  bool first_ = true;
};

inline JsonArrayWriter JsonObjectWriter::array(std::string_view name) {
  key(name);
  return JsonArrayWriter(*out_);
}

}  // namespace airlock::host
