// The chain and its verifier on real trail files: an untouched trail
// verifies, and an edit, a deletion, a reorder, an insertion, a bad
// signature or the wrong key is named at the right record.
#include "audit/audit_chain.hpp"
#include "audit/audit_trail.hpp"
#include "audit/audit_verify.hpp"
#include "audit/checkpoint_signer.hpp"
#include "util/json_text.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

namespace airlock::host::audit {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class AuditChain : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "airlock-audit-chain-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  AuditConfig config(AuditFormat format = AuditFormat::ocsf) const {
    AuditConfig c;
    c.enabled = true;
    c.sink = AuditSinkKind::file;
    c.file = dir_ / "audit.log";
    c.format = format;
    c.replica = "r1";
    c.checkpoint_interval_s = 3600;
    return c;
  }

  // A key pair in the temp dir; returns the signing key's path.
  fs::path keygen(const std::string& name = "audit.key") const {
    const fs::path key = dir_ / name;
    EXPECT_TRUE(generate_signing_key(key));
    return key;
  }

  // Writes `count` tool calls through a trail (which adds its checkpoint at the end).
  void write(const AuditConfig& c, int count, int first = 1) const {
    auto trail = Trail::open(c, nullptr);
    ASSERT_TRUE(trail) << trail.error().message;
    for (int i = first; i < first + count; ++i) {
      Event event;
      event.kind = Kind::tool_call;
      event.outcome = "delivered";
      event.subject = "tool_" + std::to_string(i);
      (*trail)->record(std::move(event));
    }
  }

  static std::vector<std::string> lines(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  static void rewrite(const fs::path& file, const std::vector<std::string>& content) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    for (const auto& line : content) out << line << '\n';
  }

  static VerifyReport verify(const std::vector<fs::path>& files, const std::optional<fs::path>& key_file = {}) {
    VerifyOptions options;
    if (key_file) {
      auto key = read_public_key(*key_file);
      EXPECT_TRUE(key);
      if (key) options.key = *key;
    }
    auto report = verify_trail(files, options);
    EXPECT_TRUE(report) << report.error().message;
    return report ? *report : VerifyReport{};
  }

  fs::path dir_;
};

TEST_F(AuditChain, AnUntouchedSignedTrailVerifies) {
  AuditConfig c = config();
  c.signing_key_file = keygen();
  write(c, 5);
  const auto content = lines(c.file);
  ASSERT_EQ(content.size(), 6u);  // five calls and the checkpoint at stop
  const auto last = parse_record(content.back());
  ASSERT_TRUE(last);
  EXPECT_EQ(last->kind, "checkpoint");
  EXPECT_EQ(last->detail.at("seq"), 5);
  EXPECT_EQ(last->detail.at("records"), 5);
  EXPECT_EQ(last->detail.at("head").as_string(), line_hash(content[4]));
  EXPECT_EQ(parse_record(content[0])->link.prev, kGenesisPrev);

  const auto report = verify({c.file}, dir_ / "audit.key.pub");
  EXPECT_FALSE(report.failure) << render_report(report);
  EXPECT_EQ(report.records, 6u);
  ASSERT_EQ(report.replicas.size(), 1u);
  EXPECT_EQ(report.replicas[0].signed_checkpoints, 1u);
  EXPECT_EQ(report.replicas[0].unprotected_tail, 0u);
}

TEST_F(AuditChain, WithoutAKeySignaturesAreReportedUnchecked) {
  AuditConfig c = config();
  c.signing_key_file = keygen();
  write(c, 2);
  const auto report = verify({c.file});
  EXPECT_FALSE(report.failure);
  EXPECT_EQ(report.replicas.at(0).unchecked_signatures, 1u);
  EXPECT_THAT(render_report(report), HasSubstr("1 signature(s) unchecked (no --key)"));
}

TEST_F(AuditChain, AnEditedLineIsNamedAtTheRecordAfterIt) {
  write(config(), 5);
  auto content = lines(config().file);
  const auto at = content[2].find("tool_3");
  ASSERT_NE(at, std::string::npos);
  content[2].replace(at, 6, "tool_X");
  rewrite(config().file, content);
  const auto report = verify({config().file});
  ASSERT_TRUE(report.failure);
  EXPECT_EQ(report.failure->line, 4u);
  EXPECT_EQ(report.failure->seq, 4u);
  EXPECT_THAT(report.failure->reason, HasSubstr("prev does not match the line before"));
}

TEST_F(AuditChain, ADeletedLineIsNamedBySeq) {
  write(config(), 5);
  auto content = lines(config().file);
  content.erase(content.begin() + 2);
  rewrite(config().file, content);
  const auto report = verify({config().file});
  ASSERT_TRUE(report.failure);
  EXPECT_EQ(report.failure->line, 3u);
  EXPECT_EQ(report.failure->reason, "seq 4 follows seq 2");
  EXPECT_THAT(render_report(report),
              HasSubstr(config().file.string() + ":3: record 4 of replica r1: seq 4 follows seq 2\n"));
}

