// [audit] (config/audit_section.cpp).
#include "config_test_support.hpp"

#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;
using config_test::error_of;
using config_test::parse;
using testing::HasSubstr;

TEST(HostConfigAudit, IsOffWithoutTheTableAndReadsEveryKeyWithIt) {
  const auto off = parse("");
  ASSERT_TRUE(off.has_value());
  EXPECT_FALSE(off->audit.enabled);
  const auto config = parse("[audit]\nsink = \"file\"\nfile = \"log/audit.log\"\nformat = \"cef\"\nqueue = 64\n"
                            "checkpoint_interval_s = 10\nsigning_key_file = \"audit.key\"\nrecord_arguments = true\n"
                            "replica = \"node-a\"\n");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  const AuditConfig& audit = config->audit;
  EXPECT_TRUE(audit.enabled);
  EXPECT_EQ(audit.sink, AuditSinkKind::file);
  EXPECT_TRUE(audit.file.is_absolute());
  EXPECT_EQ(audit.file.filename(), "audit.log");
  EXPECT_EQ(audit.format, AuditFormat::cef);
  EXPECT_EQ(audit.queue, 64u);
  EXPECT_EQ(audit.checkpoint_interval_s, 10u);
  ASSERT_TRUE(audit.signing_key_file.has_value());
  EXPECT_TRUE(audit.signing_key_file->is_absolute());
  EXPECT_TRUE(audit.record_arguments);
  EXPECT_EQ(audit.replica, "node-a");
  const auto syslog = parse("[audit]\nsink = \"syslog\"\n");
  ASSERT_TRUE(syslog.has_value()) << syslog.error().message;
  EXPECT_EQ(syslog->audit.syslog_socket, "/dev/log");
  EXPECT_EQ(syslog->audit.format, AuditFormat::ocsf);
}

TEST(HostConfigAudit, NamesWhatIsWrong) {
  EXPECT_THAT(error_of("[audit]\nsink = \"file\"\n"), HasSubstr("missing key 'file'"));
  EXPECT_THAT(error_of("[audit]\n"), HasSubstr("missing key 'file'")) << "file is the default sink";
  EXPECT_THAT(error_of("[audit]\nsink = \"kafka\"\n"), HasSubstr("audit.sink"));
  EXPECT_THAT(error_of("[audit]\nsink = \"stderr\"\nformat = \"leef\"\n"), HasSubstr("\"ocsf\""));
  EXPECT_THAT(error_of("[audit]\nsink = \"stderr\"\nqueue = 1\n"), HasSubstr("audit.queue"));
  EXPECT_THAT(error_of("[audit]\nsink = \"stderr\"\ncheckpoint_interval_s = 0\n"),
              HasSubstr("audit.checkpoint_interval_s"));
  EXPECT_THAT(error_of("[audit]\nsink = \"stderr\"\nreplica = \"a b\"\n"), HasSubstr("audit.replica"));
  EXPECT_THAT(error_of("[audit]\nsink = \"stderr\"\nrecord_argument = true\n"), HasSubstr("record_argument"));
}

}  // namespace
}  // namespace airlock::host
