// request_state_fuzz — opening a 2026-07-28 requestState (host/mcp/
// request_state), the token a client echoes back. The first byte picks:
//   even: the rest is the token as the client sent it. Nothing the fuzzer
//         writes can be a genuine token (it holds no key), so open() must
//         refuse every one;
//   odd:  the rest is the plaintext inside a token, sealed here with the
//         sealer's key and binding the way seal() does (associated data
//         "airlock-mrtr/1\0caller\0method\0digest"), which reaches the JSON
//         reader behind the authentication. Whatever open() accepts must
//         seal again and open to the same state, as its JSON text carries
//         it: Boost.JSON 1.81 reads a long number into a double that does
//         not always survive being written and read again (it has no
//         precise mode), so a number may move by its last bit once.
#include "mcp/request_state.hpp"

#include <sodium.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace {

using airlock::host::RequestStateSealer;
using airlock::host::StateBinding;

constexpr RequestStateSealer::Key kKey = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                          17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

// `object` as it reads after one trip through its JSON text, read as
// request_state.cpp reads it; nullopt when the text does not read back (a
// number that overflowed to infinity is written as text 1.81 refuses, and
// open() must then refuse the token).
std::optional<boost::json::object> through_text(const boost::json::object& object) {
  boost::json::parse_options options;
  options.max_depth = 128;
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(boost::json::serialize(object), ec, {}, options);
  if (ec || !value.is_object()) return std::nullopt;
  return std::move(value.as_object());
}

const StateBinding& binding() {
  static const StateBinding b{"caller-1", "tools/call", std::string(64, 'a')};
  return b;
}

std::string sealed_token(std::string_view plaintext) {
  std::string ad("airlock-mrtr/1");
  ad.push_back('\0');
  ad += binding().caller;
  ad.push_back('\0');
  ad += binding().method;
  ad.push_back('\0');
  ad += binding().params_digest;
  std::vector<unsigned char> sealed(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES + plaintext.size() +
                                    crypto_aead_xchacha20poly1305_ietf_ABYTES);
  unsigned long long length = 0;
  // A fixed nonce: determinism matters more here than nonce reuse.
  crypto_aead_xchacha20poly1305_ietf_encrypt(
      sealed.data() + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, &length,
      reinterpret_cast<const unsigned char*>(plaintext.data()), plaintext.size(),
      reinterpret_cast<const unsigned char*>(ad.data()), ad.size(), nullptr, sealed.data(), kKey.data());
  std::string b64(sodium_base64_ENCODED_LEN(sealed.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING), '\0');
  sodium_bin2base64(b64.data(), b64.size(), sealed.data(), sealed.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  b64.resize(b64.size() - 1);
  return "1." + b64;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const RequestStateSealer sealer(kKey, std::chrono::seconds(600));
  // A fixed clock: the plaintext's exp is judged against it.
  const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000));
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] % 2 == 0) {
    if (sealer.open(rest, binding(), now)) std::abort();
    return 0;
  }
  const auto state = sealer.open(sealed_token(rest), binding(), now);
  if (!state) return 0;
  const std::string token = sealer.seal(*state, binding(), now);
  const auto again = sealer.open(token, binding(), now);
  const auto answers = through_text(state->answers);
  const auto pending = through_text(state->pending);
  if (!answers || !pending) {
    if (again) std::abort();
    return 0;
  }
  if (!again || again->answers != *answers || again->pending != *pending) std::abort();
  // Bound to its binding: another caller cannot open it.
  if (sealer.open(token, StateBinding{"caller-2", binding().method, binding().params_digest}, now)) std::abort();
  return 0;
}
