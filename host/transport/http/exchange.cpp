#include "transport/http/exchange.hpp"

#include "audit/audit_trail.hpp"
#include "mcp/jsonrpc.hpp"
#include "util/ascii.hpp"

#include <algorithm>

namespace airlock::host::http {
namespace beast_http = boost::beast::http;

namespace {

// Beast finds a field by hashing its name to a known-field enum and then
// searching its set, some 400 instructions a lookup, and a request is
// looked up some twenty times. A request has a handful of fields: a scan
// that compares lengths first costs a tenth of that. Fields are in the
// order received, so the first match is the one Beast's find() returns.
bool named(const Request::value_type& field, std::string_view name) {
  const auto own = field.name_string();
  return own.size() == name.size() && iequals(std::string_view(own.data(), own.size()), name);
}

// The first field called `name`, or null.
const Request::value_type* first_named(const Request& request, std::string_view name) {
  for (const auto& field : request)
    if (named(field, name)) return &field;
  return nullptr;
}

std::string_view value_of(const Request::value_type& field) {
  return std::string_view(field.value().data(), field.value().size());
}

}  // namespace

std::string_view header(const Request& request, std::string_view name) {
  const auto* field = first_named(request, name);
  return field ? value_of(*field) : std::string_view();
}

std::size_t BeastHeaders::count(std::string_view name) const {
  return static_cast<std::size_t>(
      std::count_if(request_.begin(), request_.end(), [&](const auto& field) { return named(field, name); }));
}

std::optional<std::string_view> BeastHeaders::get(std::string_view name) const {
  const auto* field = first_named(request_, name);
  if (!field) return std::nullopt;
  return value_of(*field);
}

std::string Exchange::peer_address() const { return peer_.substr(0, peer_.rfind(':')); }

std::shared_ptr<Response> Exchange::make_response(unsigned status, std::string body, std::string_view content_type) {
  auto response = std::make_shared<Response>(static_cast<beast_http::status>(status), 11);
  response->set(beast_http::field::server, "airlock");
  if (!content_type.empty()) response->set(beast_http::field::content_type, content_type);
  response->body() = std::move(body);
  return response;
}

void Exchange::respond(unsigned status, std::string body, std::string_view content_type, bool close) {
  send(make_response(status, std::move(body), content_type), close);
}

void Exchange::respond_error(unsigned status, int code, std::string_view message, bool close) {
  respond(status, jsonrpc::error(nullptr, code, message), "application/json", close);
}

void Exchange::audit_refusal(unsigned status, std::string_view reason, boost::json::object detail) const {
  if (!audit::enabled()) return;
  audit::Event event;
  event.kind = status == 401 ? audit::Kind::auth_failed
               : status == 429 ? audit::Kind::rate_limited
                               : audit::Kind::request_refused;
  event.failed = true;
  event.outcome = "refused";
  event.actor.transport = "http";
  event.actor.address = peer_address();
  event.actor.caller = record_.identity;
  event.actor.client = record_.client;
  event.subject = record_.path;
  event.reason = std::string(reason);
  event.http_method = record_.method.substr(0, 16);
  event.http_path = record_.path;
  event.http_status = status;
  event.detail = std::move(detail);
  audit::record(std::move(event));
}

}  // namespace airlock::host::http
