// The sealed requestState of MRTR: what one attempt hands the next must come
// back unchanged to the same caller, method and params, and to nobody else;
// any change to the token, another binding, another key or an expired token
// is refused.
#include "mcp/request_state.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>
#include <sodium.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using std::chrono::seconds;

const std::chrono::system_clock::time_point kNow{seconds(1'800'000'000)};
constexpr seconds kTtl{600};

RequestStateSealer::Key key_of(unsigned char fill) {
  RequestStateSealer::Key key;
  key.fill(fill);
  return key;
}

RoundState sample_state() {
  RoundState state;
  state.answers["step1"] = json::parse(
      R"({"method":"elicitation/create","result":{"action":"accept","content":{"name":"AdaLovelace"}}})");
  state.pending["step2"] = "elicitation/create";
  return state;
}

StateBinding sample_binding() {
  return {"alice", "tools/call", params_digest(json::parse(R"({"name":"greet","arguments":{"x":1}})").as_object())};
}

std::vector<unsigned char> decode_url(std::string_view text) {
  std::vector<unsigned char> out(text.size());
  std::size_t length = 0;
  if (sodium_base642bin(out.data(), out.size(), text.data(), text.size(), nullptr, &length, nullptr,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0)
    throw std::runtime_error("test token is not base64url");
  out.resize(length);
  return out;
}

std::string encode_url(const std::vector<unsigned char>& bytes) {
  std::string out(sodium_base64_ENCODED_LEN(bytes.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING), '\0');
  sodium_bin2base64(out.data(), out.size(), bytes.data(), bytes.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  out.resize(out.size() - 1);
  return out;
}

class RequestState : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_GE(sodium_init(), 0); }

  RequestStateSealer sealer{key_of(7), kTtl};
  StateBinding binding = sample_binding();
  std::string token = sealer.seal(sample_state(), binding, kNow);
};

TEST_F(RequestState, OpensToWhatWasSealed) {
  const auto opened = sealer.open(token, binding, kNow);
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->answers, sample_state().answers);
  EXPECT_EQ(opened->pending, sample_state().pending);
}

TEST_F(RequestState, TokenIsVersionedBase64UrlWithoutPadding) {
  ASSERT_TRUE(token.starts_with("1."));
  for (char c : token.substr(2))
    EXPECT_TRUE((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
        << "character '" << c << "' in " << token;
}

TEST_F(RequestState, HidesTheAnswersFromTheClient) {
  // Markers long enough that random ciphertext cannot hold them by chance
  // (a three-letter name turned up in about one token in a thousand).
  EXPECT_EQ(token.find("AdaLovelace"), std::string::npos);
  const auto bytes = decode_url(std::string_view(token).substr(2));
  const std::string raw(bytes.begin(), bytes.end());
  EXPECT_EQ(raw.find("AdaLovelace"), std::string::npos);
  EXPECT_EQ(raw.find("elicitation/create"), std::string::npos);
}

TEST_F(RequestState, EachSealIsFresh) {
  // A random nonce per token: equal states give unrelated tokens.
  EXPECT_NE(token, sealer.seal(sample_state(), binding, kNow));
}

TEST_F(RequestState, AnotherSealerWithTheSameKeyOpensIt) {
  const RequestStateSealer replica(key_of(7), kTtl);
  EXPECT_TRUE(replica.open(token, binding, kNow));
}

TEST_F(RequestState, EmptyStateRoundTrips) {
  const auto empty = sealer.seal(RoundState{}, binding, kNow);
  const auto opened = sealer.open(empty, binding, kNow);
  ASSERT_TRUE(opened);
  EXPECT_TRUE(opened->answers.empty());
  EXPECT_TRUE(opened->pending.empty());
}

TEST_F(RequestState, ChangingAnyCharacterOfTheTokenFails) {
  for (std::size_t i = 0; i < token.size(); ++i) {
    for (char replacement : {'A', 'B', 'g', '0', '-', '_', '.'}) {
      if (token[i] == replacement) continue;
      std::string changed = token;
      changed[i] = replacement;
      EXPECT_FALSE(sealer.open(changed, binding, kNow)) << "character " << i << " -> " << replacement;
    }
  }
}

TEST_F(RequestState, FlippingAnyBitOfTheSealedBytesFails) {
  const auto bytes = decode_url(std::string_view(token).substr(2));
  ASSERT_GT(bytes.size(), 24u + 16u);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned bit = 0; bit < 8; ++bit) {
      auto changed = bytes;
      changed[i] = static_cast<unsigned char>(changed[i] ^ (1u << bit));
      EXPECT_FALSE(sealer.open("1." + encode_url(changed), binding, kNow)) << "byte " << i << " bit " << bit;
    }
  }
  // The unchanged bytes, written again, still open: the loop tested the flips.
  EXPECT_TRUE(sealer.open("1." + encode_url(bytes), binding, kNow));
}

TEST_F(RequestState, CuttingOrExtendingTheTokenFails) {
  for (std::size_t length = 0; length < token.size(); ++length)
    EXPECT_FALSE(sealer.open(token.substr(0, length), binding, kNow)) << "first " << length << " characters";
  EXPECT_FALSE(sealer.open(token + "A", binding, kNow));
  EXPECT_FALSE(sealer.open(token + "-TAMPERED", binding, kNow));
  EXPECT_FALSE(sealer.open(token + "=", binding, kNow));
  EXPECT_FALSE(sealer.open(token + "\n", binding, kNow));
  EXPECT_FALSE(sealer.open(" " + token, binding, kNow));
}

TEST_F(RequestState, AnotherCallerFails) {
  auto other = binding;
  other.caller = "mallory";
  EXPECT_FALSE(sealer.open(token, other, kNow));
  other.caller = "";
  EXPECT_FALSE(sealer.open(token, other, kNow));
}

TEST_F(RequestState, CallerFieldsCannotBeShiftedIntoEachOther) {
  // "a\0b" as the caller must not read as caller "a" with more after it.
  const StateBinding with_nul{std::string("alice\0tools/call", 16), "tools/call", binding.params_digest};
  const auto sealed = sealer.seal(sample_state(), with_nul, kNow);
  EXPECT_TRUE(sealer.open(sealed, with_nul, kNow));
  EXPECT_FALSE(sealer.open(sealed, binding, kNow));
}

TEST_F(RequestState, AnotherMethodFails) {
  auto other = binding;
  other.method = "prompts/get";
  EXPECT_FALSE(sealer.open(token, other, kNow));
}

TEST_F(RequestState, AnotherParamsDigestFails) {
  auto other = binding;
  other.params_digest = params_digest(json::parse(R"({"name":"greet","arguments":{"x":2}})").as_object());
  EXPECT_FALSE(sealer.open(token, other, kNow));
}

TEST_F(RequestState, ExpiresAfterItsTtl) {
  EXPECT_TRUE(sealer.open(token, binding, kNow + kTtl));
  EXPECT_FALSE(sealer.open(token, binding, kNow + kTtl + seconds(1)));
  EXPECT_FALSE(sealer.open(token, binding, kNow + std::chrono::hours(24 * 365)));
}

TEST_F(RequestState, TtlIsTheSealersNotTheOpeners) {
  // The expiry travels inside the token: a replica with a longer ttl does
  // not stretch a token another replica sealed.
  const RequestStateSealer lenient(key_of(7), seconds(3600));
  EXPECT_FALSE(lenient.open(token, binding, kNow + kTtl + seconds(1)));
}

TEST_F(RequestState, AnotherKeyFails) {
  const RequestStateSealer other(key_of(8), kTtl);
  EXPECT_FALSE(other.open(token, binding, kNow));
  EXPECT_FALSE(RequestStateSealer::generated(kTtl).open(token, binding, kNow));
}

TEST_F(RequestState, GeneratedKeysDiffer) {
  const auto a = RequestStateSealer::generated(kTtl);
  const auto b = RequestStateSealer::generated(kTtl);
  const auto sealed = a.seal(sample_state(), binding, kNow);
  EXPECT_TRUE(a.open(sealed, binding, kNow));
  EXPECT_FALSE(b.open(sealed, binding, kNow));
}

TEST_F(RequestState, GarbageFails) {
  for (std::string_view bad : {"", "1.", "1", "2.", ".", "garbage", "1.!!!!", "1.====", "1.AAAA", "1. ",
                               "1.\xff\xfe", "null", "{}"})
    EXPECT_FALSE(sealer.open(bad, binding, kNow)) << bad;
  // Well-formed base64url of bytes too short to hold a nonce and a tag.
  EXPECT_FALSE(sealer.open("1." + encode_url(std::vector<unsigned char>(39, 1)), binding, kNow));
  EXPECT_FALSE(sealer.open("1." + encode_url(std::vector<unsigned char>(40, 1)), binding, kNow));
  // The right bytes under another version prefix.
  EXPECT_FALSE(sealer.open("2." + token.substr(2), binding, kNow));
}

TEST_F(RequestState, AuthenticPlaintextOfAnotherShapeFails) {
  // Sealed by hand with the same key and associated data: the AEAD passes,
  // the content is not a state, and open still refuses it.
  const auto key = key_of(7);
  std::string ad("airlock-mrtr/1");
  ad.push_back('\0');
  ad += binding.caller;
  ad.push_back('\0');
  ad += binding.method;
  ad.push_back('\0');
  ad += binding.params_digest;
  const auto seal_text = [&](std::string_view text) {
    std::vector<unsigned char> out(24 + text.size() + 16);
    randombytes_buf(out.data(), 24);
    unsigned long long length = 0;
    crypto_aead_xchacha20poly1305_ietf_encrypt(out.data() + 24, &length,
                                               reinterpret_cast<const unsigned char*>(text.data()), text.size(),
                                               reinterpret_cast<const unsigned char*>(ad.data()), ad.size(), nullptr,
                                               out.data(), key.data());
    return "1." + encode_url(out);
  };
  // The hand-made sealing is right: a well-formed plaintext opens.
  ASSERT_TRUE(sealer.open(seal_text(R"({"exp":1800000600,"pending":{},"answers":{}})"), binding, kNow));
  for (std::string_view bad : {R"(not json)", R"([])", R"({"pending":{},"answers":{}})",
                               R"({"exp":"1800000600","pending":{},"answers":{}})",
                               R"({"exp":1800000600,"pending":{"a":1},"answers":{}})",
                               R"({"exp":1800000600,"pending":{},"answers":{"a":{"method":"roots/list"}}})",
                               R"({"exp":1800000600,"pending":{},"answers":{"a":{"method":1,"result":{}}}})",
                               R"({"exp":1800000600,"pending":{},"answers":{"a":{"method":"roots/list","result":[]}}})",
                               R"({"exp":1800000600,"pending":[],"answers":{}})"})
    EXPECT_FALSE(sealer.open(seal_text(bad), binding, kNow)) << bad;
}

TEST_F(RequestState, SealRefusesANulInMethodOrDigest) {
  auto bad = binding;
  bad.method = std::string("tools/call\0x", 12);
  EXPECT_THROW(sealer.seal(sample_state(), bad, kNow), std::invalid_argument);
  EXPECT_FALSE(sealer.open(token, bad, kNow));
}

// --- params_digest

json::object params(std::string_view text) { return json::parse(text).as_object(); }

TEST(ParamsDigest, IsSha256Hex) {
  const auto digest = params_digest(params(R"({"name":"t","arguments":{}})"));
  ASSERT_EQ(digest.size(), 64u);
  for (char c : digest) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << digest;
}

TEST(ParamsDigest, IgnoresMetaInputResponsesAndRequestState) {
  const auto base = params_digest(params(R"({"name":"t","arguments":{"a":1}})"));
  for (std::string_view retry : {
           R"({"name":"t","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}})",
           R"({"name":"t","arguments":{"a":1},"inputResponses":{"k":{"action":"cancel"}}})",
           R"({"name":"t","arguments":{"a":1},"requestState":"1.abc"})",
           R"({"requestState":"x","arguments":{"a":1},"_meta":{},"name":"t","inputResponses":{}})"})
    EXPECT_EQ(base, params_digest(params(retry))) << retry;
}

