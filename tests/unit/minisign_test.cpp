// The minisign formats: files the real minisign 0.11 wrote (a throwaway test
// key pair) parse and verify, every kind of damage is refused with its
// reason, and what we sign the real tool accepts (when it is installed).
#include "packs/minisign.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace airlock::host::minisign {
namespace {

using testing::HasSubstr;

// minisign -G -W (unencrypted), then minisign -S -m m (prehashed) and
// minisign -S -l -m m (legacy, raw), where m is "hello\n".
constexpr std::string_view kPublicKey =
    "untrusted comment: minisign public key 21443C2E0CC15A30\n"
    "RWQwWsEMLjxEIdsJxKSrtRSU4UpcqMYHctT2NkNONMKOu4Np2ObLhGRQ\n";
constexpr std::string_view kPublicLine = "RWQwWsEMLjxEIdsJxKSrtRSU4UpcqMYHctT2NkNONMKOu4Np2ObLhGRQ";
constexpr std::string_view kSecretKey =
    "untrusted comment: minisign encrypted secret key\n"
    "RWQAAEIyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAMFrBDC48RCFVIQdvXERH4IJ9wV7XEqZJAAH7"
    "jEuPk0rGa4E8Dszw99sJxKSrtRSU4UpcqMYHctT2NkNONMKOu4Np2ObLhGRQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";
constexpr std::string_view kMessage = "hello\n";
constexpr std::string_view kPrehashed =
    "untrusted comment: signature from minisign secret key\n"
    "RUQwWsEMLjxEITXejnikJ/9qAKibPLdLCspre2AdkZAhiPhj36sbPNiLcJDUPahfJq+X5BaB1Ful4AP4ao22iUT5BFmwO9wA/gw=\n"
    "trusted comment: trusted hi\n"
    "fi6xb8STMuzZdAhG+myknrjpRYMYEFeXhxRhl7ugqcwHnP1j9dckC1AMePb3fAyAO1MWiRS+hJ8gRoWNjpYoCA==\n";
constexpr std::string_view kLegacy =
    "untrusted comment: signature from minisign secret key\n"
    "RWQwWsEMLjxEIXriiTD+lWD4kr0GmcNnJbAhFq8P7eZ0n5hnPyFTL0PF12cqUqV9GNGvC24Ud2+OjJ9QlWYqc1b2QXs+5ggxuAY=\n"
    "trusted comment: legacy\n"
    "1yVKdbT1Tvgnxb6AXznBq1ypEtywR517nuabTcKsIs8zQxnqyIF3svjylc0zHKZifFhUuCPvIMtlm5UIqJpTBw==\n";
// minisign -G with the password "pw" (scrypt), and its public key.
constexpr std::string_view kEncryptedSecretKey =
    "untrusted comment: minisign encrypted secret key\n"
    "RWRTY0IyHCRjid4Dqg7esUamDxuC3a7Ibjoid6LQDoqJV8vBdH4AAAACAAAAAAAAAEAAAAAAf4Cxbuy1QxT+MbrFVYVmx7WpqziWVm0bKuL9"
    "xktvU0iNXPklEauqPcX4pAKRCZRrTzMxuyPoyC7uUZ4zfHXSI1/QwaRiXynt+q3v0tNixroshtsnSk7Z/hYkqRNfgo7q4Ta546j3UJI=\n";
constexpr std::string_view kEncryptedPublicLine = "RWSxWoWqZjjQgXIws0gA64d8seXOus/d3BoKHe0EXBV0E/wliPn8TohK";

PublicKey public_key() { return parse_public_key(kPublicKey).value(); }

std::string replace_line(std::string_view text, std::size_t index, std::string_view line) {
  std::string out;
  std::size_t i = 0, start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    out += i == index ? std::string(line) : std::string(text.substr(start, end - start));
    out += '\n';
    start = end + 1;
    ++i;
  }
  return out;
}

TEST(MinisignKeys, PublicKeyFileAndBareLineGiveTheSameKey) {
  const PublicKey from_file = public_key();
  auto from_line = parse_public_key(kPublicLine);
  ASSERT_TRUE(from_line) << from_line.error().message;
  EXPECT_EQ(from_file.id, from_line->id);
  EXPECT_EQ(from_file.key, from_line->key);
  EXPECT_EQ("21443C2E0CC15A30", key_id_text(from_file.id));  // as minisign shows it
}

