// The sealed requestState of MCP 2026-07-28 multi round-trip requests. A tool
// that asks the client for input runs again from the start on every retry,
// and each retry may reach another replica, so everything one attempt learned
// (the answers so far, the questions still open) travels to the next inside
// the token the client echoes. The token is encrypted and authenticated
// (XChaCha20-Poly1305) and bound to the caller, the method and a digest of
// the request's params, so a client can neither read it, forge answers into
// it, replay it for another request or keep it past its lifetime.
#pragma once

#include "util/error.hpp"

#include <boost/json/object.hpp>

#include <array>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host {

// What one attempt carries to the next, inside the sealed requestState.
struct RoundState {
  boost::json::object answers;  // key -> {"method": "...", "result": <the client's result object>}
  boost::json::object pending;  // key -> method, the questions the last attempt asked
};

// What a requestState is bound to: who asked, which method, which params.
// `method` and `params_digest` must not hold a NUL (they never do: a method
// name and 64 hex digits); `caller` may hold anything.
struct StateBinding {
  std::string caller;
  std::string method;
  std::string params_digest;
};

// SHA-256 (64 lowercase hex digits) of the canonical JSON of `params` without
// "_meta", "inputResponses" and "requestState": what stays the same from one
// attempt of a request to its retries.
std::string params_digest(const boost::json::object& params);
// Whether a tools/call's `params` are its name and an arguments object and
// nothing else but the three params_digest leaves out: then
// tool_call_digest of the name and arguments is their params_digest.
bool tool_call_digest_applies(const boost::json::object& params);
std::string tool_call_digest(std::string_view name, const boost::json::value& arguments);

// Seals and opens requestState tokens with one 32-byte key. Replicas that
// share the key serve each other's retries. Thread-safe: seal and open touch
// nothing but their arguments and the (constant) key.
class RequestStateSealer {
 public:
  using Key = std::array<unsigned char, 32>;

  RequestStateSealer(const Key& key, std::chrono::seconds ttl);
  RequestStateSealer(const RequestStateSealer&) = default;
  RequestStateSealer& operator=(const RequestStateSealer&) = default;
  ~RequestStateSealer();  // zeroes the key

  // A fresh random key: tokens only this process can open.
  static RequestStateSealer generated(std::chrono::seconds ttl);
  // Reads a key file: exactly 32 raw bytes, or the standard base64 of 32
  // bytes (surrounding whitespace ignored). The error names the file.
  static Result<RequestStateSealer> from_file(const std::filesystem::path& path, std::chrono::seconds ttl);

  std::chrono::seconds ttl() const noexcept { return ttl_; }

  // "1." + base64url without padding of (24-byte nonce || ciphertext of the
  // JSON {exp, pending, answers}), expiring `ttl` after `now`.
  std::string seal(const RoundState& state, const StateBinding& binding,
                   std::chrono::system_clock::time_point now) const;

  // The state, or nullopt for anything wrong with the token: malformed,
  // tampered, sealed with another key or for another binding, or expired.
  // The causes are not told apart on purpose: the client gets one message.
  std::optional<RoundState> open(std::string_view token, const StateBinding& binding,
                                 std::chrono::system_clock::time_point now) const;

 private:
  Key key_;
  std::chrono::seconds ttl_;
};

}  // namespace airlock::host
