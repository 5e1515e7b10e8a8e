// subscriptions/listen (2026-07-28): the one request a server holds open.
// Its first message acknowledges what it will deliver; then every list
// change and resource update it asked for goes out on it, each carrying the
// listen's id as the subscription id, until the client cancels it (closing
// the HTTP response, or notifications/cancelled on stdio) or the server
// ends it with its result.
#include "mcp/session.hpp"

#include "mcp/protocol.hpp"
#include "util/json_text.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>

namespace airlock::host {

struct Session::Listen {
  boost::json::value id;  // the request's, also the subscription id (same JSON type)
  std::string key;        // the id as JSON text: the stream it travels on
  bool tools = false;
  bool prompts = false;
  bool resources = false;
  std::set<std::string, std::less<>> uris;
};

namespace {

bool asked(const boost::json::object& wanted, std::string_view name) {
  const auto* v = wanted.if_contains(name);
  return v && v->is_bool() && v->get_bool();
}

std::string with_subscription(std::string_view method, boost::json::object params, const boost::json::value& id) {
  params["_meta"] = boost::json::object{{kMetaSubscriptionId, id}};
  return to_json(boost::json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

}  // namespace

void Session::on_listen(jsonrpc::Message& m, const Scope& scope) {
  (void)scope;
  const auto& params = m.params.get_object();
  const auto* wanted_value = params.if_contains("notifications");
  if (wanted_value && !wanted_value->is_object())
    return reply_error(m.id, jsonrpc::kInvalidParams,
                       "invalid params: subscriptions/listen: notifications must be an object");
  static const boost::json::object kNothing;
  const auto& wanted = wanted_value ? wanted_value->get_object() : kNothing;

  auto listen = std::make_shared<Listen>();
  listen->id = boost::json::value(m.id, boost::json::storage_ptr());
  listen->key = to_json(m.id);
  const bool resources = catalog_ && catalog_->serves_resources();
  listen->tools = asked(wanted, "toolsListChanged");
  listen->prompts = asked(wanted, "promptsListChanged") && catalog_ && catalog_->serves_prompts();
  listen->resources = asked(wanted, "resourcesListChanged") && resources;
  boost::json::object honoured;
  if (listen->tools) honoured["toolsListChanged"] = true;
  if (listen->prompts) honoured["promptsListChanged"] = true;
  if (listen->resources) honoured["resourcesListChanged"] = true;
  if (const auto* uris = wanted.if_contains("resourceSubscriptions"); uris && resources) {
    if (!uris->is_array())
      return reply_error(m.id, jsonrpc::kInvalidParams,
                         "invalid params: subscriptions/listen: notifications.resourceSubscriptions must be an array "
                         "of URIs");
    boost::json::array kept;
    for (const auto& uri : uris->get_array())
      if (uri.is_string() && catalog_->resolve(uri.get_string())) {
        listen->uris.emplace(uri.get_string());
        kept.push_back(uri);
      }
    honoured["resourceSubscriptions"] = std::move(kept);
  }
  {
    std::lock_guard lock(calls_mutex_);
    if (closed_) return;
  }
  // Acknowledged before it is registered, so no change can overtake the
  // acknowledgement on the stream.
  send_(with_subscription("notifications/subscriptions/acknowledged",
                          boost::json::object{{"notifications", std::move(honoured)}}, listen->id),
        Outbound{listen->key, false});
  {
    std::lock_guard lock(listens_mutex_);
    listens_.push_back(listen);
  }
  if (catalog_ && !catalog_listening_.exchange(true)) catalog_->add_listener(this);
}

void Session::notify_listens(ContentList list) {
  const char* method = list == ContentList::resources ? "notifications/resources/list_changed"
                       : list == ContentList::prompts ? "notifications/prompts/list_changed"
                                                      : "notifications/tools/list_changed";
  std::lock_guard lock(listens_mutex_);
  for (const auto& listen : listens_) {
    const bool wanted = list == ContentList::resources ? listen->resources
                        : list == ContentList::prompts ? listen->prompts
                                                       : listen->tools;
    if (wanted) send_(with_subscription(method, {}, listen->id), Outbound{listen->key, false});
  }
}

void Session::notify_listens_updated(std::string_view uri) {
  std::lock_guard lock(listens_mutex_);
  for (const auto& listen : listens_)
    if (listen->uris.contains(uri))
      send_(with_subscription("notifications/resources/updated", boost::json::object{{"uri", uri}}, listen->id),
            Outbound{listen->key, false});
}

bool Session::cancel_listen(std::string_view key) {
  std::shared_ptr<Listen> ended;
  {
    std::lock_guard lock(listens_mutex_);
    auto it = std::find_if(listens_.begin(), listens_.end(), [&](const auto& l) { return l->key == key; });
    if (it == listens_.end()) return false;
    ended = *it;
    listens_.erase(it);
  }
  // A cancelled request is not answered; the transport ends its stream.
  send_(std::string(), Outbound{ended->key, true});
  return true;
}

void Session::end_listens() {
  std::vector<std::shared_ptr<Listen>> ended;
  {
    std::lock_guard lock(listens_mutex_);
    ended.swap(listens_);
  }
  for (const auto& listen : ended) {
    boost::json::object result{{"resultType", "complete"},
                               {"_meta", boost::json::object{{kMetaSubscriptionId, listen->id}}}};
    send_(jsonrpc::result(listen->id, to_json(result)), Outbound{listen->key, true});
  }
}

}  // namespace airlock::host
