// Verifying a pack directory or archive against [trust]: each outcome of the
// rules, with the message naming the file. The objects here are plain bytes;
// verification never loads them (tests/integration loads real ones).
#include "packs/minisign.hpp"
#include "packs/pack_archive.hpp"
#include "packs/pack_install.hpp"
#include "packs/pack_open.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;
using testing::HasSubstr;

// The throwaway test key of minisign_test.cpp (minisign -G -W).
constexpr std::string_view kSecretKey =
    "untrusted comment: minisign encrypted secret key\n"
    "RWQAAEIyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAMFrBDC48RCFVIQdvXERH4IJ9wV7XEqZJAAH7"
    "jEuPk0rGa4E8Dszw99sJxKSrtRSU4UpcqMYHctT2NkNONMKOu4Np2ObLhGRQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";
constexpr std::string_view kOtherPublicLine = "RWSxWoWqZjjQgXIws0gA64d8seXOus/d3BoKHe0EXBV0E/wliPn8TohK";
constexpr std::string_view kObject = "not really ELF, but hashed like one";

class PackVerifyTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("airlock-verify-" + std::to_string(::getpid()) + "-" +
                                         testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    dir_ = root_ / "acme-tools";
    fs::create_directories(dir_);
    PackManifest m;
    m.name = "acme-tools";
    m.version = "1.2.0";
    m.vendor = "Acme Corp";
    m.abi = "1.4";
    m.object_entries.push_back(PackObject{"libacme.so", sha256(kObject), kObject.size(), "1.4", {"acme.lookup"}, {}});
    manifest_ = write_manifest(m);
    put("pack.toml", manifest_);
    put("libacme.so", kObject);
  }
  void TearDown() override { fs::remove_all(root_); }

  void put(const std::string& name, std::string_view bytes) { std::ofstream(dir_ / name, std::ios::binary) << bytes; }
  void sign() { put("pack.toml.minisig", minisign::sign(secret(), manifest_, "test")); }
  static minisign::SecretKey secret() { return minisign::parse_secret_key(kSecretKey, std::nullopt).value(); }

  TrustPolicy trusting(bool require_signed) const {
    TrustPolicy t;
    t.keys.push_back(minisign::public_key_of(secret()));
    t.require_signed = require_signed;
    return t;
  }
  std::string refusal(const TrustPolicy& trust) {
    auto r = verify_pack(dir_, trust);
    return r ? std::string("(verified)") : r.error().message;
  }

  fs::path root_;
  fs::path dir_;
  std::string manifest_;
};

TEST_F(PackVerifyTest, SignedPackVerifiesAndKeepsTheBytesItHashed) {
  sign();
  auto pack = verify_pack(dir_, trusting(true));
  ASSERT_TRUE(pack) << pack.error().message;
  EXPECT_TRUE(pack->warnings.empty());
  EXPECT_EQ("21443C2E0CC15A30", pack->origin().signer);
  ASSERT_EQ(1u, pack->objects.size());
  EXPECT_EQ(kObject, pack->objects[0].bytes);
  EXPECT_EQ(dir_ / "libacme.so", pack->objects[0].file);
  EXPECT_EQ(manifest_, pack->manifest_text);
}

TEST_F(PackVerifyTest, DigestAndSizeMismatchesAreAlwaysRefused) {
  sign();
  std::string tampered(kObject);
  tampered[3] ^= 1;
  put("libacme.so", tampered);
  EXPECT_EQ((dir_ / "libacme.so").string() + ": SHA-256 is " + sha256_hex(sha256(tampered)) + ", pack.toml says " +
                sha256_hex(sha256(kObject)),
            refusal(trusting(false)));
  put("libacme.so", std::string(kObject) + "!");
  EXPECT_EQ((dir_ / "libacme.so").string() + ": 36 bytes, pack.toml says 35", refusal(trusting(false)));
  fs::remove(dir_ / "libacme.so");
  EXPECT_THAT(refusal(trusting(false)), HasSubstr((dir_ / "libacme.so").string() + ": cannot read"));
}

TEST_F(PackVerifyTest, ASymlinkedObjectIsRefused) {
  sign();
  fs::rename(dir_ / "libacme.so", root_ / "elsewhere.so");
  fs::create_symlink(root_ / "elsewhere.so", dir_ / "libacme.so");
  EXPECT_EQ((dir_ / "libacme.so").string() + ": a symlink (a pack's files must be its own)", refusal(trusting(true)));
}

