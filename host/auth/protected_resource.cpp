#include "auth/protected_resource.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

namespace airlock::host {
namespace {

constexpr std::string_view kWellKnown = "/.well-known/oauth-protected-resource";

// Where the authority of an absolute URL ends (its path, query or the end).
std::size_t authority_end(std::string_view url) {
  const auto start = url.find("://");
  const auto from = start == std::string_view::npos ? 0 : start + 3;
  const auto end = url.find_first_of("/?#", from);
  return end == std::string_view::npos ? url.size() : end;
}

// RFC 6750 3: quoted values hold %x20-21 / %x23-5B / %x5D-7E.
std::string quotable(std::string_view text) {
  std::string out;
  for (const char c : text)
    if (c >= 0x20 && c <= 0x7e && c != '"' && c != '\\') out.push_back(c);
  return out;
}

}  // namespace

std::string metadata_path(std::string_view resource) {
  std::string_view path = resource.substr(authority_end(resource));
  path = path.substr(0, path.find_first_of("?#"));
  if (path == "/") path = {};
  return fmt::format("{}{}", kWellKnown, path);
}

std::string metadata_url(std::string_view resource) {
  return fmt::format("{}{}", resource.substr(0, authority_end(resource)), metadata_path(resource));
}

std::string resource_identifier(const OAuthConfig& config, std::string_view host, std::string_view mcp_path) {
  if (!config.resource.empty()) return config.resource;
  return fmt::format("http://{}{}", host, mcp_path);
}

bool is_metadata_path(std::string_view path, std::string_view resource) {
  return path == kWellKnown || path == metadata_path(resource);
}

std::string metadata_document(const OAuthConfig& config, std::string_view resource, std::string_view name) {
  boost::json::object document;
  document["resource"] = resource;
  boost::json::array servers;
  for (const auto& issuer : config.authorization_servers) servers.emplace_back(issuer);
  document["authorization_servers"] = std::move(servers);
  boost::json::array scopes;
  for (const auto& [scope, globs] : config.scopes) scopes.emplace_back(scope);
  document["scopes_supported"] = std::move(scopes);
  document["bearer_methods_supported"] = boost::json::array{"header"};
  document["resource_name"] = name;
  return boost::json::serialize(document);
}

std::string bearer_challenge(std::string_view resource, std::string_view error, std::string_view description,
                             std::string_view scope) {
  std::string challenge = "Bearer ";
  if (!error.empty()) {
    challenge += fmt::format("error=\"{}\", ", quotable(error));
    if (!description.empty()) challenge += fmt::format("error_description=\"{}\", ", quotable(description));
  }
  if (!scope.empty()) challenge += fmt::format("scope=\"{}\", ", quotable(scope));
  challenge += fmt::format("resource_metadata=\"{}\"", quotable(metadata_url(resource)));
  return challenge;
}

}  // namespace airlock::host
