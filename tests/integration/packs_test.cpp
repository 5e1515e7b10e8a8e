// Tool packs end to end: the real `airlock` binary builds, verifies and
// installs a pack of real plugins (the canary fixture and a first-party
// sanitizer), the real `minisign` signs it, and the server loads it, or
// refuses it naming the file when a byte, the signature or the trust is wrong.
#include "integration.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace airlock::test {
namespace {

namespace fs = std::filesystem;
using testing::HasSubstr;

bool have_minisign() { return std::system("command -v minisign >/dev/null 2>&1") == 0; }

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string joined(const RunResult& r) {
  return "exit " + (r.exit_code ? std::to_string(*r.exit_code) : std::string("(none)")) + "\nstdout:\n" + r.out +
         "stderr:\n" + r.err;
}

class PacksTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("airlock-packs-" + std::to_string(::getpid()) + "-" +
                                         testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    fs::copy_file(fixture_file("canary"), root_ / "src" / "canary.so");
    fs::copy_file(plugin_file("airlock_strip_control"), root_ / "src" / "strip_control.so");
    std::ofstream(root_ / "src" / "pack.toml") << "[pack]\nname = \"test-pack\"\nversion = \"1.0.0\"\n"
                                                  "vendor = \"Test Vendor\"\n\n[suggest.egress]\n"
                                                  "\"canary.echo\" = [\"https://api.acme.test\"]\n";
  }
  void TearDown() override { fs::remove_all(root_); }

  RunResult airlock(std::vector<std::string> args) {
    args.insert(args.begin(), kAirlockBinary);
    return run(std::move(args), 20s);
  }

  // A key pair made by the real tool: <name>.pub and <name>.sec.
  void make_key(const std::string& name) {
    const RunResult r = run({"minisign", "-G", "-W", "-f", "-p", path(name + ".pub"), "-s", path(name + ".sec")});
    ASSERT_EQ(0, r.exit_code.value_or(-1)) << joined(r);
  }
  std::string key_id(const std::string& name) {
    const std::string pub = read(root_ / (name + ".pub"));
    const std::string marker = "public key ";
    // The rest of the comment line: minisign writes the id without leading zeros.
    const std::size_t start = pub.find(marker) + marker.size();
    return pub.substr(start, pub.find('\n', start) - start);
  }

  // Builds src into out/, signs out/pack.toml with `key` (unless empty) using
  // minisign, and installs it into plugins/ (verified with that key).
  void build_sign_install(const std::string& key) {
    RunResult r = airlock({"pack", "build", path("src"), "-o", path("out")});
    ASSERT_EQ(0, r.exit_code.value_or(-1)) << joined(r);
    if (!key.empty()) {
      r = run({"minisign", "-S", "-s", path(key + ".sec"), "-m", path("out/pack.toml")});
      ASSERT_EQ(0, r.exit_code.value_or(-1)) << joined(r);
    }
    r = airlock({"pack", "build", path("out"), "-o", path("pack.tar.gz")});
    ASSERT_EQ(0, r.exit_code.value_or(-1)) << joined(r);
    std::vector<std::string> install{"pack", "install", path("pack.tar.gz"), "--dir", path("plugins")};
    if (!key.empty()) install.insert(install.end(), {"--key", path(key + ".pub")});
    r = airlock(install);
    ASSERT_EQ(0, r.exit_code.value_or(-1)) << joined(r);
    EXPECT_THAT(r.out, HasSubstr("installed test-pack 1.0.0 into " + path("plugins/test-pack")));
    EXPECT_THAT(r.out, HasSubstr("[tools.\"canary.echo\"]\negress = [\"https://api.acme.test\"]"));
  }

  std::string config(const std::string& trust, std::initializer_list<fs::path> dirs = {}) {
    std::string toml = "[server]\nname = \"packs\"\n\n[plugins]\n" +
                       (dirs.size() ? toml_dirs(dirs) : toml_dirs({root_ / "plugins"})) + "\non_error = \"fail\"\n\n";
    return toml + "[trust]\n" + trust;
  }
  std::string trusting(const std::string& key) {
    return "keys = [" + toml_string(path(key + ".pub")) + "]\nrequire_signed = true\n";
  }

  std::string path(const std::string& rel) const { return (root_ / rel).string(); }

  fs::path root_;
};