TEST(MinisignKeys, KeyIdsAreSpelledAsMinisignSpellsThemWithoutLeadingZeros) {
  // minisign writes PRIX64: an id whose top nibble is 0 has 15 digits, and a
  // padded spelling would not match the comment line of the vendor's .pub.
  const KeyId id{0x51, 0x08, 0xCB, 0x8C, 0x2C, 0x34, 0x40, 0x01};
  EXPECT_EQ("140342C8CCB0851", key_id_text(id));
}

TEST(MinisignKeys, MalformedPublicKeysAreRefusedWithTheReason) {
  EXPECT_THAT(parse_public_key("RWQ!!!!").error().message, HasSubstr("not valid base64"));
  EXPECT_THAT(parse_public_key("RWQwWsEMLjxEIdsJxKSrtRSU").error().message, HasSubstr("18 bytes, want 42"));
  // The same 42 bytes with another algorithm tag ("Xd").
  EXPECT_THAT(parse_public_key("WGQwWsEMLjxEIdsJxKSrtRSU4UpcqMYHctT2NkNONMKOu4Np2ObLhGRQ").error().message,
              HasSubstr("not an Ed25519"));
  EXPECT_THAT(parse_public_key("untrusted comment: x\n").error().message, HasSubstr("no key line"));
  EXPECT_FALSE(parse_public_key("one\ntwo\nthree\n"));
}

TEST(MinisignVerify, SignaturesMadeByMinisignVerify) {
  for (std::string_view file : {kPrehashed, kLegacy}) {
    auto sig = parse_signature(file);
    ASSERT_TRUE(sig) << sig.error().message;
    auto ok = verify(public_key(), *sig, kMessage);
    EXPECT_TRUE(ok) << ok.error().message;
  }
  EXPECT_TRUE(parse_signature(kPrehashed)->prehashed);
  EXPECT_FALSE(parse_signature(kLegacy)->prehashed);
  EXPECT_EQ("trusted hi", parse_signature(kPrehashed)->trusted_comment);
}

TEST(MinisignVerify, ATamperedMessageFails) {
  for (std::string_view file : {kPrehashed, kLegacy}) {
    auto result = verify(public_key(), parse_signature(file).value(), "hellO\n");
    ASSERT_FALSE(result);
    EXPECT_EQ("signature does not verify with key 21443C2E0CC15A30", result.error().message);
  }
}

TEST(MinisignVerify, ATamperedTrustedCommentFails) {
  auto sig = parse_signature(replace_line(kPrehashed, 2, "trusted comment: trusted HI")).value();
  auto result = verify(public_key(), sig, kMessage);
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message, HasSubstr("trusted comment signature does not verify"));
}

TEST(MinisignVerify, AnotherKeysSignatureNamesBothKeys) {
  auto other = parse_public_key(kEncryptedPublicLine).value();
  auto result = verify(other, parse_signature(kPrehashed).value(), kMessage);
  ASSERT_FALSE(result);
  EXPECT_EQ("signed by key 21443C2E0CC15A30, not by key 81D03866AA855AB1", result.error().message);
}

TEST(MinisignVerify, AForgedKeyIdStillNeedsTheRightKey) {
  // The other key, relabelled with this key's id: the id matches, the
  // signature does not.
  PublicKey forged = parse_public_key(kEncryptedPublicLine).value();
  forged.id = public_key().id;
  EXPECT_THAT(verify(forged, parse_signature(kPrehashed).value(), kMessage).error().message,
              HasSubstr("signature does not verify"));
}

