// 2026-07-28 requests in a Session: each one is served with the scope its
// own _meta gave it (admit_modern), never as part of the session's state,
// and every result says what it is (resultType), who answered (serverInfo)
// and, for lists, how long it may be cached. A tool, prompt or resource that
// asks the client something runs as one attempt of a multi round-trip
// request: the answers it may use come in the request (inputResponses, and
// the sealed requestState of earlier rounds), and a question still open
// ends the attempt with an InputRequiredResult.
#include "mcp/session.hpp"

#include "mcp/input_round.hpp"
#include "mcp/modern_request.hpp"
#include "mcp/protocol.hpp"
#include "mcp/request_state.hpp"
#include "util/json_text.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

namespace airlock::host {
namespace {

// A requestState grows with every answer it carries; past this a client
// would be sending back more than any tool should need.
constexpr std::size_t kMaxRequestStateBytes = 256 * 1024;

}  // namespace

void Session::handle_modern(jsonrpc::Message& m, RequestScope scope) {
  dispatch_request(m, Era::modern, std::make_shared<const RequestScope>(std::move(scope)));
}

void Session::on_discover(jsonrpc::Message& m, const Scope& scope) {
  boost::json::array versions;
  for (auto v : kModernProtocolVersions) versions.emplace_back(v);
  boost::json::object result{{"supportedVersions", std::move(versions)},
                             {"capabilities", server_capabilities(server_, true)}};
  reply_result(m.id, std::move(result), scope, Cache::list);
}

void Session::stamp_modern(boost::json::object& result, const ServerState& server, Cache cache) {
  result["resultType"] = "complete";
  if (cache != Cache::none) {
    // Lists are the same for every caller unless tokens scope the tools;
    // what a read returns is the plugin's to decide per caller.
    result["ttlMs"] = cache == Cache::list ? server.list_ttl_ms : 0;
    result["cacheScope"] = cache == Cache::list && !server.private_lists ? "public" : "private";
  }
  auto& meta = result["_meta"];
  if (!meta.is_object()) meta = boost::json::object{};
  meta.get_object()[kMetaServerInfo] =
      boost::json::object{{"name", server.config.server.name}, {"version", server.version}};
}

void Session::reply_result(const boost::json::value& id, boost::json::object result, const Scope& scope,
                           Cache cache) {
  if (scope) stamp_modern(result, server_, cache);
  reply(id, to_json(result));
}

bool Session::open_round(const jsonrpc::Message& m, const std::shared_ptr<InFlight>& call) {
  const auto& params = m.params.get_object();
  const boost::json::object* responses = nullptr;
  if (const auto* v = params.if_contains("inputResponses"); v) {
    if (!v->is_object()) {
      reply_error(m.id, jsonrpc::kInvalidParams,
                  fmt::format("invalid params: {}: inputResponses must be an object of answers by key", m.method));
      return false;
    }
    responses = &v->get_object();
  }
  // What binds a requestState to this request. Only a retry that carries
  // one and a tool that asks the client need it, and it copies and hashes
  // the whole params (at 256 KiB of arguments, more than the chain costs):
  // a tools/call of a name and arguments alone, as good as every one, has
  // it made again from those when its tool asks (round_outcome).
  if (params.contains("requestState") || call->state_method != "tools/call" || !tool_call_digest_applies(params))
    call->state_digest = params_digest(params);
  RoundState carried;
  if (const auto* v = params.if_contains("requestState"); v) {
    std::optional<RoundState> opened;
    if (v->is_string() && server_.sealer)
      opened = server_.sealer->open(v->get_string(), StateBinding{call->scope->caller, call->state_method,
                                                                  call->state_digest},
                                    std::chrono::system_clock::now());
    if (!opened) {
      // One answer for every cause (tampered, expired, another caller or
      // request, another replica's key), so a probe learns nothing.
      reply_error(m.id, jsonrpc::kInvalidParams, "invalid params: invalid requestState");
      return false;
    }
    carried = std::move(*opened);
  }
  call->round = std::make_shared<InputRound>(call->scope->client_capabilities, std::move(carried), responses);
  return true;
}

bool Session::round_pending(const InFlight& call) {
  return call.round && (call.round->malformed_key() || call.round->input_required());
}

std::optional<std::string> Session::round_outcome(const InFlight& call) {
  if (!call.round) return std::nullopt;
  if (auto key = call.round->malformed_key())
    return jsonrpc::error(call.id, jsonrpc::kInvalidParams,
                          fmt::format("invalid params: inputResponses[\"{}\"] does not fit the question asked", *key),
                          boost::json::object{{"key", *key}});
  if (!call.round->input_required()) return std::nullopt;
  if (!server_.sealer)
    return jsonrpc::error(call.id, jsonrpc::kInternalError, "internal error: this server cannot seal a requestState");
  std::string state = server_.sealer->seal(
      call.round->next_state(),
      StateBinding{call.scope->caller, call.state_method,
                   call.state_digest.empty() ? tool_call_digest(call.route->tool->name, *call.arguments_value)
                                             : call.state_digest},
      std::chrono::system_clock::now());
  if (state.size() > kMaxRequestStateBytes)
    return jsonrpc::error(call.id, jsonrpc::kInternalError,
                          fmt::format("internal error: the answers this request carries exceed {} bytes of "
                                      "requestState",
                                      kMaxRequestStateBytes));
  boost::json::object result{{"resultType", "input_required"},
                             {"inputRequests", call.round->input_requests()},
                             {"requestState", std::move(state)},
                             {"_meta", boost::json::object{{kMetaServerInfo, server_info_}}}};
  return jsonrpc::result(call.id, to_json(result));
}

}  // namespace airlock::host
