#include "mcp/input_round.hpp"

#include "mcp/protocol.hpp"
#include "util/json_text.hpp"

#include <boost/json/parse.hpp>
#include <fmt/format.h>

#include <utility>

namespace airlock::host {
namespace json = boost::json;

namespace {

constexpr std::size_t kMaxKeyLength = 64;

// As deep as host_api lets a plugin's params be.
const json::parse_options kParseOptions = [] {
  json::parse_options o;
  o.max_depth = 128;
  return o;
}();

bool valid_key(std::string_view key) {
  if (key.empty() || key.size() > kMaxKeyLength) return false;
  for (char c : key)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
          c == '-'))
      return false;
  return true;
}

// A capability counts as declared as a session counts it: present, not null.
bool declared(const json::object& in, std::string_view name) {
  const auto* value = in.if_contains(name);
  return value && !value->is_null();
}

bool declared_within(const json::object& capabilities, std::string_view name, std::string_view sub) {
  const auto* value = capabilities.if_contains(name);
  const auto* object = value ? value->if_object() : nullptr;
  return object && declared(*object, sub);
}

bool is_string_member(const json::object& o, std::string_view name) {
  const auto* value = o.if_contains(name);
  return value && value->is_string();
}

// The shapes of ElicitResult, CreateMessageResult and ListRootsResult that a
// hook relies on; anything more the client sends is passed through.
bool fits_elicit_result(const json::object& r) {
  const auto* action = r.if_contains("action");
  if (!action || !action->is_string()) return false;
  const auto& a = action->get_string();
  if (a != "accept" && a != "decline" && a != "cancel") return false;
  const auto* content = r.if_contains("content");
  return !content || content->is_object();
}

bool fits_sampling_result(const json::object& r) {
  const auto* content = r.if_contains("content");
  return is_string_member(r, "role") && is_string_member(r, "model") && content &&
         (content->is_object() || content->is_array());
}

bool fits_roots_result(const json::object& r) {
  const auto* roots = r.if_contains("roots");
  if (!roots || !roots->is_array()) return false;
  for (const auto& root : roots->get_array()) {
    const auto* object = root.if_object();
    if (!object || !is_string_member(*object, "uri")) return false;
  }
  return true;
}

bool fits(std::string_view method, const json::value& answer) {
  const auto* result = answer.if_object();
  if (!result) return false;
  if (method == "elicitation/create") return fits_elicit_result(*result);
  if (method == "sampling/createMessage") return fits_sampling_result(*result);
  if (method == "roots/list") return fits_roots_result(*result);
  return false;
}

}  // namespace

InputRound::InputRound(json::object client_capabilities, RoundState carried, const json::object* input_responses)
    : capabilities_(std::move(client_capabilities)), carried_(std::move(carried)) {
  if (!input_responses) return;
  // With a state, only answers to the questions it says were asked count:
  // anything else the client put in is ignored, as unknown keys are.
  const bool state_came = !carried_.pending.empty() || !carried_.answers.empty();
  for (const auto& entry : *input_responses)
    if (!state_came || carried_.pending.contains(entry.key())) offered_.emplace(entry.key(), entry.value());
}

bool InputRound::capable(std::string_view method, const json::object& params) const {
  const auto capability = capability_for_client_request(method);
  if (!capability || !declared(capabilities_, *capability)) return false;
  if (method == "elicitation/create") {
    const auto* mode = params.if_contains("mode");
    if (mode && mode->is_string() && mode->get_string() == "url")
      return declared_within(capabilities_, "elicitation", "url");
  }
  if (method == "sampling/createMessage" && params.contains("tools"))
    return declared_within(capabilities_, "sampling", "tools");
  return true;
}

const json::value* InputRound::answer_for(std::string_view key, std::string_view method) const {
  if (const auto* offered = offered_.if_contains(key)) {
    // With a state, the question it recorded under this key must be this
    // one; without, the client answered blind and the method cannot differ.
    const auto* asked = carried_.pending.if_contains(key);
    if (!asked || (asked->is_string() && asked->get_string() == method)) return offered;
  }
  if (const auto* carried = carried_.answers.if_contains(key)) {
    const auto& answer = carried->get_object();  // open() checked the shape
    if (answer.at("method").get_string() == method) return &answer.at("result");
  }
  return nullptr;
}

InputRound::Reply InputRound::ask(std::optional<std::string_view> key, std::string_view method,
                                  std::string_view params_json) {
  std::unique_lock lock(mutex_);
  // Numbered before any check, so a question keeps its name from one run to
  // the next whatever happens to the questions before it.
  std::string auto_key;
  if (!key) {
    auto_key = fmt::format("input-{}", ++keyless_asks_);
    key = auto_key;
  }
  lock.unlock();

  const auto capability = capability_for_client_request(method);
  if (!capability || !declared(capabilities_, *capability)) return {AIRLOCK_STATUS_UNSUPPORTED, {}};
  boost::system::error_code ec;
  json::value params = json::parse(params_json, ec, {}, kParseOptions);
  if (ec || !params.is_object()) return {AIRLOCK_STATUS_INVALID_ARGUMENT, {}};
  if (!capable(method, params.get_object())) return {AIRLOCK_STATUS_UNSUPPORTED, {}};
  if (!valid_key(*key)) return {AIRLOCK_STATUS_INVALID_ARGUMENT, {}};

  lock.lock();
  if (const auto* earlier = asked_.if_contains(*key); earlier && earlier->get_string() != method)
    return {AIRLOCK_STATUS_INVALID_ARGUMENT, {}};  // two questions cannot share a name
  asked_[*key] = method;

  if (const auto* answer = answer_for(*key, method)) {
    if (!fits(method, *answer)) {
      if (!malformed_) malformed_ = std::string(*key);
      return {AIRLOCK_STATUS_INVALID_ARGUMENT, {}};
    }
    used_[*key] = json::object{{"method", method}, {"result", *answer}};
    return {AIRLOCK_STATUS_OK, to_json(*answer)};
  }
  // Asked twice before the client answered: the first wording stands.
  if (!pending_.contains(*key)) pending_[*key] = json::object{{"method", method}, {"params", std::move(params)}};
  return {AIRLOCK_STATUS_INPUT_REQUIRED, {}};
}

bool InputRound::input_required() const {
  std::lock_guard lock(mutex_);
  return !pending_.empty();
}

std::optional<std::string> InputRound::malformed_key() const {
  std::lock_guard lock(mutex_);
  return malformed_;
}

json::object InputRound::input_requests() const {
  std::lock_guard lock(mutex_);
  return pending_;
}

RoundState InputRound::next_state() const {
  std::lock_guard lock(mutex_);
  RoundState next;
  next.answers = carried_.answers;
  for (const auto& entry : used_) next.answers[entry.key()] = entry.value();
  for (const auto& entry : pending_) next.pending[entry.key()] = entry.value().at("method");
  return next;
}

}  // namespace airlock::host
