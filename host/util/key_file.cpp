#include "util/key_file.hpp"

#include "util/base64.hpp"

#include <fmt/format.h>
#include <sodium.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>
#include <system_error>

namespace airlock::host {
namespace {

// Longer than a key file could honestly be: raw (32) or base64 (44) plus
// white space. Stops a misconfigured path (a log, a device) from being read whole.
constexpr std::size_t kKeyFileMaxBytes = 1024;

// Zeroes bytes that held key material when the scope ends, on every way out.
struct Wiped {
  void* bytes;
  std::size_t size;
  Wiped(void* b, std::size_t n) : bytes(b), size(n) {}
  Wiped(const Wiped&) = delete;
  Wiped& operator=(const Wiped&) = delete;
  ~Wiped() { sodium_memzero(bytes, size); }
};

struct FileCloser {
  void operator()(std::FILE* stream) const { std::fclose(stream); }
};

std::string_view trim_whitespace(std::string_view s) {
  constexpr std::string_view kWhitespace = " \t\r\n";
  const auto first = s.find_first_not_of(kWhitespace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kWhitespace) - first + 1);
}

}  // namespace

Result<KeyBytes> read_key_file(const std::filesystem::path& path, std::string_view what) {
  {
    // Whoever reads the key can do what it guards: forge a client's answers,
    // sign a rewritten trail.
    std::error_code ec;
    const auto permissions = std::filesystem::status(path, ec).permissions();
    using std::filesystem::perms;
    if (!ec && (permissions & (perms::group_all | perms::others_all)) != perms::none)
      spdlog::warn("{}: {} is readable by others than its owner (chmod 600 it)", path.string(), what);
  }
  // stdio rather than iostreams so that errno holds the reason for the message.
  errno = 0;
  const std::unique_ptr<std::FILE, FileCloser> stream(std::fopen(path.c_str(), "rb"));
  if (!stream)
    return Error{fmt::format("{}: cannot read {}: {}", path.string(), what, std::generic_category().message(errno))};
  std::string text(kKeyFileMaxBytes + 1, '\0');
  const Wiped text_wipe{text.data(), text.size()};
  const std::size_t count = std::fread(text.data(), 1, text.size(), stream.get());
  if (std::ferror(stream.get()))
    return Error{fmt::format("{}: cannot read {}: {}", path.string(), what, std::generic_category().message(errno))};
  const std::string_view content(text.data(), count);

  KeyBytes key{};
  if (content.size() == key.size()) {
    std::copy(content.begin(), content.end(), key.begin());
    return key;
  }
  if (auto decoded = from_base64(trim_whitespace(content))) {
    const Wiped decoded_wipe{decoded->data(), decoded->size()};
    if (decoded->size() != key.size())
      return Error{fmt::format("{}: {} is the base64 of {} bytes; it must be 32 bytes", path.string(), what,
                               decoded->size())};
    std::copy(decoded->begin(), decoded->end(), key.begin());
    return key;
  }
  if (content.size() > kKeyFileMaxBytes)
    return Error{fmt::format("{}: {} must be exactly 32 raw bytes or the base64 of 32 bytes; this file holds more "
                             "than {} bytes",
                             path.string(), what, kKeyFileMaxBytes)};
  return Error{fmt::format("{}: {} must be exactly 32 raw bytes or the base64 of 32 bytes; this file holds {} bytes",
                           path.string(), what, content.size())};
}

}  // namespace airlock::host