TEST(ParamsDigest, DependsOnNameAndArguments) {
  const auto base = params_digest(params(R"({"name":"t","arguments":{"a":1}})"));
  EXPECT_NE(base, params_digest(params(R"({"name":"t","arguments":{"a":2}})")));
  EXPECT_NE(base, params_digest(params(R"({"name":"t","arguments":{"a":"1"}})")));
  EXPECT_NE(base, params_digest(params(R"({"name":"t","arguments":{"a":1,"b":null}})")));
  EXPECT_NE(base, params_digest(params(R"({"name":"u","arguments":{"a":1}})")));
  EXPECT_NE(base, params_digest(params(R"({"name":"t"})")));
  EXPECT_NE(base, params_digest(params(R"({"name":"t","arguments":{"a":1},"cursor":"x"})")));
}

TEST(ParamsDigest, IgnoresMemberOrder) {
  EXPECT_EQ(params_digest(params(R"({"name":"t","arguments":{"a":1,"b":{"c":[1,2],"d":true}}})")),
            params_digest(params(R"({"arguments":{"b":{"d":true,"c":[1,2]},"a":1},"name":"t"})")));
}

// A tools/call's digest is made from its name and arguments when its tool
// asks, long after its params are gone; the retry's is made from the
// retry's params. The two must agree, or no requestState would open.
TEST(ParamsDigest, AToolCallsDigestFromItsPartsIsItsParamsDigest) {
  const auto arguments = json::parse(R"({"b":{"d":true,"c":[1,"\u00e9"]},"a":1.5})");
  EXPECT_EQ(params_digest(params(R"({"arguments":{"a":1.5,"b":{"c":[1,"\u00e9"],"d":true}},"name":"t",)"
                                 R"("_meta":{"k":1},"inputResponses":{},"requestState":"1.x"})")),
            tool_call_digest("t", arguments));
  EXPECT_NE(params_digest(params(R"({"name":"t","arguments":{"a":1.5,"b":{"c":[1,"\u00e9"],"d":true}},"task":{}})")),
            tool_call_digest("t", arguments));
  EXPECT_NE(tool_call_digest("u", arguments), tool_call_digest("t", arguments));

  // When the digest may be made from the parts, and when the params hold
  // more than the parts say.
  EXPECT_TRUE(tool_call_digest_applies(params(R"({"name":"t","arguments":{},"_meta":{},"requestState":"1.x"})")));
  EXPECT_TRUE(tool_call_digest_applies(params(R"({"name":"t","arguments":{},"inputResponses":{}})")));
  EXPECT_FALSE(tool_call_digest_applies(params(R"({"name":"t"})")));
  EXPECT_FALSE(tool_call_digest_applies(params(R"({"name":"t","arguments":null})")));
  EXPECT_FALSE(tool_call_digest_applies(params(R"({"name":"t","arguments":{},"task":{}})")));
}

