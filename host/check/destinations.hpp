// Destination preservation, as a check (shared/seeds/002): a sanitizer may
// drop, escape, truncate or redact, but every URL or host in its output must
// be found in its input as the same text. The only exception is an inert
// form of an input destination, one that carries the usual defanging marks
// (`hxxp`, `fxp`, `[.]`, `[:]`, a backslash before a bracket): taking the
// marks out must give a destination of the input. A sanitizer that decodes,
// resolves, normalizes or revives (defanged in, live out) a URL fails.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host::check {

// Every `scheme://host` (the colon maybe written `[:]`, the slashes maybe
// backslashes, userinfo included) and every bare dotted host name in `text`.
std::vector<std::string> destinations(std::string_view text);

// `text` with the defanging marks taken out, read both ways "\[" can be
// meant: escape-markup's escaped bracket (taken out first), or a backslash
// of the text's own before a bracket mark (the marks taken out first).
// Nothing is decoded.
std::array<std::string, 2> undo_inert_marks(std::string_view text);

// The destinations of `output` that `input` does not account for.
std::vector<std::string> made_up_destinations(std::string_view input, std::string_view output);

}  // namespace airlock::host::check