TEST_F(PacksTest, SignedPackIsVerifiedInstalledListedAndServed) {
  if (!have_minisign()) GTEST_SKIP() << "minisign is not installed";
  make_key("vendor");
  build_sign_install("vendor");
  // The archive kept the minisign signature: verify says who signed it.
  const RunResult v = airlock({"pack", "verify", path("pack.tar.gz"), "--key", path("vendor.pub"), "--require-signed"});
  ASSERT_EQ(0, v.exit_code.value_or(-1)) << joined(v);
  EXPECT_THAT(v.out, HasSubstr("signature: verified, key " + key_id("vendor")));
  EXPECT_THAT(v.out, HasSubstr("object canary.so"));
  EXPECT_THAT(v.out, HasSubstr("tools: canary.echo, canary.slow, canary.structured, canary.throws"));

  TempConfig cfg(config(trusting("vendor")));
  const RunResult list = run(list_argv(cfg.path()));
  ASSERT_EQ(0, list.exit_code.value_or(-1)) << joined(list);
  EXPECT_THAT(list.out, HasSubstr(path("plugins/test-pack/canary.so")));
  EXPECT_THAT(list.out, HasSubstr("pack: test-pack 1.0.0 from Test Vendor, signed by " + key_id("vendor")));

  auto client = start_initialized(cfg);
  const Message m = client->call_tool("canary.echo", boost::json::object{{"text", "from a pack"}});
  EXPECT_THAT(first_text(m), HasSubstr("from a pack")) << m.line;
  EXPECT_EQ(0, client->finish().value_or(-1));
}

