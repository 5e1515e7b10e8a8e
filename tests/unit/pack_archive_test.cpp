// Pack archives: what build writes reads back byte-identical and stable, and
// hostile archives (built here with libarchive) are refused naming the entry.
#include "packs/pack_archive.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;
using testing::HasSubstr;

struct Entry {
  Entry(std::string p, std::string c = "", mode_t t = AE_IFREG, std::string l = "", bool h = false)
      : path(std::move(p)), content(std::move(c)), type(t), link(std::move(l)), hard(h) {}
  std::string path;
  std::string content;
  mode_t type = AE_IFREG;
  std::string link;      // symlink target, or hard link target when `hard`
  bool hard = false;
};

class PackArchiveTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("airlock-archive-" + std::to_string(::getpid()) + "-" +
                                        testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path make(const std::vector<Entry>& entries) {
    const fs::path file = dir_ / "hostile.tar.gz";
    archive* a = archive_write_new();
    archive_write_add_filter_gzip(a);
    archive_write_set_format_pax_restricted(a);
    EXPECT_EQ(ARCHIVE_OK, archive_write_open_filename(a, file.c_str()));
    for (const Entry& e : entries) {
      archive_entry* entry = archive_entry_new();
      archive_entry_set_pathname(entry, e.path.c_str());
      archive_entry_set_filetype(entry, e.type);
      archive_entry_set_perm(entry, 0644);
      if (e.type == AE_IFLNK) archive_entry_set_symlink(entry, e.link.c_str());
      if (e.hard) archive_entry_set_hardlink(entry, e.link.c_str());
      archive_entry_set_size(entry, e.type == AE_IFREG && !e.hard ? static_cast<la_int64_t>(e.content.size()) : 0);
      archive_write_header(a, entry);
      if (!e.content.empty() && e.type == AE_IFREG && !e.hard) archive_write_data(a, e.content.data(), e.content.size());
      archive_entry_free(entry);
    }
    archive_write_close(a);
    archive_write_free(a);
    return file;
  }

  std::string refusal(const std::vector<Entry>& entries, const ArchiveLimits& limits = {}) {
    fs::remove_all(dir_ / "out");
    fs::create_directories(dir_ / "out");
    auto r = extract_pack_archive(make(entries), dir_ / "out", limits);
    return r ? std::string("(accepted)") : r.error().message;
  }

  static std::string read(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

  fs::path dir_;
};

TEST_F(PackArchiveTest, WrittenArchivesReadBackAndAreByteIdentical) {
  fs::create_directories(dir_ / "src");
  std::ofstream(dir_ / "src" / "pack.toml") << "[pack]\n";
  std::ofstream(dir_ / "src" / "liba.so") << std::string(100000, 'x');
  ASSERT_TRUE(write_pack_archive(dir_ / "a.tar.gz", dir_ / "src", {"pack.toml", "liba.so"}));
  ::sleep(1);  // a clock in the output would now show
  ASSERT_TRUE(write_pack_archive(dir_ / "b.tar.gz", dir_ / "src", {"liba.so", "pack.toml"}));
  EXPECT_EQ(read(dir_ / "a.tar.gz"), read(dir_ / "b.tar.gz"));
  auto r = extract_pack_archive(dir_ / "a.tar.gz", dir_ / "out");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ("[pack]\n", read(dir_ / "out" / "pack.toml"));
  EXPECT_EQ(std::string(100000, 'x'), read(dir_ / "out" / "liba.so"));
}

TEST_F(PackArchiveTest, OneTopLevelDirectoryIsStripped) {
  EXPECT_EQ("(accepted)", refusal({{"acme/", "", AE_IFDIR}, {"acme/pack.toml", "x"}, {"acme/a.so", "y"}}));
  EXPECT_EQ("x", read(dir_ / "out" / "pack.toml"));
}

TEST_F(PackArchiveTest, DotSlashPrefixesAreAccepted) {
  EXPECT_EQ("(accepted)", refusal({{"./", "", AE_IFDIR}, {"./pack.toml", "x"}}));
}

TEST_F(PackArchiveTest, HostileEntriesAreRefusedNamingTheEntry) {
  const std::string where = (dir_ / "hostile.tar.gz").string();
  EXPECT_EQ(where + ": ../x: path contains \"..\"", refusal({{"../x", "evil"}}));
  EXPECT_EQ(where + ": acme/../x: path contains \"..\"", refusal({{"acme/../x", "evil"}}));
  EXPECT_EQ(where + ": /etc/x: absolute path", refusal({{"/etc/x", "evil"}}));
  EXPECT_EQ(where + ": link.so: a symlink", refusal({{"link.so", "", AE_IFLNK, "/etc/passwd"}}));
  EXPECT_EQ(where + ": b.so: hard link", refusal({{"a.so", "x"}, {"b.so", "", AE_IFREG, "a.so", true}}));
  EXPECT_EQ(where + ": dev: a character device", refusal({{"dev", "", AE_IFCHR}}));
  EXPECT_EQ(where + ": fifo: a FIFO", refusal({{"fifo", "", AE_IFIFO}}));
  EXPECT_EQ(where + ": a.so: appears twice", refusal({{"a.so", "x"}, {"a.so", "y"}}));
  EXPECT_EQ(where + ": ./acme/a.so: appears twice", refusal({{"acme/a.so", "x"}, {"./acme/a.so", "y"}}));
  EXPECT_THAT(refusal({{"a/b/c.so", "x"}}), HasSubstr("a/b/c.so: nested directory"));
  EXPECT_THAT(refusal({{"a/", "", AE_IFDIR}, {"b/", "", AE_IFDIR}}), HasSubstr("b/: second top-level directory"));
  EXPECT_THAT(refusal({{"x.so", "x"}, {"acme/y.so", "y"}}), HasSubstr("acme/y.so: file inside a directory next to"));
  EXPECT_THAT(refusal({{"acme/y.so", "y"}, {"x.so", "x"}}), HasSubstr("x.so: top-level file next to"));
}

TEST_F(PackArchiveTest, SizeLimitsNameTheEntry) {
  ArchiveLimits limits;
  limits.max_file_bytes = 10;
  limits.max_total_bytes = 15;
  const std::string where = (dir_ / "hostile.tar.gz").string();
  EXPECT_EQ(where + ": big.so: 11 bytes, more than the limit of 10", refusal({{"big.so", std::string(11, 'x')}}, limits));
  EXPECT_EQ(where + ": b.so: the archive holds more than the limit of 15 bytes",
            refusal({{"a.so", std::string(10, 'x')}, {"b.so", std::string(6, 'y')}}, limits));
  limits.max_entries = 2;
  EXPECT_THAT(refusal({{"a", "1"}, {"b", "2"}, {"c", "3"}}, limits), HasSubstr("c: more than 2 entries"));
}

TEST_F(PackArchiveTest, NotAnArchiveIsRefused) {
  std::ofstream(dir_ / "junk.tar.gz") << "not gzip at all";
  auto r = extract_pack_archive(dir_ / "junk.tar.gz", dir_ / "out");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("junk.tar.gz: not a readable .tar.gz"));
}

