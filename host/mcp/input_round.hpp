// One attempt of a 2026-07-28 request that may ask the client for input
// (MRTR). Nothing blocks: a question already answered (in this retry's
// inputResponses, or carried from an earlier round in the requestState) is
// answered at once; any other is recorded, and when the hook returns the host
// answers the client with every recorded question (an InputRequiredResult)
// and seals next_state() into the requestState of that answer.
#pragma once

#include "mcp/request_state.hpp"

#include <airlock/airlock.h>
#include <boost/json/object.hpp>

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host {

// Thread-safe: a tool may ask from several threads.
class InputRound {
 public:
  // client_capabilities: this request's _meta clientCapabilities. carried:
  // the opened requestState (empty when the request had none).
  // input_responses: params.inputResponses (null when absent; the caller
  // already rejected a non-object). The answers are the carried ones plus
  // inputResponses' entries: only the keys the carried state lists as
  // pending when a state came, every key when none came.
  InputRound(boost::json::object client_capabilities, RoundState carried,
             const boost::json::object* input_responses);

  struct Reply {
    airlock_status status;
    std::string json;  // on OK: the answer's result object
  };

  // One question. `key` nullopt is the key-less call_client_request, named
  // "input-1", "input-2", ... by its position among this attempt's key-less
  // questions. UNSUPPORTED: a method a server may not ask, or a capability
  // this request did not declare (elicitation/create needs "elicitation",
  // and "elicitation.url" for params.mode "url"; sampling/createMessage
  // needs "sampling", and "sampling.tools" when params has "tools";
  // roots/list needs "roots"). INVALID_ARGUMENT: a bad key, params not a
  // JSON object, a key already asked with another method, or an answer whose
  // shape does not fit the method (the key is then malformed_key()). OK with
  // the answer, or AIRLOCK_STATUS_INPUT_REQUIRED with the question recorded.
  Reply ask(std::optional<std::string_view> key, std::string_view method, std::string_view params_json);

  // Some question is waiting for the client.
  bool input_required() const;
  // The key of the first answer that did not fit its method's shape.
  std::optional<std::string> malformed_key() const;
  // {key: {"method": m, "params": p}} of the waiting questions: what
  // InputRequiredResult.inputRequests holds.
  boost::json::object input_requests() const;
  // The state for the next attempt: every answer carried or used so far, and
  // the waiting questions.
  RoundState next_state() const;

 private:
  // Whether `method`, with `params`, may be asked of this client.
  bool capable(std::string_view method, const boost::json::object& params) const;
  // The client's answer to `key` for `method`, if it gave one.
  const boost::json::value* answer_for(std::string_view key, std::string_view method) const;

  const boost::json::object capabilities_;
  const RoundState carried_;
  // This retry's inputResponses that may be used: key -> result.
  boost::json::object offered_;

  mutable std::mutex mutex_;
  // Guarded by mutex_: what this attempt asked and learned.
  boost::json::object asked_;     // key -> method, every question asked
  boost::json::object used_;      // key -> {"method", "result"}, answers handed to the hook
  boost::json::object pending_;   // key -> {"method", "params"}, questions left for the client
  std::optional<std::string> malformed_;
  std::size_t keyless_asks_ = 0;
};

}  // namespace airlock::host
