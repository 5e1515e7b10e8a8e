// The admission of a 2026-07-28 request. The order of the checks is the
// revision's, and it is observable: a client that gets one error fixes that
// and meets the next, so each says exactly which field or header is wrong.
#include "mcp/modern_request.hpp"

#include "mcp/method_table.hpp"
#include "mcp/protocol.hpp"
#include "mcp/request_headers.hpp"
#include "mcp/session.hpp"
#include "util/json_text.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>


namespace airlock::host {
namespace {

const boost::json::object* meta_of(const jsonrpc::Message& m) {
  const auto* params = m.params.if_object();
  const auto* meta = params ? params->if_contains("_meta") : nullptr;
  return meta ? meta->if_object() : nullptr;
}

Rejection reject(unsigned status, int code, std::string message, boost::json::value data = nullptr) {
  return Rejection{status, code, std::move(message), std::move(data)};
}

// The parts of `required` that `declared` lacks (both ClientCapabilities
// objects; a sub-capability is required when its object names it).
boost::json::object missing_capabilities(const boost::json::object& required, const boost::json::object& declared) {
  boost::json::object missing;
  for (const auto& [name, need] : required) {
    const auto* have = declared.if_contains(name);
    if (!have || have->is_null()) {
      missing[name] = need;
      continue;
    }
    if (need.is_object() && have->is_object()) {
      auto deeper = missing_capabilities(need.get_object(), have->get_object());
      if (!deeper.empty()) missing[name] = std::move(deeper);
    }
  }
  return missing;
}

// The body value Mcp-Name must repeat: params.name or params.uri.
const boost::json::string* named_target(const jsonrpc::Message& m) {
  const auto* params = m.params.if_object();
  if (!params) return nullptr;
  const char* field = m.method == "resources/read"                                  ? "uri"
                      : (m.method == "tools/call" || m.method == "prompts/get")      ? "name"
                      : std::string_view(m.method).starts_with("tasks/")             ? "taskId"
                                                                                     : nullptr;
  const auto* value = field ? params->if_contains(field) : nullptr;
  return value ? value->if_string() : nullptr;
}

}  // namespace

bool carries_modern_meta(const jsonrpc::Message& m) {
  const auto* meta = meta_of(m);
  return meta && (meta->contains(kMetaProtocolVersion) || meta->contains(kMetaClientCapabilities));
}

std::variant<RequestScope, Rejection> admit_modern(const ServerState& server, const jsonrpc::Message& m,
                                                   const HeaderView* headers,
                                                   const std::function<bool(std::string_view)>& in_scope,
                                                   std::string caller) {
  const auto* meta = meta_of(m);
  const auto* version = meta ? meta->if_contains(kMetaProtocolVersion) : nullptr;
  const auto* capabilities = meta ? meta->if_contains(kMetaClientCapabilities) : nullptr;
  if (!version || !version->is_string() || !capabilities || !capabilities->is_object())
    return reject(400, jsonrpc::kInvalidParams,
                  fmt::format("invalid params: {} needs params._meta[\"{}\"] (a string) and params._meta[\"{}\"] "
                              "(an object); without them it is a 2025 request, which needs a session (initialize)",
                              m.method, kMetaProtocolVersion, kMetaClientCapabilities));
  RequestScope scope;
  if (const auto* level = meta->if_contains(kMetaLogLevel)) {
    scope.log_level = level->is_string() ? log_level_from_name(level->get_string()) : std::nullopt;
    if (!scope.log_level)
      return reject(400, jsonrpc::kInvalidParams,
                    fmt::format("invalid params: params._meta[\"{}\"] is {}: expected one of debug, info, notice, "
                                "warning, error, critical, alert, emergency",
                                kMetaLogLevel, boost::json::serialize(*level)));
  }
  const std::string_view requested = version->get_string();

  if (headers) {
    const auto header = headers->get("MCP-Protocol-Version");
    if (!header || *header != requested)
      return reject(400, kHeaderMismatch,
                    header ? fmt::format("header mismatch: MCP-Protocol-Version is {} but params._meta says '{}'",
                                         quoted_header_value(*header), requested)
                           : fmt::format("header mismatch: the MCP-Protocol-Version header is missing (params._meta "
                                         "says '{}')",
                                         requested));
  }
  if (!is_modern_protocol_version(requested)) {
    boost::json::array supported;
    for (auto v : kModernProtocolVersions) supported.emplace_back(v);
    return reject(400, kUnsupportedProtocolVersion,
                  fmt::format("unsupported protocol version: {} (this server speaks 2026-07-28 per request, and "
                              "2025-11-25 and 2025-06-18 in sessions)",
                              requested),
                  boost::json::object{{"supported", std::move(supported)}, {"requested", requested}});
  }
  if (headers)
    if (auto wrong = check_method_header(*headers, m.method)) return reject(400, kHeaderMismatch, *wrong);

  const Method* method = find_method(m.method);
  if (!method || !method->in(Era::modern))
    return reject(404, jsonrpc::kMethodNotFound,
                  fmt::format("method not found: {}{}", m.method,
                              method ? " (not part of protocol 2026-07-28)" : ""));
  if (!serves(server, *method))
    return reject(404, jsonrpc::kMethodNotFound,
                  fmt::format("method not found: {} ({})", m.method, unserved_reason(method->needs)));

  // A client that did not declare the tasks extension has no tasks to ask
  // about: refused before any task id is looked at.
  static const boost::json::object kNeedsTasks{
      {"extensions", boost::json::object{{kTasksExtension, boost::json::object{}}}}};
  if (m.method.starts_with("tasks/") && !declares_tasks_extension(capabilities->get_object()))
    return reject(400, kMissingClientCapability,
                  fmt::format("missing client capability: {} needs the {} extension in clientCapabilities", m.method,
                              kTasksExtension),
                  boost::json::object{{"requiredCapabilities", kNeedsTasks}});

  if (headers)
    if (const auto* target = named_target(m))
      if (auto wrong = check_name_header(*headers, *target)) return reject(400, kHeaderMismatch, *wrong);

  if (m.method == "tools/call") {
    const auto* name = named_target(m);
    const bool visible = name && (!in_scope || in_scope(*name));
    const ToolRoute* route = visible ? server.routes.find(*name) : nullptr;
    // An unknown tool is the method's own error (-32602), answered later.
    if (route) {
      if (headers && !route->tool->header_params.empty()) {
        // Absent arguments read as null: every annotated argument absent.
        const auto* arguments = m.params.get_object().if_contains("arguments");
        if (auto wrong = check_param_headers(*headers, route->tool->header_params,
                                             arguments ? *arguments : boost::json::value()))
          return reject(400, kHeaderMismatch, *wrong);
      }
      if (route->tool->task_required() && !declares_tasks_extension(capabilities->get_object()))
        return reject(400, kMissingClientCapability,
                      fmt::format("missing client capability: tool {} runs only as a task, which needs the {} "
                                  "extension in clientCapabilities",
                                  route->tool->name, kTasksExtension),
                      boost::json::object{{"requiredCapabilities", kNeedsTasks}});
      if (!route->tool->required_client_capabilities.empty()) {
        auto missing = missing_capabilities(route->tool->required_client_capabilities, capabilities->get_object());
        if (!missing.empty()) {
          std::string message = fmt::format(
              "missing client capability: tool {} needs {}, which the request's clientCapabilities do not declare",
              route->tool->name, boost::json::serialize(missing));
          return reject(400, kMissingClientCapability, std::move(message),
                        boost::json::object{{"requiredCapabilities", std::move(missing)}});
        }
      }
    }
  }

  scope.protocol_version = std::string(requested);
  scope.client_capabilities = boost::json::object(capabilities->get_object(), boost::json::storage_ptr());
  scope.client_capabilities_json = to_json(scope.client_capabilities);
  scope.caller = std::move(caller);
  return scope;
}

bool declares_tasks_extension(const boost::json::object& client_capabilities) {
  const auto* extensions = client_capabilities.if_contains("extensions");
  const auto* tasks = extensions && extensions->is_object() ? extensions->get_object().if_contains(kTasksExtension)
                                                            : nullptr;
  return tasks && !tasks->is_null();
}

boost::json::object server_capabilities(const ServerState& server, bool modern) {
  // Tools can change while the server runs (a plugin's notify_list_changed).
  boost::json::object capabilities{{"tools", boost::json::object{{"listChanged", true}}},
                                   {"logging", boost::json::object{}}};
  const ContentCatalog* catalog = server.routes.content().catalog();
  if (catalog && catalog->serves_resources())
    capabilities["resources"] = boost::json::object{{"subscribe", true}, {"listChanged", true}};
  if (catalog && catalog->serves_prompts()) capabilities["prompts"] = boost::json::object{{"listChanged", true}};
  if (catalog && catalog->serves_completions()) capabilities["completions"] = boost::json::object{};
  if (server.tasks) {
    if (modern)
      capabilities["extensions"] = boost::json::object{{kTasksExtension, boost::json::object{}}};
    else
      capabilities["tasks"] = boost::json::object{
          {"list", boost::json::object{}},
          {"cancel", boost::json::object{}},
          {"requests", boost::json::object{{"tools", boost::json::object{{"call", boost::json::object{}}}}}}};
  }
  return capabilities;
}

}  // namespace airlock::host
