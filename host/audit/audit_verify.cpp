// Verifying a trail: each record's seq follows its replica's last one, its
// prev is the hash of that record's line, and each checkpoint states the
// head it follows and (with a key) carries that key's signature of it.
//
// A deleted line shows as a seq that skips; a moved one as a seq out of
// order; an edited or forged one as the next record's prev not matching.
// Only the tail after the last signed checkpoint could be cut off without
// a trace, so the report counts it.
#include "audit/audit_verify.hpp"

#include "audit/audit_chain.hpp"

#include <boost/json/array.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <fstream>
#include <map>
#include <system_error>

namespace airlock::host::audit {
namespace json = boost::json;

namespace {

struct ReplicaState {
  ReplicaSummary summary;
  std::uint64_t last_seq = 0;
  std::string last_hash;
  std::uint64_t since_protected = 0;  // records after the last protecting checkpoint
};

class Verifier {
 public:
  Verifier(const VerifyOptions& options, VerifyReport& report) : options_(options), report_(report) {}

  // False once a record fails: nothing after it is read.
  bool line(const std::filesystem::path& file, std::uint64_t number, std::string_view text);
  void finish();

 private:
  bool fail(const std::filesystem::path& file, std::uint64_t number, const ChainedRecord* record, std::string reason) {
    VerifyFailure failure{file, number, std::nullopt, {}, std::move(reason)};
    if (record) {
      failure.seq = record->link.seq;
      failure.replica = record->link.replica;
    }
    report_.failure = std::move(failure);
    return false;
  }
  bool checkpoint(const std::filesystem::path& file, std::uint64_t number, const ChainedRecord& record,
                  ReplicaState& state);

  const VerifyOptions& options_;
  VerifyReport& report_;
  std::map<std::string, ReplicaState> replicas_;
  std::vector<std::string> order_;  // replicas as first seen
};

std::optional<std::uint64_t> as_seq(const json::value* value) {
  if (!value) return std::nullopt;
  if (value->is_uint64()) return value->get_uint64();
  if (value->is_int64() && value->get_int64() >= 0) return static_cast<std::uint64_t>(value->get_int64());
  return std::nullopt;
}

bool Verifier::checkpoint(const std::filesystem::path& file, std::uint64_t number, const ChainedRecord& record,
                          ReplicaState& state) {
  const auto* head = record.detail.if_contains("head");
  const auto seq = as_seq(record.detail.if_contains("seq"));
  if (!head || !head->is_string() || !seq)
    return fail(file, number, &record, "checkpoint holds no head and seq");
  if (head->get_string() != record.link.prev || *seq + 1 != record.link.seq)
    return fail(file, number, &record, "checkpoint head is not the record before it");
  const auto* signature = record.detail.if_contains("signature");
  const bool is_signed = signature && signature->is_string();
  if (!options_.key) {
    ++state.summary.checkpoints;
    if (is_signed) ++state.summary.unchecked_signatures;
    state.since_protected = 0;
    return true;
  }
  if (!is_signed) return fail(file, number, &record, "checkpoint is not signed");
  const std::string expected_id = key_id_of(*options_.key);
  if (const auto* key_id = record.detail.if_contains("key_id");
      key_id && key_id->is_string() && key_id->get_string() != expected_id)
    return fail(file, number, &record,
                fmt::format("checkpoint is signed by key {}, not by the given key {} (--key takes the .pub file)",
                            std::string_view(key_id->get_string()), expected_id));
  const std::string message = checkpoint_message(record.link.replica, *seq, record.link.prev);
  if (!verify_checkpoint_signature(*options_.key, message, signature->get_string()))
    return fail(file, number, &record, "checkpoint signature does not verify");
  ++state.summary.checkpoints;
  ++state.summary.signed_checkpoints;
  state.since_protected = 0;
  return true;
}

bool Verifier::line(const std::filesystem::path& file, std::uint64_t number, std::string_view text) {
  const auto record = parse_record(text);
  if (!record) return fail(file, number, nullptr, "not an audit record");
  const ChainLink& link = record->link;
  auto [it, fresh] = replicas_.try_emplace(link.replica);
  ReplicaState& state = it->second;
  const bool genesis = link.prev == kGenesisPrev;
  if (fresh) {
    order_.push_back(link.replica);
    state.summary.replica = link.replica;
    state.summary.first_seq = link.seq;
    if (genesis && link.seq != 1)
      return fail(file, number, &*record, fmt::format("the first record of a chain has seq {}, not 1", link.seq));
    if (!genesis)
      report_.notes.push_back({file, number,
                               fmt::format("replica {}: continues a chain from an earlier file (prev not checked)",
                                           link.replica)});
  } else if (genesis && link.seq == 1) {
    // The replica started a chain afresh (a sink with no file to continue,
    // such as syslog): what the old one left unsigned stays counted.
    report_.notes.push_back(
        {file, number,
         fmt::format("replica {}: a new chain starts here; the one before ended at seq {} with {} record(s) after "
                     "its last {}checkpoint",
                     link.replica, state.last_seq, state.since_protected, options_.key ? "signed " : "")});
    state.summary.unprotected_tail += state.since_protected;
    state.since_protected = 0;
  } else if (link.seq != state.last_seq + 1) {
    return fail(file, number, &*record, fmt::format("seq {} follows seq {}", link.seq, state.last_seq));
  } else if (link.prev != state.last_hash) {
    return fail(file, number, &*record,
                "prev does not match the line before: a line was deleted, edited, inserted or moved before this one");
  }
  if (record->kind == "checkpoint") {
    if (!checkpoint(file, number, *record, state)) return false;
  } else {
    ++state.since_protected;
  }
  state.last_seq = link.seq;
  state.last_hash = line_hash(text);
  ++state.summary.records;
  state.summary.last_seq = link.seq;
  ++report_.records;
  return true;
}

void Verifier::finish() {
  for (const auto& name : order_) {
    ReplicaState& state = replicas_.at(name);
    state.summary.unprotected_tail += state.since_protected;
    report_.replicas.push_back(state.summary);
  }
}

}  // namespace

Result<VerifyReport> verify_trail(const std::vector<std::filesystem::path>& files, const VerifyOptions& options) {
  VerifyReport report;
  report.files = files;
  report.key_given = options.key.has_value();
  Verifier verifier(options, report);
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in)
      return Error{fmt::format("{}: cannot read: {}", file.string(), std::generic_category().message(errno))};
    std::string text;
    std::uint64_t number = 0;
    bool go_on = true;
    while (go_on && std::getline(in, text)) {
      ++number;
      if (in.eof()) {
        // No newline after it: a write the server did not finish, which it
        // cuts off when it opens the file again.
        report.notes.push_back({file, number, "the last line has no newline (a torn write): not checked"});
        break;
      }
      go_on = verifier.line(file, number, text);
    }
    if (in.bad()) return Error{fmt::format("{}: cannot read: {}", file.string(), std::generic_category().message(errno))};
    if (!go_on) break;
  }
  verifier.finish();
  return report;
}