TEST_F(AuditChain, AReorderIsNamedAtTheFirstMovedLine) {
  write(config(), 5);
  auto content = lines(config().file);
  std::swap(content[1], content[2]);
  rewrite(config().file, content);
  const auto report = verify({config().file});
  ASSERT_TRUE(report.failure);
  EXPECT_EQ(report.failure->line, 2u);
  EXPECT_EQ(report.failure->reason, "seq 3 follows seq 1");
}

TEST_F(AuditChain, AnInsertedLineIsNamed) {
  write(config(), 5);
  auto content = lines(config().file);
  content.insert(content.begin() + 3, content[1]);  // a replayed copy of record 2
  rewrite(config().file, content);
  auto report = verify({config().file});
  ASSERT_TRUE(report.failure);
  EXPECT_EQ(report.failure->line, 4u);
  EXPECT_EQ(report.failure->reason, "seq 2 follows seq 3");

  // A forged line that takes the next seq and the right prev is caught by the record after it.
  content = lines(config().file);
  content.erase(content.begin() + 3);
  auto forged = boost::json::parse(content[2]).as_object();
  forged["unmapped"].as_object()["airlock_chain"].as_object()["seq"] = 4;
  forged["unmapped"].as_object()["airlock_chain"].as_object()["prev"] = line_hash(content[2]);
  content.insert(content.begin() + 3, to_json(forged));
  rewrite(config().file, content);
  report = verify({config().file});
  ASSERT_TRUE(report.failure);
  EXPECT_EQ(report.failure->line, 5u);
  EXPECT_EQ(report.failure->reason, "seq 4 follows seq 4");
}

TEST_F(AuditChain, AJunkLineIsNotAnAuditRecord) {
  write(config(), 3);
  auto content = lines(config().file);
  content.insert(content.begin() + 1, "hello");
  rewrite(config().file, content);
  const auto report = verify({config().file});
  ASSERT_TRUE(report.failure);
  EXPECT_EQ(report.failure->line, 2u);
  EXPECT_EQ(report.failure->reason, "not an audit record");
}

TEST_F(AuditChain, ABadSignatureIsNamed) {
  AuditConfig c = config();
  c.signing_key_file = keygen();
  write(c, 3);
  auto content = lines(c.file);
  // The same key's signature, but of another head: well-formed, and wrong.
  auto signer = CheckpointSigner::from_file(*c.signing_key_file);
  ASSERT_TRUE(signer);
  auto checkpoint = boost::json::parse(content.back()).as_object();
  checkpoint["unmapped"].as_object()["detail"].as_object()["signature"] =
      signer->sign(checkpoint_message("r1", 3, std::string(64, 'f')));
  content.back() = to_json(checkpoint);
  rewrite(c.file, content);
  const auto report = verify({c.file}, dir_ / "audit.key.pub");
  ASSERT_TRUE(report.failure);
  EXPECT_EQ(report.failure->line, 4u);
  EXPECT_EQ(report.failure->reason, "checkpoint signature does not verify");
}

TEST_F(AuditChain, TheWrongKeyIsNamed) {
  AuditConfig c = config();
  c.signing_key_file = keygen();
  keygen("other.key");
  write(c, 2);
  const auto report = verify({c.file}, dir_ / "other.key.pub");
  ASSERT_TRUE(report.failure);
  EXPECT_EQ(report.failure->line, 3u);
  EXPECT_THAT(report.failure->reason, HasSubstr("checkpoint is signed by key "));
  EXPECT_THAT(report.failure->reason, HasSubstr("not by the given key"));
}

TEST_F(AuditChain, AnUnsignedCheckpointFailsWhenAKeyIsRequired) {
  keygen();
  write(config(), 2);
  const auto report = verify({config().file}, dir_ / "audit.key.pub");
  ASSERT_TRUE(report.failure);
  EXPECT_EQ(report.failure->reason, "checkpoint is not signed");
}

TEST_F(AuditChain, ReopeningTheFileContinuesItsChain) {
  write(config(), 2);
  write(config(), 2, 3);
  const auto content = lines(config().file);
  ASSERT_EQ(content.size(), 6u);
  EXPECT_EQ(parse_record(content[3])->link.seq, 4u);
  EXPECT_EQ(parse_record(content[3])->link.prev, line_hash(content[2]));
  const auto report = verify({config().file});
  EXPECT_FALSE(report.failure) << render_report(report);
}

TEST_F(AuditChain, ATornLastLineIsCutOffAndStated) {
  write(config(), 2);
  {
    std::ofstream out(config().file, std::ios::binary | std::ios::app);
    out << R"({"activity_id":99,"tor)";
  }
  write(config(), 1, 3);
  const auto content = lines(config().file);
  ASSERT_EQ(content.size(), 5u);
  const auto after = parse_record(content[3]);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->detail.at("torn_tail_bytes"), 22);
  EXPECT_FALSE(verify({config().file}).failure);
}

