// A 32-byte secret an operator keeps in a file: the key that seals
// requestState ([server] request_state_key_file) and the seed that signs the
// audit trail's checkpoints ([audit] signing_key_file) follow one rule, so
// one `head -c 32 /dev/urandom` or one base64 line serves either.
#pragma once

#include "util/error.hpp"

#include <array>
#include <filesystem>
#include <string_view>

namespace airlock::host {

using KeyBytes = std::array<unsigned char, 32>;

// The key in `path`: exactly 32 raw bytes, or the standard base64 of 32
// bytes with white space around it. `what` names the key in messages ("the
// request state key"). Warns in the log when the file is readable by anyone
// but its owner. Every buffer that held key material is wiped; the caller
// wipes the key it gets once it has used it. Errors name the file and say
// what it holds instead.
Result<KeyBytes> read_key_file(const std::filesystem::path& path, std::string_view what);

}  // namespace airlock::host
