// `airlock audit verify`: reads trail files in order as one stream (a file
// and the ones logrotate made of it), follows each replica's chain apart,
// and names the first record that does not verify. OCSF and CEF lines may
// be mixed. A merged file (several replicas' trails interleaved, e.g. `sort
// -m` on time) verifies as well, since each replica's chain only links its
// own records.
#pragma once

#include "audit/checkpoint_signer.hpp"
#include "util/error.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace airlock::host::audit {

struct VerifyOptions {
  // Every checkpoint must be signed by this key. Without one, signatures
  // are reported as unchecked: a rewritten file could carry a new chain.
  std::optional<PublicKey> key;
};

// Where the stream stopped verifying.
struct VerifyFailure {
  std::filesystem::path file;
  std::uint64_t line = 0;  // 1-based
  std::optional<std::uint64_t> seq;
  std::string replica;
  std::string reason;
};

// Something a reader should know that is not a failure.
struct VerifyNote {
  std::filesystem::path file;
  std::uint64_t line = 0;
  std::string text;
};

struct ReplicaSummary {
  std::string replica;
  std::uint64_t first_seq = 0;
  std::uint64_t last_seq = 0;
  std::uint64_t records = 0;
  std::uint64_t checkpoints = 0;
  std::uint64_t signed_checkpoints = 0;    // signatures verified with the key
  std::uint64_t unchecked_signatures = 0;  // signed, but no key was given
  // Records after the last checkpoint whose signature verified (with a
  // key), or after the last checkpoint (without): a tail that could be cut
  // off without a trace.
  std::uint64_t unprotected_tail = 0;
};

struct VerifyReport {
  std::vector<std::filesystem::path> files;
  bool key_given = false;
  std::uint64_t records = 0;
  std::vector<ReplicaSummary> replicas;
  std::vector<VerifyNote> notes;
  std::optional<VerifyFailure> failure;  // none: everything read verified
};

// Error only when a file cannot be read.
Result<VerifyReport> verify_trail(const std::vector<std::filesystem::path>& files, const VerifyOptions& options);

// The report for people, several lines.
std::string render_report(const VerifyReport& report);

boost::json::object report_json(const VerifyReport& report);

}  // namespace airlock::host::audit
