// The hash chain that makes the audit trail tamper-evident. Every record
// carries its replica's name, its number in that replica's chain (1, 2, ...)
// and `prev`: the SHA-256 of the exact bytes of the replica's record before
// it (without the newline), or 64 zeros for the first record of a chain. A
// line deleted, edited, inserted or moved breaks the `prev` of the record
// after it; only the chain's tail can be cut without trace, which is what
// the signed checkpoints bound.
#pragma once

#include "util/error.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host::audit {

// The `prev` of a chain's first record.
inline constexpr std::string_view kGenesisPrev = "0000000000000000000000000000000000000000000000000000000000000000";

// Where one record sits in its replica's chain.
struct ChainLink {
  std::string replica;
  std::uint64_t seq = 0;
  std::string prev;  // 64 lowercase hex digits
};

// What a reader needs of one record, whatever its format: its link, its
// kind's name and its detail (a checkpoint's head and signature).
struct ChainedRecord {
  ChainLink link;
  std::string kind;
  boost::json::object detail;
};

// One line of the trail read back, OCSF (a JSON object) or CEF; nothing
// when it is neither or carries no well-formed link.
std::optional<ChainedRecord> parse_record(std::string_view line);

// The hash the next record's `prev` holds: lowercase hex SHA-256 of `line`.
std::string line_hash(std::string_view line);

// One replica's chain as the writer keeps it. One thread.
class Chain {
 public:
  explicit Chain(std::string replica) : replica_(std::move(replica)), head_(kGenesisPrev) {}

  // Continues after a record already written: the next one is seq + 1 and
  // its prev is `hash`.
  void resume(std::uint64_t seq, std::string hash) {
    seq_ = seq;
    head_ = std::move(hash);
  }

  // The link of the record about to be written.
  ChainLink next() const { return ChainLink{replica_, seq_ + 1, head_}; }

  // `line` (the record of next()) was written.
  void advance(std::string_view line) {
    ++seq_;
    head_ = line_hash(line);
  }

  const std::string& replica() const { return replica_; }
  std::uint64_t seq() const { return seq_; }  // of the last record; 0: none yet
  const std::string& head() const { return head_; }  // hash of the last record

 private:
  std::string replica_;
  std::uint64_t seq_ = 0;
  std::string head_;
};

// The end of a trail file the writer is about to append to.
struct FileTail {
  std::optional<ChainedRecord> last;  // its last complete record; none: the file holds none
  std::string last_hash;              // line_hash of that record's line
  std::uint64_t complete_size = 0;    // bytes up to and including the last newline
  std::uint64_t torn_bytes = 0;       // bytes after it: a line whose write was cut short
};

// Reads the end of the open file `fd` (named `path` in messages). Error when
// the file cannot be read, or when its last complete line is not an audit
// record (appending would chain to something that is not one).
Result<FileTail> read_file_tail(int fd, const std::filesystem::path& path);

// The last record of `replica` in `file`, and its line's hash, looking back
// at most kReplicaScanBytes from the end; nothing when there is none there.
// A file may hold several replicas' records (a server's, and those of the
// `airlock pin` and `airlock pack install` runs beside it): each continues
// its own chain, wherever its last record sits.
inline constexpr std::uint64_t kReplicaScanBytes = std::uint64_t{64} << 20;
struct ReplicaTail {
  ChainedRecord record;
  std::string hash;
};
std::optional<ReplicaTail> last_record_of(const std::filesystem::path& file, std::string_view replica);

}  // namespace airlock::host::audit