// A fuzz finding (tests/fuzz/corpus/pack_archive/finding-null-error-string):
// a gzip'd header that makes libarchive fail to open the archive without
// setting an error string; formatting the null text threw out of extract.
TEST_F(PackArchiveTest, AFailureWithoutLibarchiveTextIsStillAnError) {
  const std::string bytes(
      "\x1f\x8b\x08\x00\x89\x3d\x14\x6b\x02\xff\xed\xd4\x31\x0e\x83\x30\x0c\x85\x61\x1f\x85\x13\x84\x44"
      "\x72\xc2\x79\x2c\xc4\x44\x11\x55\x01\x89\xde\xbe\x81\x0d\xd4\x15\x10\xe2\xff\x16\x7b\xf3\xf0\xf4"
      "\x6c\x75\xd7\x94\x72\x2c\x9f\x25\xd5\x75\x66\xfb\xf9\x67\x4f\x49\x2b\x29\xa2\x9c\x60\x1a\x46\xfb"
      "\xe4\x93\xf2\x4c\xb6\xe4\xff\xb6\xba\x75\x63\xdf\xbd\xae\xca\x3f\x6c\xf3\x0f\x5e\xa3\x4a\xe1\xc9"
      "\xff\x70\xb3\xe0\xc9\x5c\xb9\x7e\x00\x73\x43\x7f\xe1\xff\xdf\xf5\xdf\x57\x4a\xe1\xc9\xff\x70\xb3"
      "\xe0\xc9\x5c\xb9\x7e\x00\x73\x43\x7f\xe1\xff\xdf\xf5\xe0\xf6\x7e\x41\xab\x95\x00\x28\x00\x00",
      143);
  std::ofstream(dir_ / "null.tar.gz", std::ios::binary) << bytes;
  auto r = extract_pack_archive(dir_ / "null.tar.gz", dir_ / "out");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("null.tar.gz: not a readable .tar.gz: unknown libarchive error"));
}

}  // namespace
}  // namespace airlock::host
