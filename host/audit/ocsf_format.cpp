// Audit events as OCSF 1.3.0 JSON. The class and activity ids are those of
// the 1.3.0 schema (events/*.json at the v1.3.0 release); where a kind is
// none of a class's activities it is 99 Other with airlock's own name.
#include "audit/ocsf_format.hpp"

#include "util/json_writer.hpp"

#include <boost/json/parse.hpp>

#include <charconv>
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

void write_product(JsonObjectWriter& out, const FormatContext& context) {
  out.string("name", "airlock");
  out.string("vendor_name", "airlock");
  out.string("version", context.product_version);
}

// The application a lifecycle record is about: airlock itself, or the
// plugin, pack or tool it names (whose vendor the host does not know).
void write_lifecycle_app(JsonObjectWriter& app, const Event& event, const FormatContext& context) {
  switch (event.kind) {
    case Kind::server_start:
    case Kind::server_stop:
    case Kind::config_loaded:
      write_product(app, context);
      return;
    default: {
      app.string("name", event.subject);
      const auto* publisher = event.detail.if_contains("publisher");
      app.string("vendor_name", publisher && publisher->is_string() ? std::string_view(publisher->get_string())
                                                                    : std::string_view("unknown"));
      return;
    }
  }
}

// The caller as OCSF's Actor: user, session and the OAuth client; the tool
// as the application acting, when it is one (egress). False when there is
// nothing to say.
bool has_actor(const Event& event) {
  return !event.actor.caller.empty() || !event.actor.session.empty() || !event.actor.client.empty();
}
void write_actor(JsonObjectWriter& actor, const Event& event, std::string_view app_name = {}) {
  if (!event.actor.caller.empty()) actor.object("user").string("name", event.actor.caller);
  if (!event.actor.session.empty()) actor.object("session").string("uid", event.actor.session);
  // OCSF 1.3 Actor.app_uid: the client application that initiated the activity.
  if (!event.actor.client.empty()) actor.string("app_uid", event.actor.client);
  if (!app_name.empty()) actor.string("app_name", app_name);
}

void write_http_request(JsonObjectWriter& request, const Event& event) {
  if (!event.http_method.empty()) request.string("http_method", event.http_method);
  if (!event.http_path.empty()) request.object("url").string("path", event.http_path);
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
  std::string line;
  append_ocsf(line, event, link, context);
  return line;
}

