// pack.toml: a built manifest round-trips to the same bytes, and every
// refusal names the file, line and key.
#include "packs/pack_manifest.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace airlock::host {
namespace {

using testing::HasSubstr;

constexpr std::string_view kDigest = "d25dea4f5ea0f2c3d050fdadd3a241dec93312a2fdba86547df24f0b68cf8558";

std::string built(std::string_view object_extra = "", std::string_view pack_extra = "") {
  return std::string("[pack]\nname = \"acme-tools\"\nversion = \"1.2.0\"\nvendor = \"Acme Corp\"\nabi = \"1.4\"\n") +
         std::string(pack_extra) + "\n[[object]]\nfile = \"libacme.so\"\nsha256 = \"" + std::string(kDigest) +
         "\"\nsize = 12345\nabi = \"1.4\"\ntools = [\"acme.lookup\"]\nsanitizers = []\n" + std::string(object_extra) +
         "\n[suggest.egress]\n\"acme.lookup\" = [\"https://api.acme.test\"]\n"
         "[suggest.chains.strict]\nsteps = [\"airlock.strip_control\"]\n";
}

std::string error_of(std::string_view text, ManifestForm form = ManifestForm::built) {
  auto m = parse_manifest(text, "pack.toml", form);
  return m ? std::string("(parsed)") : m.error().message;
}

TEST(PackManifest, BuiltManifestReadsEveryField) {
  auto m = parse_manifest(built(), "pack.toml", ManifestForm::built);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ("acme-tools", m->name);
  EXPECT_EQ("1.2.0", m->version);
  EXPECT_EQ("Acme Corp", m->vendor);
  EXPECT_EQ("1.4", m->abi.value_or(""));
  ASSERT_EQ(1u, m->object_entries.size());
  const PackObject& o = m->object_entries[0];
  EXPECT_EQ("libacme.so", o.file);
  EXPECT_EQ(kDigest, sha256_hex(o.sha256));
  EXPECT_EQ(12345u, o.size);
  EXPECT_EQ(std::vector<std::string>{"acme.lookup"}, o.tools);
  EXPECT_TRUE(o.sanitizers.empty());
  EXPECT_EQ(std::vector<std::string>{"https://api.acme.test"}, m->suggest_egress.at("acme.lookup"));
  EXPECT_EQ(std::vector<std::string>{"airlock.strip_control"}, m->suggest_chains.at("strict"));
}

TEST(PackManifest, WriteThenReadIsTheSameManifestAndTheSameBytes) {
  auto m = parse_manifest(built(), "pack.toml", ManifestForm::built).value();
  m.description = "Lookups, \"quoted\" and\nmultiline";
  PackObject second = m.object_entries[0];
  second.file = "liba.so";  // sorts first when written
  m.object_entries.push_back(second);
  const std::string text = write_manifest(m);
  auto again = parse_manifest(text, "pack.toml", ManifestForm::built);
  ASSERT_TRUE(again) << again.error().message << "\n" << text;
  EXPECT_EQ(text, write_manifest(*again));
  EXPECT_EQ(m.description, again->description);
  ASSERT_EQ(2u, again->object_entries.size());
  EXPECT_EQ("liba.so", again->object_entries[0].file);
  EXPECT_EQ(m.suggest_egress, again->suggest_egress);
  EXPECT_EQ(m.suggest_chains, again->suggest_chains);
}

// A fuzz finding (tests/fuzz/corpus/pack_manifest/finding-description-
// leading-newline): toml++ wrote "\nline" as a multi-line string, whose
// first line break TOML drops, so the built manifest read back as "line".
TEST(PackManifest, ADescriptionStartingWithALineBreakSurvivesTheRoundTrip) {
  auto m = parse_manifest(built(), "pack.toml", ManifestForm::built).value();
  for (const char* description : {"\nline", "\r\nline", "a\n\nb\n", "'''x'''", "\"\"\"\ny"}) {
    m.description = description;
    const std::string text = write_manifest(m);
    auto again = parse_manifest(text, "pack.toml", ManifestForm::built);
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(again->description, m.description) << text;
    EXPECT_EQ(write_manifest(*again), text);
  }
}

TEST(PackManifest, SourceFormTakesAnObjectListAndNoAbi) {
  auto m = parse_manifest("[pack]\nname = \"a\"\nversion = \"1\"\nvendor = \"v\"\nobjects = [\"liba.so\"]\n",
                          "pack.toml", ManifestForm::source);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(std::vector<std::string>{"liba.so"}, m->objects.value());
}

struct Refusal {
  std::string text;
  std::string want;  // the whole message or a distinctive part
  ManifestForm form = ManifestForm::built;
};

TEST(PackManifest, EveryRefusalNamesFileLineAndKey) {
  const std::string ok = built();
  auto swap = [&](std::string_view from, std::string_view to) {
    std::string s = ok;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  const std::vector<Refusal> cases = {
      {"[pack\n", "pack.toml:1:"},
      {"name = \"x\"\n", "pack.toml:1:1: name: unknown key"},
      {"[object]\nfile = \"a.so\"\n", "pack.toml:1:1: pack: missing [pack] table"},
      {swap("name = \"acme-tools\"", "name = \"Acme\""), "pack.toml:2:8: pack.name: want [a-z0-9][a-z0-9._-]{0,63}"},
      {swap("name = \"acme-tools\"", "name = \"-acme\""), "pack.name: want"},
      {swap("name = \"acme-tools\"", "name = 5"), "pack.toml:2:8: pack.name: want a string"},
      {swap("version = \"1.2.0\"", "version = \"1.2 beta\""), "pack.toml:3:11: pack.version: cannot contain spaces"},
      {swap("vendor = \"Acme Corp\"\n", ""), "pack.vendor: missing"},
      {swap("vendor = \"Acme Corp\"", "vendor = \"\""), "pack.toml:4:10: pack.vendor: cannot be empty"},
      {swap("abi = \"1.4\"\n\n", "\n"), "pack.abi: missing"},
      {swap("abi = \"1.4\"\n\n", "abi = \"1\"\n\n"), "pack.toml:5:7: pack.abi: want MAJOR.MINOR"},
      {swap("vendor = \"Acme Corp\"", "vendor = \"Acme Corp\"\nobjects = [\"a.so\"]"),
       "pack.toml:5:11: pack.objects: belongs to a source manifest"},
      {swap("vendor = \"Acme Corp\"", "vendor = \"Acme Corp\"\nhomepage = \"x\""), "pack.toml:5:1: pack.homepage: unknown key"},
      {swap("file = \"libacme.so\"", "file = \"../libacme.so\""), "pack.toml:8:8: object[0].file: '../libacme.so' is not a plain file name"},
      {swap("file = \"libacme.so\"", "file = \"/lib/libacme.so\""), "object[0].file: '/lib/libacme.so' is not a plain"},
      {swap("file = \"libacme.so\"", "file = \"..\""), "object[0].file: '..' is not a plain file name"},
      {swap("file = \"libacme.so\"", "file = \"libacme.dll\""), "object[0].file: 'libacme.dll' does not end in .so"},
      {swap(kDigest, "D25DEA4F5EA0F2C3D050FDADD3A241DEC93312A2FDBA86547DF24F0B68CF8558"),
       "pack.toml:9:10: object[0].sha256: want 64 lowercase hex digits"},
      {swap(kDigest, "d25dea"), "object[0].sha256: want 64 lowercase hex digits"},
      {swap("size = 12345", "size = -1"), "pack.toml:10:8: object[0].size: want a non-negative integer"},
      {swap("size = 12345", "size = \"12345\""), "object[0].size: want a non-negative integer"},
      {swap("tools = [\"acme.lookup\"]", "tools = [1]"), "pack.toml:12:10: object[0].tools[0]: want a string"},
      {swap("sanitizers = []\n", ""), "object[0].sanitizers: missing"},
      {swap("sanitizers = []", "sanitizers = []\nlicense = \"MIT\""), "pack.toml:14:1: object[0].license: unknown key"},
      {ok + "\n[[object]]\nfile = \"libacme.so\"\nsha256 = \"" + std::string(kDigest) +
           "\"\nsize = 1\nabi = \"1.4\"\ntools = []\nsanitizers = []\n",
       "object[1].file: 'libacme.so' listed twice"},
      {swap("\"acme.lookup\" = [\"https://api.acme.test\"]", "\"acme.lookup\" = \"https://api.acme.test\""),
       "suggest.egress.\"acme.lookup\": want an array of strings"},
      {swap("steps = [\"airlock.strip_control\"]", "steps = [\"\"]"), "suggest.chains.strict.steps[0]: want a non-empty"},
      {swap("[suggest.chains.strict]", "[suggest.other]"), "suggest.other: unknown key"},
      {"[pack]\nname = \"a\"\nversion = \"1\"\nvendor = \"v\"\nabi = \"1.0\"\n", "object: no [[object]] entries"},
      {"[pack]\nname = \"a\"\nversion = \"1\"\nvendor = \"v\"\nobjects = [\"a.so\", \"a.so\"]\n",
       "pack.toml:5:20: pack.objects[1]: listed twice", ManifestForm::source},
      {"[pack]\nname = \"a\"\nversion = \"1\"\nvendor = \"v\"\nobjects = [\"sub/a.so\"]\n",
       "pack.objects[0]: 'sub/a.so' is not a plain file name", ManifestForm::source},
  };
  for (const Refusal& c : cases) EXPECT_THAT(error_of(c.text, c.form), HasSubstr(c.want)) << c.text;
}

// A fuzz finding (tests/fuzz/corpus/pack_manifest): names took any one-line
// text, a terminal escape or a quote included, which then reached messages,
// logs and config bindings as a tool or chain name.
TEST(PackManifest, RefusesNamesOutsideTheNameCharacters) {
  const std::string ok = built();
  auto swap = [&](std::string_view from, std::string_view to) {
    std::string s = ok;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  const std::vector<Refusal> cases = {
      {swap("tools = [\"acme.lookup\"]", "tools = [\"acme\\u001b[31m\"]"), "object[0].tools[0]: want a non-empty one-line string"},
      {swap("tools = [\"acme.lookup\"]", "tools = [\"acme lookup\"]"), "pack.toml:12:10: object[0].tools[0]: want"},
      {swap("sanitizers = []", "sanitizers = [\"a\\\"b\"]"), "object[0].sanitizers[0]: want 1 to 64 of"},
      {swap("tools = [\"acme.lookup\"]", "tools = [\"" + std::string(65, 'a') + "\"]"), "object[0].tools[0]: want"},
      {swap("\"acme.lookup\" = [", "\"acme/lookup\" = ["), "suggest.egress: tool name: want 1 to 64 of"},
      {swap("[suggest.chains.strict]", "[suggest.chains.\"st rict\"]"), "suggest.chains: chain name: want"},
      {swap("steps = [\"airlock.strip_control\"]", "steps = [\"x\\u00e9\"]"), "suggest.chains.strict.steps[0]: want"},
  };
  for (const Refusal& c : cases) EXPECT_THAT(error_of(c.text, c.form), HasSubstr(c.want)) << c.text;
  // Globs and the usual name characters pass.
  EXPECT_EQ(error_of(swap("\"acme.lookup\" = [", "\"acme.*-v?_2\" = [")), "(parsed)");
}

TEST(PackManifest, AbiStrings) {
  EXPECT_EQ("1.4", abi_string((1u << 16) | 4u));
  EXPECT_EQ((1u << 16) | 4u, parse_abi_string("1.4").value());
  EXPECT_FALSE(parse_abi_string("1."));
  EXPECT_FALSE(parse_abi_string(".4"));
  EXPECT_FALSE(parse_abi_string("1.4.0"));
  EXPECT_FALSE(parse_abi_string("70000.1"));
}

}  // namespace
}  // namespace airlock::host