std::string render_report(const VerifyReport& report) {
  std::string out;
  if (report.failure) {
    const VerifyFailure& f = *report.failure;
    out += fmt::format("{}:{}: ", f.file.string(), f.line);
    if (f.seq) out += fmt::format("record {} of replica {}: ", *f.seq, f.replica);
    out += fmt::format("{}\nNOT VERIFIED: the first record that does not verify is named above\n", f.reason);
  } else {
    out += fmt::format("verified: {} record(s) in {} file(s)\n", report.records, report.files.size());
  }
  for (const auto& note : report.notes) out += fmt::format("note {}:{}: {}\n", note.file.string(), note.line, note.text);
  for (const auto& r : report.replicas) {
    out += fmt::format("replica {}: seq {}..{}, {} record(s), {} checkpoint(s)", r.replica, r.first_seq, r.last_seq,
                       r.records, r.checkpoints);
    if (report.key_given)
      out += fmt::format(", {} signature(s) verified", r.signed_checkpoints);
    else
      out += fmt::format(", {} signature(s) unchecked (no --key)", r.unchecked_signatures);
    out += '\n';
    if (r.unprotected_tail > 0)
      out += fmt::format("  {} record(s) after the last {}checkpoint could be cut off without a trace\n",
                         r.unprotected_tail, report.key_given ? "signed " : "");
  }
  if (!report.key_given && !report.failure)
    out += "without --key the chain proves order and completeness only against someone who cannot rewrite the "
           "whole file\n";
  return out;
}

json::object report_json(const VerifyReport& report) {
  json::object out;
  out["verified"] = !report.failure.has_value();
  json::array files;
  for (const auto& f : report.files) files.emplace_back(f.string());
  out["files"] = std::move(files);
  out["key"] = report.key_given;
  out["records"] = report.records;
  if (report.failure) {
    json::object failure{{"file", report.failure->file.string()},
                         {"line", report.failure->line},
                         {"reason", report.failure->reason}};
    if (report.failure->seq) {
      failure["seq"] = *report.failure->seq;
      failure["replica"] = report.failure->replica;
    }
    out["failure"] = std::move(failure);
  }
  json::array notes;
  for (const auto& n : report.notes)
    notes.push_back(json::object{{"file", n.file.string()}, {"line", n.line}, {"text", n.text}});
  out["notes"] = std::move(notes);
  json::array replicas;
  for (const auto& r : report.replicas)
    replicas.push_back(json::object{{"replica", r.replica},
                                    {"first_seq", r.first_seq},
                                    {"last_seq", r.last_seq},
                                    {"records", r.records},
                                    {"checkpoints", r.checkpoints},
                                    {"signed_checkpoints", r.signed_checkpoints},
                                    {"unchecked_signatures", r.unchecked_signatures},
                                    {"unprotected_tail", r.unprotected_tail}});
  out["replicas"] = std::move(replicas);
  return out;
}

}  // namespace airlock::host::audit