TEST_F(PacksTest, ATamperedObjectIsRefusedNamingTheFile) {
  if (!have_minisign()) GTEST_SKIP() << "minisign is not installed";
  make_key("vendor");
  build_sign_install("vendor");
  const fs::path so = root_ / "plugins" / "test-pack" / "canary.so";
  {
    std::fstream f(so, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(4096);
    const char c = static_cast<char>(f.get());
    f.seekp(4096);
    f.put(static_cast<char>(c ^ 0x01));
  }
  TempConfig cfg(config(trusting("vendor")));
  McpStdioClient client(serve_argv(cfg.path()));
  ASSERT_TRUE(client.process().wait_exit(10s)) << "serve kept running with a tampered pack";
  EXPECT_NE(0, client.finish(1s).value_or(0));
  EXPECT_THAT(client.stderr_text(), HasSubstr(so.string() + ": SHA-256 is "));
  EXPECT_TRUE(client.lines().empty());
  // pack verify says the same and exits 1.
  const RunResult v = airlock({"pack", "verify", path("plugins/test-pack"), "--key", path("vendor.pub")});
  EXPECT_EQ(1, v.exit_code.value_or(-1)) << joined(v);
  EXPECT_THAT(v.err, HasSubstr(so.string() + ": SHA-256 is "));
}

TEST_F(PacksTest, AnObjectRegisteringOtherToolsThanItsManifestListsIsLoadedWithAWarning) {
  // airlock.fetch serves the names its config gives, so the same signed
  // bytes can register a tool the manifest (built with no config) never
  // named: allowed, but the operator is told.
  fs::create_directories(root_ / "fetch-src");
  fs::copy_file(plugin_file("airlock_fetch"), root_ / "fetch-src" / "fetch.so");
  std::ofstream(root_ / "fetch-src" / "pack.toml") << "[pack]\nname = \"fetch-pack\"\nversion = \"1.0.0\"\n"
                                                        "vendor = \"Test Vendor\"\n";
  RunResult r = airlock({"pack", "build", path("fetch-src"), "-o", path("plugins/fetch-pack")});
  ASSERT_EQ(0, r.exit_code.value_or(-1)) << joined(r);

  TempConfig as_built(config("require_signed = false\n"));
  const RunResult plain = run(list_argv(as_built.path()));
  ASSERT_EQ(0, plain.exit_code.value_or(-1)) << joined(plain);
  EXPECT_THAT(plain.err, testing::Not(HasSubstr("but its pack.toml lists")));

  TempConfig renamed(config("require_signed = false\n") + "\n[plugin.\"airlock.fetch\"]\nnames = [\"web.get\"]\n");
  const RunResult list = run(list_argv(renamed.path()));
  ASSERT_EQ(0, list.exit_code.value_or(-1)) << joined(list);
  EXPECT_THAT(list.out, HasSubstr("web.get"));
  EXPECT_THAT(list.err, HasSubstr(path("plugins/fetch-pack/fetch.so") + ": registers tools web.get, but its pack.toml lists"));
}

TEST_F(PacksTest, AnUnsignedPackIsRefusedUnderRequireSigned) {
  build_sign_install("");
  TempConfig cfg(config("require_signed = true\n"));
  const RunResult r = run(list_argv(cfg.path()));
  EXPECT_NE(0, r.exit_code.value_or(0));
  EXPECT_THAT(r.err, HasSubstr(path("plugins/test-pack/pack.toml") + ": not signed ([trust] require_signed = true)"));
  // Without require_signed it loads, with a warning naming the file.
  TempConfig lax(config("require_signed = false\n"));
  const RunResult ok = run(list_argv(lax.path()));
  EXPECT_EQ(0, ok.exit_code.value_or(-1)) << joined(ok);
  EXPECT_THAT(ok.err, HasSubstr(path("plugins/test-pack/pack.toml") + ": not signed"));
  EXPECT_THAT(ok.out, HasSubstr("pack: test-pack 1.0.0 from Test Vendor, unsigned"));
}

TEST_F(PacksTest, APackSignedByAnUntrustedKeyIsRefused) {
  if (!have_minisign()) GTEST_SKIP() << "minisign is not installed";
  make_key("vendor");
  make_key("stranger");
  build_sign_install("stranger");
  TempConfig cfg(config(trusting("vendor")));
  const RunResult r = run(list_argv(cfg.path()));
  EXPECT_NE(0, r.exit_code.value_or(0));
  EXPECT_THAT(r.err, HasSubstr(path("plugins/test-pack/pack.toml.minisig") + ": signed by key " + key_id("stranger") +
                               ", which is not in [trust] keys"));
  // A signature that does not verify with the trusted key (same id, other
  // bytes signed) is refused whatever require_signed says.
  std::string manifest = read(root_ / "plugins/test-pack/pack.toml");
  std::ofstream(root_ / "plugins/test-pack/pack.toml", std::ios::binary) << manifest << "# edited\n";
  fs::copy_file(root_ / "out/pack.toml.minisig", root_ / "plugins/test-pack/pack.toml.minisig",
                fs::copy_options::overwrite_existing);
  TempConfig lax(config("keys = [" + toml_string(path("stranger.pub")) + "]\n"));
  const RunResult bad = run(list_argv(lax.path()));
  EXPECT_NE(0, bad.exit_code.value_or(0));
  EXPECT_THAT(bad.err, HasSubstr(path("plugins/test-pack/pack.toml.minisig") + ": signature does not verify with key " +
                                 key_id("stranger")));
}

TEST_F(PacksTest, ALooseObjectNeedsAnUnsignedDirUnderRequireSigned) {
  const fs::path dir = fixture_dir("canary");
  TempConfig strict(config("require_signed = true\n", {dir}));
  const RunResult r = run(list_argv(strict.path()));
  EXPECT_NE(0, r.exit_code.value_or(0));
  EXPECT_THAT(r.err, HasSubstr(fixture_file("canary").string() +
                               ": not in a signed pack ([trust] require_signed = true; list its directory in "
                               "[trust] unsigned_dirs to allow loose plugins there)"));
  TempConfig allowed(config("require_signed = true\nunsigned_dirs = [" + toml_string(dir.string()) + "]\n", {dir}));
  const RunResult ok = run(list_argv(allowed.path()));
  EXPECT_EQ(0, ok.exit_code.value_or(-1)) << joined(ok);
  EXPECT_THAT(ok.out, HasSubstr("canary.echo"));
}

TEST_F(PacksTest, BuildSignOutputPassesMinisignVerify) {
  if (!have_minisign()) GTEST_SKIP() << "minisign is not installed";
  make_key("vendor");
  RunResult r = airlock({"pack", "build", path("src"), "-o", path("signed"), "--sign", path("vendor.sec")});
  ASSERT_EQ(0, r.exit_code.value_or(-1)) << joined(r);
  r = run({"minisign", "-V", "-p", path("vendor.pub"), "-m", path("signed/pack.toml")});
  EXPECT_EQ(0, r.exit_code.value_or(-1)) << joined(r);
  // Building twice gives byte-identical archives, signature included.
  ASSERT_EQ(0, airlock({"pack", "build", path("src"), "-o", path("a.tar.gz"), "--sign", path("vendor.sec")})
                   .exit_code.value_or(-1));
  ASSERT_EQ(0, airlock({"pack", "build", path("src"), "-o", path("b.tar.gz"), "--sign", path("vendor.sec")})
                   .exit_code.value_or(-1));
  EXPECT_EQ(read(root_ / "a.tar.gz"), read(root_ / "b.tar.gz"));
}

TEST_F(PacksTest, ATrustKeyThatDoesNotParseIsAConfigError) {
  TempConfig cfg(config("keys = [\"RWQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA!!\"]\n", {root_ / "src"}));
  const RunResult r = run(list_argv(cfg.path()));
  EXPECT_NE(0, r.exit_code.value_or(0));
  EXPECT_THAT(r.err, HasSubstr("trust.keys[0]: public key: not valid base64"));
}

}  // namespace
}  // namespace airlock::test