TEST_F(AuditChain, ALastLineThatIsNoRecordRefusesToOpen) {
  std::ofstream(config().file) << "not a record\n";
  auto trail = Trail::open(config(), nullptr);
  ASSERT_FALSE(trail);
  EXPECT_THAT(trail.error().message, HasSubstr("the last line is not an audit record"));
}

TEST_F(AuditChain, ACefTrailVerifiesAndShowsTampering) {
  write(config(AuditFormat::cef), 4);
  auto content = lines(config().file);
  ASSERT_EQ(content.size(), 5u);
  EXPECT_EQ(content[0].rfind("CEF:0|airlock|airlock|", 0), 0u);
  EXPECT_FALSE(verify({config().file}).failure);
  content.erase(content.begin() + 1);
  rewrite(config().file, content);
  const auto report = verify({config().file});
  ASSERT_TRUE(report.failure);
  EXPECT_EQ(report.failure->reason, "seq 3 follows seq 1");
}

TEST_F(AuditChain, RotatedFilesVerifyInOrderAndNotOutOfIt) {
  // What a SIGHUP reopen leaves: the chain goes on in the next file.
  write(config(), 3);
  auto content = lines(config().file);
  const fs::path older = dir_ / "audit.log.1";
  rewrite(older, {content.begin(), content.begin() + 2});
  rewrite(config().file, {content.begin() + 2, content.end()});

  auto report = verify({older, config().file});
  EXPECT_FALSE(report.failure) << render_report(report);
  EXPECT_TRUE(report.notes.empty()) << render_report(report);

  report = verify({config().file});
  EXPECT_FALSE(report.failure);
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_THAT(report.notes[0].text, HasSubstr("continues a chain from an earlier file (prev not checked)"));

  // Out of order, the older file reads as a chain started afresh (as after
  // a restart on an empty file): not a broken link, but said, with the
  // newer file's records counted as a tail nothing protects.
  report = verify({config().file, older});
  EXPECT_FALSE(report.failure);
  ASSERT_EQ(report.notes.size(), 2u);
  EXPECT_EQ(report.notes[1].file, older);
  EXPECT_THAT(report.notes[1].text, HasSubstr("a new chain starts here; the one before ended at seq 4"));
}

TEST_F(AuditChain, InterleavedReplicasVerifyEachChainApart) {
  write(config(), 2);
  AuditConfig other = config();
  other.file = dir_ / "other.log";
  other.replica = "r2";
  write(other, 2);
  const auto a = lines(config().file);
  const auto b = lines(other.file);
  const fs::path merged = dir_ / "merged.log";
  rewrite(merged, {a[0], b[0], a[1], b[1], b[2], a[2]});
  const auto report = verify({merged});
  EXPECT_FALSE(report.failure) << render_report(report);
  EXPECT_EQ(report.replicas.size(), 2u);
}

// `airlock pin` writes under "<replica>.pin" into the server's file; the
// server's next start continues its own chain past those records, so the
// file holds two whole chains and not a server chain begun again.
TEST_F(AuditChain, AServerContinuesItsOwnChainPastAnotherReplicasRecords) {
  write(config(), 2);
  AuditConfig pin = config();
  pin.replica = "r1.pin";
  write(pin, 1);
  write(config(), 1, 3);
  const auto content = lines(config().file);
  ASSERT_EQ(content.size(), 7u) << "3 + 2 + 2 records, checkpoints included";
  const auto resumed = parse_record(content[5]);
  ASSERT_TRUE(resumed);
  EXPECT_EQ(resumed->link.replica, "r1");
  EXPECT_EQ(resumed->link.seq, 4u) << "after the server's own 3, not a new chain";
  EXPECT_EQ(resumed->link.prev, line_hash(content[2]));
  const auto report = verify({config().file});
  EXPECT_FALSE(report.failure) << render_report(report);
  EXPECT_TRUE(report.notes.empty()) << render_report(report);
  EXPECT_EQ(report.replicas.size(), 2u);
}

TEST_F(AuditChain, KeygenRefusesToOverwriteAndWritesAPrivateFile) {
  const fs::path key = keygen();
  struct stat info {};
  ASSERT_EQ(::stat(key.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  const auto again = generate_signing_key(key);
  ASSERT_FALSE(again);
  EXPECT_THAT(again.error().message, HasSubstr("already exists"));
  auto signer = CheckpointSigner::from_file(key);
  ASSERT_TRUE(signer);
  auto pub = read_public_key(dir_ / "audit.key.pub");
  ASSERT_TRUE(pub);
  EXPECT_EQ(*pub, signer->public_key());
}

TEST_F(AuditChain, UnreadableFilesAreAnErrorNotAFailure) {
  const auto report = verify_trail({dir_ / "missing.log"}, {});
  ASSERT_FALSE(report);
  EXPECT_THAT(report.error().message, HasSubstr("missing.log: cannot read"));
}

}  // namespace
}  // namespace airlock::host::audit
