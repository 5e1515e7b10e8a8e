// JSON Schema's regular expressions (ECMA-262, Unicode mode) rewritten for
// RE2, which runs them in linear time with bounded memory and stack.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace airlock::host {

// Rewrites `pattern` into RE2 syntax with the same meaning, or nothing when it
// cannot. Translated: \s and \S (ECMA-262's set: \v and Unicode spaces, which
// RE2's \s lacks), "." (which stops at every line terminator), \uXXXX,
// \u{...} and \cX. Escapes outside ECMA-262 (\A, \z, \Q) and "[]"/"[^]" give
// nothing rather than RE2's meaning. What RE2 itself cannot do (lookaround,
// backreferences, \p{Letter}) passes through and fails when RE2 compiles it.
std::optional<std::string> ecma_to_re2(std::string_view pattern);

}  // namespace airlock::host
