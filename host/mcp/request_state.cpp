#include "mcp/request_state.hpp"

#include "packs/sodium_init.hpp"
#include "util/base64.hpp"
#include "util/json_canonical.hpp"
#include "util/json_text.hpp"
#include "util/key_file.hpp"
#include "util/sha256.hpp"

#include <boost/json/parse.hpp>
#include <fmt/format.h>
#include <sodium.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace airlock::host {
namespace json = boost::json;

namespace {

constexpr std::string_view kTokenPrefix = "1.";
constexpr std::size_t kNonceBytes = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
constexpr std::size_t kTagBytes = crypto_aead_xchacha20poly1305_ietf_ABYTES;
static_assert(std::tuple_size_v<RequestStateSealer::Key> == crypto_aead_xchacha20poly1305_ietf_KEYBYTES);

std::int64_t unix_seconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

bool holds_nul(std::string_view s) { return s.find('\0') != std::string_view::npos; }

// The associated data: the token is only valid for this binding. Only
// `caller` may hold a NUL; the two fields after it cannot, so the text has
// one reading.
std::string associated_data(const StateBinding& b) {
  std::string ad("airlock-mrtr/1");
  ad.push_back('\0');
  ad += b.caller;
  ad.push_back('\0');
  ad += b.method;
  ad.push_back('\0');
  ad += b.params_digest;
  return ad;
}

const unsigned char* bytes_of(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

std::string to_base64url(const std::vector<unsigned char>& bytes) {
  constexpr int variant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;
  std::string out(sodium_base64_ENCODED_LEN(bytes.size(), variant), '\0');
  sodium_bin2base64(out.data(), out.size(), bytes.data(), bytes.size(), variant);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

std::optional<std::vector<unsigned char>> from_base64(std::string_view text, int variant) {
  std::vector<unsigned char> bytes(text.size() / 4 * 3 + 3);
  std::size_t length = 0;
  // A null end pointer makes anything but a complete, valid text an error.
  if (sodium_base642bin(bytes.data(), bytes.size(), text.data(), text.size(), nullptr, &length, nullptr, variant) != 0)
    return std::nullopt;
  bytes.resize(length);
  return bytes;
}

// The plaintext's members, each of the shape seal() writes; anything else
// means the token was not ours (it authenticated, so that is a key shared
// with something that is not airlock, or a bug): refused all the same.
std::optional<RoundState> parse_state(std::string_view text, std::int64_t now) {
  boost::system::error_code ec;
  // As deep as a JSON-RPC message may be: an answer kept here sat at the
  // same depth in the retry that brought it.
  json::parse_options options;
  options.max_depth = 128;
  json::value value = json::parse(text, ec, {}, options);
  if (ec || !value.is_object()) return std::nullopt;
  auto& root = value.get_object();
  const auto* exp = root.if_contains("exp");
  const auto* pending = root.if_contains("pending");
  const auto* answers = root.if_contains("answers");
  if (!exp || !exp->is_int64() || !pending || !pending->is_object() || !answers || !answers->is_object())
    return std::nullopt;
  if (now > exp->get_int64()) return std::nullopt;
  for (const auto& entry : pending->get_object())
    if (!entry.value().is_string()) return std::nullopt;
  for (const auto& entry : answers->get_object()) {
    const auto* answer = entry.value().if_object();
    if (!answer) return std::nullopt;
    const auto* method = answer->if_contains("method");
    const auto* result = answer->if_contains("result");
    if (!method || !method->is_string() || !result || !result->is_object()) return std::nullopt;
  }
  RoundState state;
  state.pending = std::move(root["pending"].get_object());
  state.answers = std::move(root["answers"].get_object());
  return state;
}

// The params that change from one attempt of a request to its retries.
constexpr std::array<std::string_view, 3> kUndigested = {"_meta", "inputResponses", "requestState"};

}  // namespace

std::string params_digest(const json::object& params) {
  json::object bound = params;
  for (std::string_view key : kUndigested) bound.erase(key);
  return sha256_hex(sha256(canonical_json(bound)));
}

bool tool_call_digest_applies(const json::object& params) {
  const auto* arguments = params.if_contains("arguments");
  if (!arguments || !arguments->is_object()) return false;
  for (const auto& member : params) {
    const std::string_view key = member.key();
    const bool undigested = std::find(kUndigested.begin(), kUndigested.end(), key) != kUndigested.end();
    if (key != "name" && key != "arguments" && !undigested) return false;
  }
  return true;
}

std::string tool_call_digest(std::string_view name, const json::value& arguments) {
  return params_digest(json::object{{"name", name}, {"arguments", arguments}});
}

RequestStateSealer::RequestStateSealer(const Key& key, std::chrono::seconds ttl) : key_(key), ttl_(ttl) {
  ensure_sodium();
}

RequestStateSealer::~RequestStateSealer() { sodium_memzero(key_.data(), key_.size()); }

RequestStateSealer RequestStateSealer::generated(std::chrono::seconds ttl) {
  ensure_sodium();
  Key key;
  crypto_aead_xchacha20poly1305_ietf_keygen(key.data());
  RequestStateSealer sealer(key, ttl);
  sodium_memzero(key.data(), key.size());
  return sealer;
}

Result<RequestStateSealer> RequestStateSealer::from_file(const std::filesystem::path& path, std::chrono::seconds ttl) {
  ensure_sodium();
  auto key = read_key_file(path, "the request state key");
  if (!key) return key.error();
  RequestStateSealer sealer(*key, ttl);
  sodium_memzero(key->data(), key->size());
  return sealer;
}

std::string RequestStateSealer::seal(const RoundState& state, const StateBinding& binding,
                                     std::chrono::system_clock::time_point now) const {
  if (holds_nul(binding.method) || holds_nul(binding.params_digest))
    throw std::invalid_argument("request state binding: method and params digest cannot hold a NUL");
  json::object plain;
  plain["exp"] = unix_seconds(now) + ttl_.count();
  plain["pending"] = state.pending;
  plain["answers"] = state.answers;
  std::string text = to_json(plain);
  const std::string ad = associated_data(binding);

  std::vector<unsigned char> sealed(kNonceBytes + text.size() + kTagBytes);
  randombytes_buf(sealed.data(), kNonceBytes);
  unsigned long long cipher_length = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(sealed.data() + kNonceBytes, &cipher_length, bytes_of(text), text.size(),
                                             bytes_of(ad), ad.size(), nullptr, sealed.data(), key_.data());
  sodium_memzero(text.data(), text.size());  // it holds the client's answers
  sealed.resize(kNonceBytes + static_cast<std::size_t>(cipher_length));
  return std::string(kTokenPrefix) + to_base64url(sealed);
}

std::optional<RoundState> RequestStateSealer::open(std::string_view token, const StateBinding& binding,
                                                   std::chrono::system_clock::time_point now) const {
  if (!token.starts_with(kTokenPrefix)) return std::nullopt;
  if (holds_nul(binding.method) || holds_nul(binding.params_digest)) return std::nullopt;
  const auto sealed = from_base64(token.substr(kTokenPrefix.size()), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  if (!sealed || sealed->size() < kNonceBytes + kTagBytes) return std::nullopt;

  const std::string ad = associated_data(binding);
  std::string text(sealed->size() - kNonceBytes - kTagBytes, '\0');
  unsigned long long text_length = 0;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(reinterpret_cast<unsigned char*>(text.data()), &text_length, nullptr,
                                                 sealed->data() + kNonceBytes, sealed->size() - kNonceBytes,
                                                 bytes_of(ad), ad.size(), sealed->data(), key_.data()) != 0)
    return std::nullopt;
  text.resize(static_cast<std::size_t>(text_length));
  auto state = parse_state(text, unix_seconds(now));
  sodium_memzero(text.data(), text.size());
  return state;
}

}  // namespace airlock::host