TEST(MinisignParse, MalformedSignatureFilesAreRefused) {
  EXPECT_THAT(parse_signature("").error().message, HasSubstr("want 4 lines"));
  EXPECT_THAT(parse_signature(replace_line(kPrehashed, 0, "comment: x")).error().message,
              HasSubstr("untrusted comment"));
  EXPECT_THAT(parse_signature(replace_line(kPrehashed, 1, "RUQ%%%%")).error().message,
              HasSubstr("line 2 (signature): not valid base64"));
  EXPECT_THAT(parse_signature(replace_line(kPrehashed, 1, "RUQwWsEMLjxEITXe")).error().message,
              HasSubstr("line 2 (signature): 12 bytes, want 74"));
  EXPECT_THAT(parse_signature(replace_line(kPrehashed, 2, "comment: hi")).error().message,
              HasSubstr("trusted comment"));
  EXPECT_THAT(parse_signature(replace_line(kPrehashed, 3, "fi6xb8STMuzZdAhG")).error().message,
              HasSubstr("line 4 (global signature): 12 bytes, want 64"));
  std::string unknown_alg(kPrehashed);
  unknown_alg.replace(unknown_alg.find("RUQw"), 4, "RXQw");  // "E\x74": neither Ed nor ED
  EXPECT_THAT(parse_signature(unknown_alg).error().message, HasSubstr("unknown algorithm"));
  EXPECT_THAT(parse_signature(std::string(kPrehashed) + "junk\n").error().message, HasSubstr("unexpected text"));
}

TEST(MinisignSign, SignThenVerifyAndTamper) {
  auto secret = parse_secret_key(kSecretKey, std::nullopt);
  ASSERT_TRUE(secret) << secret.error().message;
  EXPECT_EQ("21443C2E0CC15A30", key_id_text(secret->id));
  const PublicKey pub = public_key_of(*secret);
  EXPECT_EQ(public_key().key, pub.key);
  EXPECT_EQ(std::string(kPublicKey), public_key_file(pub));
  const std::string file = sign(*secret, "pack bytes", "airlock pack x 1");
  auto sig = parse_signature(file);
  ASSERT_TRUE(sig) << sig.error().message;
  EXPECT_TRUE(sig->prehashed);
  EXPECT_TRUE(verify(pub, *sig, "pack bytes"));
  EXPECT_FALSE(verify(pub, *sig, "pack bytez"));
  EXPECT_EQ(file, sign(*secret, "pack bytes", "airlock pack x 1")) << "Ed25519 is deterministic";
}

TEST(MinisignSign, EncryptedKeysNeedTheirPassword) {
  EXPECT_THAT(parse_secret_key(kEncryptedSecretKey, std::nullopt).error().message,
              HasSubstr("AIRLOCK_PACK_PASSWORD"));
  EXPECT_THAT(parse_secret_key(kEncryptedSecretKey, "wrong").error().message, HasSubstr("wrong password"));
  auto secret = parse_secret_key(kEncryptedSecretKey, "pw");
  ASSERT_TRUE(secret) << secret.error().message;
  EXPECT_EQ(parse_public_key(kEncryptedPublicLine)->key, public_key_of(*secret).key);
}

TEST(MinisignSign, DamagedSecretKeysAreRefused) {
  EXPECT_THAT(parse_secret_key("RWQAAEIy\n", std::nullopt).error().message, HasSubstr("untrusted comment"));
  std::string flipped(kSecretKey);
  const std::size_t at = flipped.find("MFrBDC48");
  flipped[at + 20] = flipped[at + 20] == 'A' ? 'B' : 'A';  // inside the secret key bytes
  EXPECT_FALSE(parse_secret_key(flipped, std::nullopt));
}

// The real tool, when installed: our signature passes `minisign -V`.
TEST(MinisignSign, RealMinisignAcceptsOurSignature) {
  if (std::system("command -v minisign >/dev/null 2>&1") != 0) GTEST_SKIP() << "minisign is not installed";
  const auto dir = std::filesystem::temp_directory_path() / ("airlock-minisign-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto secret = parse_secret_key(kSecretKey, std::nullopt).value();
  std::ofstream(dir / "msg", std::ios::binary) << "signed by airlock\n";
  std::ofstream(dir / "msg.minisig", std::ios::binary) << sign(secret, "signed by airlock\n", "airlock test");
  std::ofstream(dir / "k.pub", std::ios::binary) << kPublicKey;
  const std::string cmd = "minisign -q -Vm " + (dir / "msg").string() + " -p " + (dir / "k.pub").string();
  const int ok = std::system(cmd.c_str());
  std::ofstream(dir / "msg", std::ios::binary) << "signed by airlock!\n";
  const int tampered = std::system((cmd + " 2>/dev/null").c_str());
  std::filesystem::remove_all(dir);
  EXPECT_EQ(0, ok);
  EXPECT_NE(0, tampered);
}

}  // namespace
}  // namespace airlock::host::minisign