void append_ocsf(std::string& line, const Event& event, const ChainLink& link, const FormatContext& context) {
  const OcsfActivity activity = ocsf_activity(event);
  const Severity severity = severity_of(event);
  // Written as text, member by member: building a tree per record and
  // serializing it had cost the writer thread more than the call it records.
  JsonObjectWriter record(line);
  record.number("activity_id", activity.activity_id);
  record.string("activity_name", activity.activity_name);
  record.number("category_uid", activity.category_uid);
  record.string("category_name", activity.category_name);
  record.number("class_uid", activity.class_uid);
  record.string("class_name", activity.class_name);
  record.number("type_uid", std::int64_t{activity.class_uid} * 100 + activity.activity_id);
  record.string("type_name", {activity.class_name, ": ", activity.activity_name});
  record.number("time", epoch_ms(event.time));
  record.number("severity_id", static_cast<int>(severity));
  record.string("severity", severity_name(severity));
  record.number("status_id", event.failed ? 2 : 1);
  record.string("status", event.failed ? "Failure" : "Success");
  if (!event.outcome.empty()) record.string("status_detail", event.outcome);
  record.string("message", description_parts(event).view());
  {
    auto metadata = record.object("metadata");
    metadata.string("version", kOcsfVersion);
    {
      auto product = metadata.object("product");
      write_product(product, context);
    }
    metadata.string("log_name", "audit");
    metadata.string("log_provider", "airlock");
    metadata.string("event_code", kind_name(event.kind));
    char seq[24];
    const auto seq_end = std::to_chars(seq, seq + sizeof seq, link.seq).ptr;
    metadata.string("uid", {link.replica, ":", std::string_view(seq, static_cast<std::size_t>(seq_end - seq))});
  }

  // Which of the event's fields the class took; the rest go under unmapped.
  bool protocol_mapped = false;
  bool request_mapped = false;
  bool destination_mapped = false;
  bool http_mapped = false;
  bool bytes_mapped = false;
  const bool has_address = !event.actor.address.empty();

  switch (activity.class_uid) {
    case 6003: {  // API Activity: actor, api and src_endpoint are required
      {
        auto actor = record.object("actor");
        write_actor(actor, event);
      }
      {
        auto api = record.object("api");
        api.string("operation", api_operation(event.kind));
        if (!event.actor.request.empty()) api.object("request").string("uid", event.actor.request);
        if (!event.actor.protocol.empty()) api.string("version", event.actor.protocol);
      }
      protocol_mapped = request_mapped = true;
      {
        auto src_endpoint = record.object("src_endpoint");
        // stdio has no peer address: the endpoint is named by its transport.
        if (has_address)
          src_endpoint.string("ip", event.actor.address);
        else if (!event.actor.transport.empty())
          src_endpoint.string("name", event.actor.transport);
      }
      const auto* tool = event.detail.if_contains("tool");
      const bool names_tool = tool && tool->is_string();
      if (!event.subject.empty() || names_tool) {
        auto resources = record.array("resources");
        if (!event.subject.empty()) {
          auto resource = resources.object();
          resource.string("type", subject_type(event.kind));
          resource.string("name", event.subject);
        }
        if (names_tool) {
          auto resource = resources.object();
          resource.string("type", "tool");
          resource.string("name", tool->get_string());
        }
      }
      break;
    }
    case 4001: {  // Network Activity: dst_endpoint is required
      const auto parts = split_destination(event.destination);
      {
        auto dst_endpoint = record.object("dst_endpoint");
        if (parts) dst_endpoint.string("hostname", parts->host);
        if (!event.address.empty()) dst_endpoint.string("ip", event.address);
        if (parts) dst_endpoint.number("port", unsigned{parts->port});
      }
      if (parts || !event.destination.empty()) {
        auto url = record.object("url");
        if (parts) {
          url.string("scheme", parts->scheme);
          url.string("hostname", parts->host);
          url.number("port", unsigned{parts->port});
        }
        if (!event.destination.empty()) url.string("url_string", event.destination);
      }
      destination_mapped = true;
      if (has_address) record.object("src_endpoint").string("ip", event.actor.address);
      // The tool is what reached out; the caller and session are whose call it ran in.
      if (has_actor(event) || !event.subject.empty()) {
        auto actor = record.object("actor");
        write_actor(actor, event, event.subject);
      }
      if (event.bytes) {
        record.object("traffic").number("bytes_in", *event.bytes);
        bytes_mapped = true;
      }
      break;
    }
    case 3002: {  // Authentication: user is required, here unknown unless a caller was named
      {
        auto user = record.object("user");
        if (event.actor.caller.empty()) {
          user.number("type_id", 0);
          user.string("type", "Unknown");
        } else {
          user.string("name", event.actor.caller);
        }
      }
      if (has_address) record.object("src_endpoint").string("ip", event.actor.address);
      if (!event.actor.session.empty()) record.object("session").string("uid", event.actor.session);
      if (!event.http_method.empty() || !event.http_path.empty()) {
        auto request = record.object("http_request");
        write_http_request(request, event);
      }
      http_mapped = true;  // but http_status, which has no attribute here: under unmapped, first
      break;
    }
    case 4002: {  // HTTP Activity: http_request, http_response and dst_endpoint are required
      {
        auto request = record.object("http_request");
        write_http_request(request, event);
      }
      record.object("http_response").number("code", event.http_status);
      record.object("dst_endpoint").string("hostname", context.host_name);
      http_mapped = true;
      if (has_address) record.object("src_endpoint").string("ip", event.actor.address);
      if (has_actor(event)) {
        auto actor = record.object("actor");
        write_actor(actor, event);
      }
      break;
    }
    case 6002: {  // Application Lifecycle: app is required
      {
        auto app = record.object("app");
        write_lifecycle_app(app, event, context);
      }
      if (has_actor(event)) {
        auto actor = record.object("actor");
        write_actor(actor, event);
      }
      break;
    }
    case 1008: {  // Event Log Activity: System Activity requires actor and device
      record.object("actor").string("app_name", "airlock");
      {
        auto device = record.object("device");
        device.string("hostname", context.host_name);
        device.number("type_id", 1);
        device.string("type", "Server");
      }
      record.string("log_name", "audit");
      record.string("log_provider", "airlock");
      break;
    }
    default:
      break;
  }
  if (event.duration)
    record.number("duration",
                  std::int64_t{std::chrono::duration_cast<std::chrono::milliseconds>(*event.duration).count()});

  // What the class has no attribute for.
  auto unmapped = record.object("unmapped");
  if (activity.class_uid == 3002 && event.http_status != 0) unmapped.number("http_status", event.http_status);
  if (!event.actor.transport.empty()) unmapped.string("transport", event.actor.transport);
  if (!protocol_mapped && !event.actor.protocol.empty()) unmapped.string("protocol", event.actor.protocol);
  if (!request_mapped && !event.actor.request.empty()) unmapped.string("request_id", event.actor.request);
  if (!destination_mapped) {
    if (!event.destination.empty()) unmapped.string("destination", event.destination);
    if (!event.address.empty()) unmapped.string("address", event.address);
  }
  if (!http_mapped) {
    if (!event.http_method.empty()) unmapped.string("http_method", event.http_method);
    if (!event.http_path.empty()) unmapped.string("http_path", event.http_path);
    if (event.http_status != 0) unmapped.number("http_status", event.http_status);
  }
  // API Activity names its subject in resources; the other classes have no
  // attribute that means "what airlock acted on" in every case (app.name
  // and actor.app_name carry it only where it is that), so it is kept here
  // too, where one query finds it whatever the class.
  if (activity.class_uid != 6003 && !event.subject.empty()) unmapped.string("subject", event.subject);
  if (!event.reason.empty()) unmapped.string("reason", event.reason);
  if (event.bytes && !bytes_mapped) unmapped.number("bytes", *event.bytes);
  if (event.duration) unmapped.number("duration_us", std::int64_t{event.duration->count()});
  if (has_detail(event)) {
    auto detail = unmapped.object("detail");
    write_detail(detail, event);
  }
  // Last, so the link is the end of the line.
  {
    auto chain = unmapped.object("airlock_chain");
    chain.string("replica", link.replica);
    chain.number("seq", link.seq);
    chain.string("prev", link.prev);
  }
  unmapped.end();
  record.end();
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