// --- key files

class KeyFile : public ::testing::Test {
 protected:
  KeyFile()
      : dir_(fs::temp_directory_path() /
             ("airlock-unit-request-state-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~KeyFile() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path write(std::string_view name, std::string_view content) const {
    const auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }

  // Whether `sealer` opens what a sealer with key_of(fill) sealed.
  static bool same_key(const RequestStateSealer& sealer, unsigned char fill) {
    const auto binding = sample_binding();
    const auto sealed = RequestStateSealer(key_of(fill), kTtl).seal(sample_state(), binding, kNow);
    return sealer.open(sealed, binding, kNow).has_value();
  }

  fs::path dir_;
};

TEST_F(KeyFile, ReadsThirtyTwoRawBytes) {
  const auto key = key_of(0x41);
  const auto sealer = RequestStateSealer::from_file(write("raw.key", std::string(key.begin(), key.end())), kTtl);
  ASSERT_TRUE(sealer) << sealer.error().message;
  EXPECT_TRUE(same_key(*sealer, 0x41));
  EXPECT_FALSE(same_key(*sealer, 0x42));
  EXPECT_EQ(sealer->ttl(), kTtl);
}

TEST_F(KeyFile, RawBytesMayBeAnything) {
  // Whitespace and NUL bytes are key bytes when the file is 32 bytes long.
  RequestStateSealer::Key key;
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<unsigned char>(i % 2 ? '\n' : '\0');
  const auto sealer = RequestStateSealer::from_file(write("raw.key", std::string(key.begin(), key.end())), kTtl);
  ASSERT_TRUE(sealer) << sealer.error().message;
  const auto sealed = RequestStateSealer(key, kTtl).seal(sample_state(), sample_binding(), kNow);
  EXPECT_TRUE(sealer->open(sealed, sample_binding(), kNow));
}

TEST_F(KeyFile, ReadsBase64OfThirtyTwoBytes) {
  // 32 bytes of 0x41 ('A'), as `head -c32 /dev/urandom | base64` would write any key.
  const std::string encoded = "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=";
  for (const std::string& content : {encoded, encoded + "\n", "  " + encoded + "\r\n\n", "\t" + encoded}) {
    const auto sealer = RequestStateSealer::from_file(write("b64.key", content), kTtl);
    ASSERT_TRUE(sealer) << sealer.error().message;
    EXPECT_TRUE(same_key(*sealer, 0x41));
  }
}

TEST_F(KeyFile, RefusesOtherLengthsNamingTheFile) {
  for (std::size_t length : {0u, 1u, 16u, 31u, 33u, 64u, 5000u}) {
    const auto path = write("bad.key", std::string(length, '\x01'));
    const auto sealer = RequestStateSealer::from_file(path, kTtl);
    ASSERT_FALSE(sealer) << length << " bytes";
    EXPECT_NE(sealer.error().message.find(path.string()), std::string::npos) << sealer.error().message;
    EXPECT_NE(sealer.error().message.find("32"), std::string::npos) << sealer.error().message;
  }
}

TEST_F(KeyFile, RefusesBase64OfAnotherLength) {
  // Base64 of 31 and of 33 bytes.
  for (std::string_view content : {"QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQQ==\n",
                                   "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB\n"}) {
    const auto path = write("short.key", content);
    const auto sealer = RequestStateSealer::from_file(path, kTtl);
    ASSERT_FALSE(sealer) << content;
    EXPECT_NE(sealer.error().message.find(path.string()), std::string::npos) << sealer.error().message;
    EXPECT_NE(sealer.error().message.find("base64 of 3"), std::string::npos) << sealer.error().message;
  }
}

TEST_F(KeyFile, RefusesBase64WithBadCharacters) {
  const auto path = write("bad.key", "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU!=\n");
  const auto sealer = RequestStateSealer::from_file(path, kTtl);
  ASSERT_FALSE(sealer);
  EXPECT_NE(sealer.error().message.find(path.string()), std::string::npos) << sealer.error().message;
}

TEST_F(KeyFile, MissingFileIsNamed) {
  const auto path = dir_ / "absent.key";
  const auto sealer = RequestStateSealer::from_file(path, kTtl);
  ASSERT_FALSE(sealer);
  EXPECT_NE(sealer.error().message.find(path.string()), std::string::npos) << sealer.error().message;
  EXPECT_NE(sealer.error().message.find("No such file"), std::string::npos) << sealer.error().message;
}

TEST_F(KeyFile, DirectoryIsRefused) {
  const auto sealer = RequestStateSealer::from_file(dir_, kTtl);
  ASSERT_FALSE(sealer);
  EXPECT_NE(sealer.error().message.find(dir_.string()), std::string::npos) << sealer.error().message;
}

}  // namespace
}  // namespace airlock::host
