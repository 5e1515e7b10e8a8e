// [auth.oauth]: the HTTP transport as an OAuth 2.1 resource server.
#include "config/config_reader.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace airlock::host::config_reading {

void ConfigReader::read_auth(const toml::table& table) {
  for (const auto& [key, node] : table) {
    if (key.str() == "oauth") {
      if (const auto* oauth = table_value(node, "auth.oauth")) read_oauth(*oauth);
    } else {
      report_unknown_key(key, "auth");
    }
  }
}

void ConfigReader::read_oauth(const toml::table& table) {
  auto& oauth = config_.oauth;
  oauth.enabled = true;
  oauth.place = place(table, "auth.oauth");
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const std::string path = "auth.oauth." + key_text(name);
    if (name == "resource") {
      auto value = string_value(node, path);
      if (value && !is_resource_url(*value)) {
        report(place(node, path), "expected an absolute http or https URL without a fragment, got " + quote(*value));
      } else if (value) {
        oauth.resource = std::move(*value);
      }
    } else if (name == "authorization_servers") {
      for (auto& [text, where] : string_list(node, path)) {
        if (!is_issuer_url(text)) {
          report(where, "expected an issuer URL, https (or http on a loopback host) without a query or "
                        "fragment, got " + quote(text));
        } else if (std::find(oauth.authorization_servers.begin(), oauth.authorization_servers.end(), text) !=
                   oauth.authorization_servers.end()) {
          report(where, quote(text) + " is listed twice");
        } else {
          oauth.authorization_servers.push_back(std::move(text));
        }
      }
    } else if (name == "algorithms") {
      for (auto& [text, where] : string_list(node, path)) {
        if (std::find(kJwsAlgorithms.begin(), kJwsAlgorithms.end(), text) == kJwsAlgorithms.end()) {
          report(where, "expected one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512 (symmetric "
                        "and unsigned tokens are never accepted), got " + quote(text));
        } else {
          oauth.algorithms.push_back(std::move(text));
        }
      }
    } else if (name == "leeway_s") {
      set_integer(node, path, 0, 300, oauth.leeway_s);
    } else if (name == "jwks_refresh_min_s") {
      set_integer(node, path, 0, 86'400, oauth.jwks_refresh_min_s);
    } else if (name == "fetch_timeout_ms") {
      set_integer(node, path, 100, 60'000, oauth.fetch_timeout_ms);
    } else if (name == "fetch_addresses") {
      for (auto& [text, where] : string_list(node, path)) {
        if (auto range = parse_address_range(text)) {
          oauth.fetch_addresses.push_back(std::move(*range));
        } else {
          report(where, range.error().message);
        }
      }
    } else if (name == "scopes") {
      if (const auto* scopes = table_value(node, path)) {
        for (const auto& [scope_key, globs] : *scopes) {
          const std::string scope(scope_key.str());
          const std::string scope_path = path + "." + key_text(scope);
          if (!is_scope_token(scope)) {
            report(place(scope_key.source(), scope_path),
                   "a scope is 1 or more printable ASCII characters other than space, '\"' and '\\' "
                   "(RFC 6749 3.3), got " + quote(scope));
            continue;
          }
          auto& granted = oauth.scopes[scope];
          const auto* kinds = globs.as_table();
          if (!kinds) {
            for (auto& glob : string_list(globs, scope_path)) granted.tools.push_back(std::move(glob.first));
            continue;
          }
          for (const auto& [kind, list] : *kinds) {
            const std::string kind_path = scope_path + "." + key_text(kind.str());
            auto* into = kind.str() == "tools"       ? &granted.tools
                         : kind.str() == "resources" ? &granted.resources
                         : kind.str() == "prompts"   ? &granted.prompts
                                                     : nullptr;
            if (!into) {
              report_unknown_key(kind, scope_path, " (a scope grants tools, resources and prompts)");
              continue;
            }
            for (auto& glob : string_list(list, kind_path)) into->push_back(std::move(glob.first));
          }
        }
      }
    } else {
      report_unknown_key(key, "auth.oauth");
    }
  }
  if (!table.contains("authorization_servers"))
    report(oauth.place, "missing key 'authorization_servers': a resource server needs the issuers whose tokens it "
                        "accepts");
  if (oauth.algorithms.empty()) oauth.algorithms.assign(kJwsAlgorithms.begin(), kJwsAlgorithms.end());
}

}  // namespace airlock::host::config_reading
