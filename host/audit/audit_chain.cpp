// Reading the chain back: a record's link in either format, and the end of
// a file the writer continues, read backwards so a large trail costs one
// record's worth of reading.
#include "audit/audit_chain.hpp"

#include "audit/cef_format.hpp"
#include "audit/ocsf_format.hpp"
#include "util/sha256.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <fstream>
#include <system_error>

#include <sys/stat.h>
#include <unistd.h>

namespace airlock::host::audit {

namespace {

bool is_lower_hex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (const char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// No record is this long; a "last line" longer than this is not one.
constexpr std::uint64_t kMaxLineBytes = 16u << 20;
constexpr std::uint64_t kReadChunk = 64u << 10;

}  // namespace

std::optional<ChainedRecord> parse_record(std::string_view line) {
  std::optional<ChainedRecord> record;
  if (line.starts_with("CEF:"))
    record = parse_cef_record(line);
  else if (line.starts_with("{"))
    record = parse_ocsf_record(line);
  if (!record || record->link.seq == 0 || record->link.replica.empty() || !is_lower_hex64(record->link.prev))
    return std::nullopt;
  return record;
}

std::string line_hash(std::string_view line) { return sha256_hex(sha256(line)); }

Result<FileTail> read_file_tail(int fd, const std::filesystem::path& path) {
  const auto cannot_read = [&path](int error) {
    return Error{fmt::format("{}: cannot read the audit trail's last record: {}", path.string(),
                             std::generic_category().message(error))};
  };
  struct stat info {};
  if (::fstat(fd, &info) != 0) return cannot_read(errno);
  const auto size = static_cast<std::uint64_t>(info.st_size);

  // `tail` holds the file's bytes from `offset` to the end; it grows
  // backwards until it holds the last complete line whole.
  std::string tail;
  std::uint64_t offset = size;
  FileTail result;
  std::optional<std::uint64_t> last_newline;  // file offset of the last '\n'
  while (true) {
    if (last_newline) {
      const std::uint64_t in_tail = *last_newline - offset;
      const auto previous = in_tail == 0 ? std::string::npos : tail.rfind('\n', in_tail - 1);
      if (previous != std::string::npos || offset == 0) {
        const std::size_t start = previous == std::string::npos ? 0 : previous + 1;
        const std::string_view line = std::string_view(tail).substr(start, in_tail - start);
        result.complete_size = *last_newline + 1;
        result.torn_bytes = size - result.complete_size;
        result.last = parse_record(line);
        if (!result.last)
          return Error{fmt::format("{}: the last line is not an audit record, so the chain cannot continue "
                                   "from it; move the file aside",
                                   path.string())};
        result.last_hash = line_hash(line);
        return result;
      }
    } else if (offset == 0) {
      result.torn_bytes = size;  // no complete line at all
      return result;
    }
    if (size - offset > kMaxLineBytes)
      return Error{fmt::format("{}: the last line is longer than {} bytes: not an audit record", path.string(),
                               kMaxLineBytes)};
    const std::uint64_t chunk = std::min(kReadChunk, offset);
    std::string bytes(chunk, '\0');
    std::size_t done = 0;
    while (done < chunk) {
      const ssize_t n = ::pread(fd, bytes.data() + done, chunk - done, static_cast<off_t>(offset - chunk + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return cannot_read(errno);
      if (n == 0) return cannot_read(EIO);  // the file shrank under us
      done += static_cast<std::size_t>(n);
    }
    offset -= chunk;
    tail.insert(0, bytes);
    if (!last_newline) {
      const auto at = std::string_view(bytes).rfind('\n');
      if (at != std::string::npos) last_newline = offset + at;
    }
  }
}

std::optional<ReplicaTail> last_record_of(const std::filesystem::path& file, std::string_view replica) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  const auto size = static_cast<std::uint64_t>(in.tellg());
  const std::uint64_t start = size > kReplicaScanBytes ? size - kReplicaScanBytes : 0;
  std::string bytes(size - start, '\0');
  in.seekg(static_cast<std::streamoff>(start));
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) return std::nullopt;
  // Complete lines only, newest first; a first line cut by the scan's
  // start is not whole and is skipped.
  std::size_t end = bytes.rfind('\n');
  while (end != std::string::npos) {
    const std::size_t previous = end == 0 ? std::string::npos : bytes.rfind('\n', end - 1);
    if (previous == std::string::npos && start != 0) break;
    const std::size_t begin = previous == std::string::npos ? 0 : previous + 1;
    const std::string_view line = std::string_view(bytes).substr(begin, end - begin);
    if (auto record = parse_record(line); record && record->link.replica == replica)
      return ReplicaTail{std::move(*record), line_hash(line)};
    end = previous;
  }
  return std::nullopt;
}

}  // namespace airlock::host::audit
