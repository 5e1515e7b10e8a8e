// Audit events as OCSF 1.3.0 JSON. The class and activity ids are those of
// the 1.3.0 schema (events/*.json at the v1.3.0 release); where a kind is
// none of a class's activities it is 99 Other with airlock's own name.
#include "audit/ocsf_format.hpp"

#include "util/json_text.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

#include <chrono>
#include <cstddef>

namespace airlock::host::audit {
namespace json = boost::json;

namespace {

constexpr OcsfActivity api(int activity_id, std::string_view name) {
  return {6, "Application Activity", 6003, "API Activity", activity_id, name};
}
constexpr OcsfActivity lifecycle(int activity_id, std::string_view name) {
  return {6, "Application Activity", 6002, "Application Lifecycle", activity_id, name};
}
constexpr OcsfActivity event_log(int activity_id, std::string_view name) {
  return {1, "System Activity", 1008, "Event Log Activity", activity_id, name};
}

// HTTP Activity's activities are the request methods.
OcsfActivity http_activity(std::string_view method) {
  constexpr std::pair<std::string_view, int> kMethods[] = {{"CONNECT", 1}, {"DELETE", 2}, {"GET", 3},
                                                           {"HEAD", 4},    {"OPTIONS", 5}, {"POST", 6},
                                                           {"PUT", 7},     {"TRACE", 8}};
  constexpr std::string_view kNames[] = {"", "Connect", "Delete", "Get", "Head", "Options", "Post", "Put", "Trace"};
  for (const auto& [name, id] : kMethods)
    if (name == method) return {4, "Network Activity", 4002, "HTTP Activity", id, kNames[id]};
  return {4, "Network Activity", 4002, "HTTP Activity", 99, "Other"};
}

// What MCP method a request's record stands for.
std::string_view api_operation(Kind kind) {
  switch (kind) {
    case Kind::tool_call:
    case Kind::task_created:
    case Kind::task_failed:
      return "tools/call";
    case Kind::resource_read:
      return "resources/read";
    case Kind::prompt_get:
      return "prompts/get";
    case Kind::task_read:
      return "tasks/result";
    case Kind::task_cancelled:
      return "tasks/cancel";
    default:
      return "";
  }
}

std::string_view subject_type(Kind kind) {
  switch (kind) {
    case Kind::tool_call:
    case Kind::egress:
    case Kind::pin_recorded:
    case Kind::pin_changed:
    case Kind::pin_accepted:
      return "tool";
    case Kind::resource_read:
      return "resource";
    case Kind::prompt_get:
      return "prompt";
    case Kind::task_created:
    case Kind::task_read:
    case Kind::task_cancelled:
    case Kind::task_failed:
      return "task";
    case Kind::plugin_loaded:
    case Kind::plugin_refused:
    case Kind::plugin_crashed:
    case Kind::plugin_restarted:
      return "plugin";
    case Kind::pack_verified:
    case Kind::pack_installed:
    case Kind::pack_refused:
      return "pack";
    case Kind::config_loaded:
      return "config";
    default:
      return "";
  }
}

std::int64_t epoch_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

json::object product(const FormatContext& context, const json::storage_ptr& sp) {
  return json::object({{"name", "airlock"}, {"vendor_name", "airlock"}, {"version", context.product_version}},
                      sp);
}

// The application a lifecycle record is about: airlock itself, or the
// plugin, pack or tool it names (whose vendor the host does not know).
json::object lifecycle_app(const Event& event, const FormatContext& context, const json::storage_ptr& sp) {
  switch (event.kind) {
    case Kind::server_start:
    case Kind::server_stop:
    case Kind::config_loaded:
      return product(context, sp);
    default: {
      json::object app({{"name", event.subject}, {"vendor_name", "unknown"}}, sp);
      if (const auto* publisher = event.detail.if_contains("publisher"); publisher && publisher->is_string())
        app["vendor_name"] = publisher->get_string();
      return app;
    }
  }
}

}  // namespace

OcsfActivity ocsf_activity(const Event& event) noexcept {
  switch (event.kind) {
    case Kind::tool_call:
      return api(99, "Invoke");
    case Kind::resource_read:
    case Kind::prompt_get:
    case Kind::task_read:
      return api(2, "Read");
    case Kind::task_created:
      return api(1, "Create");
    case Kind::task_cancelled:
      return api(99, "Cancel");
    case Kind::task_failed:
      return api(99, "Fail");
    case Kind::egress:
      return event.failed ? OcsfActivity{4, "Network Activity", 4001, "Network Activity", 5, "Refuse"}
                          : OcsfActivity{4, "Network Activity", 4001, "Network Activity", 1, "Open"};
    case Kind::auth_failed:
      return {3, "Identity & Access Management", 3002, "Authentication", 1, "Logon"};
    case Kind::rate_limited:
    case Kind::request_refused:
      return http_activity(event.http_method);
    case Kind::pack_installed:
      return lifecycle(1, "Install");
    case Kind::plugin_loaded:
    case Kind::plugin_refused:
    case Kind::server_start:
      return lifecycle(3, "Start");
    case Kind::plugin_crashed:
    case Kind::server_stop:
      return lifecycle(4, "Stop");
    case Kind::plugin_restarted:
      return lifecycle(5, "Restart");
    case Kind::pin_changed:
    case Kind::pin_accepted:
      return lifecycle(8, "Update");
    case Kind::pin_recorded:
      return lifecycle(99, "Pin");
    case Kind::pack_verified:
      return lifecycle(99, "Verify");
    case Kind::pack_refused:
      return lifecycle(99, "Refuse");
    case Kind::config_loaded:
      return lifecycle(99, "Load Config");
    case Kind::checkpoint:
      return event_log(99, "Checkpoint");
    case Kind::records_dropped:
      // 1.3.0 has no "full" activity (8 is Restart): a loss is Other.
      return event_log(99, "Drop");
    case Kind::sink_reopened:
      return event_log(5, "Rotate");
  }
  return {0, "Uncategorized", 0, "Base Event", 0, "Unknown"};
}

std::string format_ocsf(const Event& event, const ChainLink& link, const FormatContext& context) {
  const OcsfActivity activity = ocsf_activity(event);
  const Severity severity = severity_of(event);
  // One arena per record: the tree is built, serialized and dropped whole,
  // so a record costs the writer no allocation at all until it outgrows the
  // buffer (then the arena takes blocks from the heap, and frees them here).
  alignas(std::max_align_t) unsigned char buffer[16384];
  json::monotonic_resource arena(buffer, sizeof buffer);
  const json::storage_ptr sp(&arena);
  json::object record(sp);
  record["activity_id"] = activity.activity_id;
  record["activity_name"] = activity.activity_name;
  record["category_uid"] = activity.category_uid;
  record["category_name"] = activity.category_name;
  record["class_uid"] = activity.class_uid;
  record["class_name"] = activity.class_name;
  record["type_uid"] = std::int64_t{activity.class_uid} * 100 + activity.activity_id;
  record["type_name"] = std::string(activity.class_name) + ": " + std::string(activity.activity_name);
  record["time"] = epoch_ms(event.time);
  record["severity_id"] = static_cast<int>(severity);
  record["severity"] = severity_name(severity);
  record["status_id"] = event.failed ? 2 : 1;
  record["status"] = event.failed ? "Failure" : "Success";
  if (!event.outcome.empty()) record["status_detail"] = event.outcome;
  record["message"] = describe(event);
  record["metadata"] = json::object({{"version", kOcsfVersion},
                                     {"product", product(context, sp)},
                                     {"log_name", "audit"},
                                     {"log_provider", "airlock"},
                                     {"event_code", kind_name(event.kind)},
                                     {"uid", link.replica + ":" + std::to_string(link.seq)}}, sp);

  // What the class has no attribute for; filled as each class takes its own.
  json::object unmapped(sp);
  bool protocol_mapped = false;
  bool request_mapped = false;
  bool destination_mapped = false;
  bool http_mapped = false;
  bool bytes_mapped = false;

  json::object actor(sp);
  if (!event.actor.caller.empty()) actor["user"] = json::object({{"name", event.actor.caller}}, sp);
  if (!event.actor.session.empty()) actor["session"] = json::object({{"uid", event.actor.session}}, sp);
  // OCSF 1.3 Actor.app_uid: the client application that initiated the activity.
  if (!event.actor.client.empty()) actor["app_uid"] = event.actor.client;
  json::object src_endpoint(sp);
  if (!event.actor.address.empty()) src_endpoint["ip"] = event.actor.address;

  switch (activity.class_uid) {
    case 6003: {  // API Activity: actor, api and src_endpoint are required
      record["actor"] = std::move(actor);
      json::object api_object({{"operation", api_operation(event.kind)}}, sp);
      if (!event.actor.request.empty())
        api_object["request"] = json::object({{"uid", event.actor.request}}, sp);
      if (!event.actor.protocol.empty()) api_object["version"] = event.actor.protocol;
      record["api"] = std::move(api_object);
      protocol_mapped = request_mapped = true;
      // stdio has no peer address: the endpoint is named by its transport.
      if (src_endpoint.empty() && !event.actor.transport.empty()) src_endpoint["name"] = event.actor.transport;
      record["src_endpoint"] = std::move(src_endpoint);
      json::array resources(sp);
      if (!event.subject.empty())
        resources.push_back(json::object({{"type", subject_type(event.kind)}, {"name", event.subject}}, sp));
      if (const auto* tool = event.detail.if_contains("tool"); tool && tool->is_string())
        resources.push_back(json::object({{"type", "tool"}, {"name", tool->get_string()}}, sp));
      if (!resources.empty()) record["resources"] = std::move(resources);
      break;
    }
    case 4001: {  // Network Activity: dst_endpoint is required
      json::object dst_endpoint(sp);
      json::object url(sp);
      if (const auto parts = split_destination(event.destination)) {
        dst_endpoint["hostname"] = parts->host;
        url["scheme"] = parts->scheme;
        url["hostname"] = parts->host;
        url["port"] = parts->port;
      }
      if (!event.address.empty()) dst_endpoint["ip"] = event.address;
      if (const auto parts = split_destination(event.destination)) dst_endpoint["port"] = parts->port;
      if (!event.destination.empty()) url["url_string"] = event.destination;
      record["dst_endpoint"] = std::move(dst_endpoint);
      if (!url.empty()) record["url"] = std::move(url);
      destination_mapped = true;
      if (!src_endpoint.empty()) record["src_endpoint"] = std::move(src_endpoint);
      // The tool is what reached out; the caller and session are whose call it ran in.
      if (!event.subject.empty()) actor["app_name"] = event.subject;
      if (!actor.empty()) record["actor"] = std::move(actor);
      if (event.bytes) {
        record["traffic"] = json::object({{"bytes_in", *event.bytes}}, sp);
        bytes_mapped = true;
      }
      break;
    }
    case 3002: {  // Authentication: user is required, here unknown unless a caller was named
      record["user"] = event.actor.caller.empty() ? json::object({{"type_id", 0}, {"type", "Unknown"}}, sp)
                                                  : json::object({{"name", event.actor.caller}}, sp);
      if (!src_endpoint.empty()) record["src_endpoint"] = std::move(src_endpoint);
      if (!event.actor.session.empty()) record["session"] = json::object({{"uid", event.actor.session}}, sp);
      if (!event.http_method.empty() || !event.http_path.empty()) {
        json::object request(sp);
        if (!event.http_method.empty()) request["http_method"] = event.http_method;
        if (!event.http_path.empty()) request["url"] = json::object({{"path", event.http_path}}, sp);
        record["http_request"] = std::move(request);
      }
      if (event.http_status != 0) unmapped["http_status"] = event.http_status;
      http_mapped = true;
      break;
    }
    case 4002: {  // HTTP Activity: http_request, http_response and dst_endpoint are required
      json::object request(sp);
      if (!event.http_method.empty()) request["http_method"] = event.http_method;
      if (!event.http_path.empty()) request["url"] = json::object({{"path", event.http_path}}, sp);
      record["http_request"] = std::move(request);
      record["http_response"] = json::object({{"code", event.http_status}}, sp);
      record["dst_endpoint"] = json::object({{"hostname", context.host_name}}, sp);
      http_mapped = true;
      if (!src_endpoint.empty()) record["src_endpoint"] = std::move(src_endpoint);
      if (!actor.empty()) record["actor"] = std::move(actor);
      break;
    }
    case 6002:  // Application Lifecycle: app is required
      record["app"] = lifecycle_app(event, context, sp);
      if (!actor.empty()) record["actor"] = std::move(actor);
      break;
    case 1008:  // Event Log Activity: System Activity requires actor and device
      record["actor"] = json::object({{"app_name", "airlock"}}, sp);
      record["device"] =
          json::object({{"hostname", context.host_name}, {"type_id", 1}, {"type", "Server"}}, sp);
      record["log_name"] = "audit";
      record["log_provider"] = "airlock";
      break;
    default:
      break;
  }
  if (event.duration)
    record["duration"] = std::chrono::duration_cast<std::chrono::milliseconds>(*event.duration).count();

  if (!event.actor.transport.empty()) unmapped["transport"] = event.actor.transport;
  if (!protocol_mapped && !event.actor.protocol.empty()) unmapped["protocol"] = event.actor.protocol;
  if (!request_mapped && !event.actor.request.empty()) unmapped["request_id"] = event.actor.request;
  if (!destination_mapped) {
    if (!event.destination.empty()) unmapped["destination"] = event.destination;
    if (!event.address.empty()) unmapped["address"] = event.address;
  }
  if (!http_mapped) {
    if (!event.http_method.empty()) unmapped["http_method"] = event.http_method;
    if (!event.http_path.empty()) unmapped["http_path"] = event.http_path;
    if (event.http_status != 0) unmapped["http_status"] = event.http_status;
  }
  // API Activity names its subject in resources; the other classes have no
  // attribute that means "what airlock acted on" in every case (app.name
  // and actor.app_name carry it only where it is that), so it is kept here
  // too, where one query finds it whatever the class.
  if (activity.class_uid != 6003 && !event.subject.empty()) unmapped["subject"] = event.subject;
  if (!event.reason.empty()) unmapped["reason"] = event.reason;
  if (event.bytes && !bytes_mapped) unmapped["bytes"] = *event.bytes;
  if (event.duration) unmapped["duration_us"] = event.duration->count();
  if (!event.detail.empty()) unmapped["detail"] = event.detail;
  // Last, so the link is the end of the line.
  unmapped["airlock_chain"] =
      json::object({{"replica", link.replica}, {"seq", link.seq}, {"prev", link.prev}}, sp);
  record["unmapped"] = std::move(unmapped);
  return to_json(record);
}

std::optional<ChainedRecord> parse_ocsf_record(std::string_view line) {
  boost::system::error_code ec;
  json::value value = json::parse(line, ec);
  if (ec || !value.is_object()) return std::nullopt;
  const json::object& record = value.get_object();
  const auto* metadata = record.if_contains("metadata");
  const auto* unmapped = record.if_contains("unmapped");
  if (!metadata || !metadata->is_object() || !unmapped || !unmapped->is_object()) return std::nullopt;
  const auto* kind = metadata->get_object().if_contains("event_code");
  const auto* chain = unmapped->get_object().if_contains("airlock_chain");
  if (!kind || !kind->is_string() || !chain || !chain->is_object()) return std::nullopt;
  const auto* replica = chain->get_object().if_contains("replica");
  const auto* seq = chain->get_object().if_contains("seq");
  const auto* prev = chain->get_object().if_contains("prev");
  if (!replica || !replica->is_string() || !seq || !prev || !prev->is_string()) return std::nullopt;
  ChainedRecord parsed;
  if (seq->is_uint64())
    parsed.link.seq = seq->get_uint64();
  else if (seq->is_int64() && seq->get_int64() > 0)
    parsed.link.seq = static_cast<std::uint64_t>(seq->get_int64());
  else
    return std::nullopt;
  parsed.link.replica = replica->get_string();
  parsed.link.prev = prev->get_string();
  parsed.kind = kind->get_string();
  if (const auto* detail = unmapped->get_object().if_contains("detail"); detail && detail->is_object())
    parsed.detail = detail->get_object();
  return parsed;
}

}  // namespace airlock::host::audit
