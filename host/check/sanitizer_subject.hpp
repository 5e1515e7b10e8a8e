// A sanitizer under check, text or result, behind one interface: what an
// input is, how a call is made (exactly as sanitizer_chain.cpp makes it),
// when two outputs count as the same, and what text an output shows a reader.
#pragma once

#include "plugins/plugin_types.hpp"

#include <airlock/airlock.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host::check {

// One call's result.
struct Outcome {
  airlock_status status = AIRLOCK_STATUS_INTERNAL;
  bool wrote = false;    // the sanitizer wrote output (whatever it returned)
  std::string output;    // the effective output: the input itself when UNCHANGED
  std::chrono::nanoseconds took{};

  // OK or UNCHANGED: there is an output; anything else is an error status.
  bool produced() const { return status == AIRLOCK_STATUS_OK || status == AIRLOCK_STATUS_UNCHANGED; }
};

// Same output bytes, or the same error status. OK with the input's bytes and
// UNCHANGED are the same outcome.
bool same_outcome(const Outcome& a, const Outcome& b);

// The output quoted, or "error status 6 (INTERNAL)".
std::string show(const Outcome& outcome);

// "INTERNAL", "UNCHANGED", …
std::string status_name(airlock_status status);

// An input of a check. For a result sanitizer `text` is wrapped in a
// tool-result shape (corpus.hpp), so shrinking can cut the text and keep
// the result well-formed; kRawShape means `text` is the whole input.
inline constexpr int kRawShape = -1;
struct Case {
  std::string name;
  std::string text;
  int shape = kRawShape;
};

class SanitizerSubject {
 public:
  explicit SanitizerSubject(const Sanitizer& sanitizer) : sanitizer_(sanitizer) {}

  const Sanitizer& sanitizer() const { return sanitizer_; }
  bool is_text() const { return sanitizer_.kind == SanitizerKind::text; }

  // The bytes the sanitizer receives for `c`, or nothing when `c` cannot be
  // one of its inputs (a result shape around text that is not UTF-8).
  std::optional<std::string> input_of(const Case& c) const;

  // Calls the sanitizer once on `input`. Thread-safe as far as the
  // sanitizer is.
  Outcome call(std::string_view input) const;

  // Text: the same bytes. Result: the same JSON value (key order aside),
  // since the host parses a result sanitizer's output before using it.
  bool same_value(std::string_view a, std::string_view b) const;

  // What a reader of the input or output sees: the text itself, or every
  // string (keys included) of a result, one per line. Malformed JSON reads
  // as its bytes.
  std::string readable_text(std::string_view bytes) const;

  // What is wrong with `outcome` as an output for `input` (which is
  // well-formed), judged as the host judges it; nothing when it is fine or
  // an error status.
  std::optional<std::string> output_problem(std::string_view input, const Outcome& outcome) const;

 private:
  const Sanitizer& sanitizer_;
};

}  // namespace airlock::host::check