TEST_F(PackVerifyTest, UnsignedIsRefusedUnderRequireSignedElseAWarning) {
  EXPECT_EQ((dir_ / "pack.toml").string() + ": not signed ([trust] require_signed = true)", refusal(trusting(true)));
  auto pack = verify_pack(dir_, trusting(false));
  ASSERT_TRUE(pack) << pack.error().message;
  ASSERT_EQ(1u, pack->warnings.size());
  EXPECT_THAT(pack->warnings[0], HasSubstr("pack.toml: not signed"));
  EXPECT_EQ("unsigned", pack->origin().signer);
}

TEST_F(PackVerifyTest, AnUntrustedKeyIsRefusedUnderRequireSignedElseAWarning) {
  sign();
  TrustPolicy other;
  other.keys.push_back(minisign::parse_public_key(kOtherPublicLine).value());
  other.require_signed = true;
  EXPECT_EQ((dir_ / "pack.toml.minisig").string() +
                ": signed by key 21443C2E0CC15A30, which is not in [trust] keys ([trust] require_signed = true)",
            refusal(other));
  other.require_signed = false;
  auto pack = verify_pack(dir_, other);
  ASSERT_TRUE(pack) << pack.error().message;
  EXPECT_EQ("untrusted key 21443C2E0CC15A30", pack->origin().signer);
  EXPECT_THAT(pack->warnings.at(0), HasSubstr("not in [trust] keys"));
}

TEST_F(PackVerifyTest, AFailingOrMalformedSignatureIsAlwaysRefused) {
  sign();
  put("pack.toml", manifest_ + "\n");  // one byte more than what was signed
  EXPECT_EQ((dir_ / "pack.toml.minisig").string() + ": signature does not verify with key 21443C2E0CC15A30",
            refusal(trusting(false)));
  put("pack.toml", manifest_);
  put("pack.toml.minisig", "untrusted comment: x\nRUQ\n");
  EXPECT_THAT(refusal(trusting(false)), HasSubstr((dir_ / "pack.toml.minisig").string() + ": malformed signature"));
}

TEST_F(PackVerifyTest, UnlistedObjectsAreNamedInAWarning) {
  sign();
  put("extra.so", "x");
  auto pack = verify_pack(dir_, trusting(true));
  ASSERT_TRUE(pack) << pack.error().message;
  ASSERT_EQ(1u, pack->warnings.size());
  EXPECT_EQ((dir_ / "extra.so").string() + ": not listed in pack.toml; not loaded", pack->warnings[0]);
  EXPECT_EQ(1u, pack->objects.size());
}

TEST_F(PackVerifyTest, ArchivesVerifyAndInstallAtomically) {
  sign();
  const fs::path archive = root_ / "acme.tar.gz";
  ASSERT_TRUE(write_pack_archive(archive, dir_, {"pack.toml", "pack.toml.minisig", "libacme.so"}));
  auto pack = verify_pack(archive, trusting(true));
  ASSERT_TRUE(pack) << pack.error().message;
  auto installed = install_pack(*pack, root_ / "plugins");
  ASSERT_TRUE(installed) << installed.error().message;
  EXPECT_EQ(root_ / "plugins" / "acme-tools", *installed);
  // Installing again replaces it whole, and leaves no staging directory.
  ASSERT_TRUE(install_pack(*pack, root_ / "plugins"));
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(root_ / "plugins")) names.push_back(e.path().filename().string());
  EXPECT_EQ(std::vector<std::string>{"acme-tools"}, names);
  EXPECT_TRUE(verify_pack(*installed, trusting(true)));
}

TEST_F(PackVerifyTest, TrustKeysThatDoNotParseNameTheirPlace) {
  TrustConfig trust;
  trust.keys.push_back({"RWQ!!", SourcePlace{"airlock.toml", 7, 9, "trust.keys[0]"}});
  auto policy = trust_policy(trust);
  ASSERT_FALSE(policy);
  EXPECT_EQ("airlock.toml:7:9: trust.keys[0]: public key: not valid base64", policy.error().message);
}

}  // namespace
}  // namespace airlock::host
