#include "mcp/method_table.hpp"

#include "mcp/modern_request.hpp"
#include "mcp/protocol.hpp"
#include "mcp/session.hpp"

namespace airlock::host {
namespace {

constexpr std::uint8_t kSession = static_cast<std::uint8_t>(Era::session);
constexpr std::uint8_t kModern = static_cast<std::uint8_t>(Era::modern);
constexpr std::uint8_t kBoth = kSession | kModern;

}  // namespace

// A friend of Session: the table names its private handlers. In the order
// the specification lists the methods; 2026-07-28 dropped initialize, ping,
// logging/setLevel and resources/(un)subscribe, and added server/discover,
// subscriptions/listen and tasks/update.
const Method* find_method(std::string_view name) {
  static constexpr Method kMethods[] = {
      {"initialize", kSession, Needs::nothing, true, &Session::on_initialize},
      {"ping", kSession, Needs::nothing, true, &Session::on_ping},
      {"server/discover", kModern, Needs::nothing, false, &Session::on_discover},
      {"logging/setLevel", kSession, Needs::nothing, false, &Session::on_set_level},
      {"tools/list", kBoth, Needs::nothing, false, &Session::on_tools_list},
      {"tools/call", kBoth, Needs::nothing, false, &Session::on_tools_call},
      {"resources/list", kBoth, Needs::resources, false, &Session::on_resources_list},
      {"resources/templates/list", kBoth, Needs::resources, false, &Session::on_resource_templates_list},
      {"resources/read", kBoth, Needs::resources, false, &Session::on_resources_read},
      {"resources/subscribe", kSession, Needs::resources, false, &Session::on_resources_subscribe},
      {"resources/unsubscribe", kSession, Needs::resources, false, &Session::on_resources_unsubscribe},
      {"prompts/list", kBoth, Needs::prompts, false, &Session::on_prompts_list},
      {"prompts/get", kBoth, Needs::prompts, false, &Session::on_prompts_get},
      {"completion/complete", kBoth, Needs::completions, false, &Session::on_complete},
      {"subscriptions/listen", kModern, Needs::nothing, false, &Session::on_listen},
      {"tasks/get", kBoth, Needs::tasks, false, &Session::on_tasks_get},
      {"tasks/result", kSession, Needs::tasks, false, &Session::on_tasks_result},
      {"tasks/list", kSession, Needs::tasks, false, &Session::on_tasks_list},
      {"tasks/update", kModern, Needs::tasks, false, &Session::on_tasks_update},
      {"tasks/cancel", kBoth, Needs::tasks, false, &Session::on_tasks_cancel},
  };
  for (const Method& method : kMethods)
    if (method.name == name) return &method;
  return nullptr;
}

bool serves(const ServerState& server, const Method& method) {
  const ContentCatalog* catalog = server.routes.content().catalog();
  switch (method.needs) {
    case Needs::nothing: return true;
    case Needs::resources: return catalog && catalog->serves_resources();
    case Needs::prompts: return catalog && catalog->serves_prompts();
    case Needs::completions: return catalog && catalog->serves_completions();
    case Needs::tasks: return server.tasks != nullptr;
  }
  return false;
}

std::string_view unserved_reason(Needs needs) {
  switch (needs) {
    case Needs::nothing: break;
    case Needs::resources: return "no plugin serves resources";
    case Needs::prompts: return "no plugin serves prompts";
    case Needs::completions: return "no plugin serves completions";
    case Needs::tasks: return "no task store is configured ([tasks])";
  }
  return "not served";
}

Era message_era(const jsonrpc::Message& m, bool in_session, std::string_view protocol_header) {
  if (in_session) return Era::session;
  if (carries_modern_meta(m)) return Era::modern;
  if (m.kind != jsonrpc::Message::Kind::request) {
    // A notification or response outside a session: only the header can say.
    return !protocol_header.empty() && !is_session_protocol_version(protocol_header) ? Era::modern : Era::session;
  }
  if (m.method == "initialize") return Era::session;
  if (!protocol_header.empty() && !is_session_protocol_version(protocol_header)) return Era::modern;
  const Method* method = find_method(m.method);
  return method && !method->in(Era::session) ? Era::modern : Era::session;
}

}  // namespace airlock::host
