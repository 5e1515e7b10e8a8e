// The walk over one parsed airlock.toml: ConfigReader and the value checks
// its section readers share. Internal to host/config. config_reader.cpp holds
// the walk, the value readers and the problems; value_syntax.cpp the syntax
// of hosts, origins, identities and URLs; each *_section.cpp one area of the
// file ([server], [transport.http], [plugins] and its neighbours, [egress],
// [tasks], [audit], [auth], the chains and bindings).
#pragma once

#include "config/host_config.hpp"
#include "util/sha256.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <toml++/toml.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace airlock::host::config_reading {
namespace fs = std::filesystem;
namespace json = boost::json;

inline constexpr std::int64_t kNoUpperLimit = std::numeric_limits<std::int64_t>::max();

template <class T>
struct Choice {
  std::string_view name;
  T value;
};

inline constexpr std::array<Choice<std::string_view>, 6> kLogLevels{{{"trace", "trace"},
                                                              {"debug", "debug"},
                                                              {"info", "info"},
                                                              {"warn", "warn"},
                                                              {"error", "error"},
                                                              {"off", "off"}}};
inline constexpr std::array<Choice<Mirror>, 2> kMirrors{{{"text", Mirror::text}, {"none", Mirror::none}}};
inline constexpr std::array<Choice<OnPluginError>, 2> kOnPluginError{
    {{"fail", OnPluginError::fail}, {"skip", OnPluginError::skip}}};
inline constexpr std::array<Choice<IsolationMode>, 2> kIsolationMode{
    {{"process", IsolationMode::process}, {"in-process", IsolationMode::in_process}}};
inline constexpr std::array<Choice<OnDefinitionChange>, 2> kOnDefinitionChange{
    {{"refuse", OnDefinitionChange::refuse}, {"warn", OnDefinitionChange::warn}}};
inline constexpr std::array<Choice<HttpResponseMode>, 2> kResponseModes{
    {{"sse", HttpResponseMode::sse}, {"json", HttpResponseMode::json}}};
inline constexpr std::array<Choice<AuditSinkKind>, 3> kAuditSinks{{{"file", AuditSinkKind::file},
                                                            {"stderr", AuditSinkKind::stderr_stream},
                                                            {"syslog", AuditSinkKind::syslog}}};
inline constexpr std::array<Choice<AuditFormat>, 2> kAuditFormats{
    {{"ocsf", AuditFormat::ocsf}, {"cef", AuditFormat::cef}}};

// Chain names share TOML's bare-key alphabet, so a chain can always be named
// without quotes, and a key in that alphabet is shown without them.
bool is_plain_name(std::string_view name);

// JSON string syntax is TOML basic-string syntax for everything a key can hold.
inline std::string quote(std::string_view text) { return json::serialize(json::string_view(text)); }

// A key as it would be written in a dotted path: acme, or "acme.search".
std::string key_text(std::string_view key);

// A value as toml++ writes it: 4.5, true, 1979-05-27T07:32:00Z.
std::string toml_text(const toml::node& node);

// The value that was found, for "expected ..., got <this>".
std::string value_text(const toml::node& node);

template <class T, std::size_t N>
std::string choices_text(const std::array<Choice<T>, N>& choices) {
  std::string text;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) text += (i + 1 == N) ? " or " : ", ";
    text += quote(choices[i].name);
  }
  return text;
}

std::string integer_range_text(std::int64_t min, std::int64_t max);

bool is_port(std::string_view port);

std::string number_range_text(std::int64_t min, std::int64_t max);

// "HOST:PORT" or "[v6]:PORT". The host itself is left to the resolver; an
// unbracketed host with a colon is refused because its port would be ambiguous.
bool is_listen_address(std::string_view address);

std::string lowercase(std::string_view text);

// A DNS name or IPv4 address as a Host header carries it (RFC 3986 reg-name
// narrowed to what names really use); IPv6 comes in brackets, handled apart.
bool is_host_name(std::string_view host);

bool is_ipv6_literal(std::string_view address);

// "host", "host:port", "[v6]" or "[v6]:port", the forms of a Host header
// (RFC 9110 7.2); lowercased, as names compare without case.
std::optional<std::string> host_and_port(std::string_view text);

// "scheme://host[:port]" as a browser sends it in Origin (RFC 6454): no path,
// no trailing slash; lowercased.
std::optional<std::string> origin(std::string_view text);

// An identity names the caller in logs and metric labels, so it keeps to a
// small alphabet that needs no quoting anywhere.
bool is_identity(std::string_view name);

inline constexpr std::size_t kMaxReadFile = std::size_t{1} << 20;

// The asymmetric JWS algorithms an access token may be signed with (RFC 7518 3.1).
inline constexpr std::array<std::string_view, 9> kJwsAlgorithms = {"RS256", "RS384", "RS512", "PS256", "PS384",
                                                             "PS512", "ES256", "ES384", "ES512"};

// scope-token = 1*( %x21 / %x23-5B / %x5D-7E ) (RFC 6749 3.3).
bool is_scope_token(std::string_view scope);

// "http(s)://authority[/path]" with no fragment; `query` says whether a query may follow.
bool is_web_url(std::string_view url, bool query);

inline bool is_resource_url(std::string_view url) { return is_web_url(url, true); }

// An issuer (RFC 8414 2): https with no query or fragment; http only for a
// loopback host, which tests and a sidecar authorization server use.
bool is_issuer_url(std::string_view url);

Result<std::string> read_file(const fs::path& file);

// Leaves no copy of a secret in memory that is about to be freed.
void wipe(std::string& secret);

json::object to_json_object(const toml::table& table);

json::value to_json(const toml::node& node);

// A problem found in the document; only the earliest one is reported.
struct Problem {
  std::uint32_t line;
  std::uint32_t column;
  std::string message;
};

// Walks one parsed document into a Config, recording every problem it meets.
class ConfigReader {
 public:
  explicit ConfigReader(const fs::path& file) : file_(file.string()) {
    std::error_code ec;
    config_.file = fs::absolute(file, ec).lexically_normal();
    if (ec) config_.file = file.lexically_normal();
  }

  // One use per reader: the Config is moved out.
  Result<Config> read(const toml::table& root) &&;

 private:
  // server_section.cpp
  void read_server(const toml::table& table);

  // http_section.cpp
  void read_transport(const toml::table& table);
  void read_http(const toml::table& table);

  // Each element of `node` through `normalize`, which returns the stored form
  // or nothing when the text is not the `expected` kind of address.
  template <class Normalize>
  std::vector<std::string> address_list(const toml::node& node, const std::string& path,
                                        Normalize normalize, std::string_view expected) {
    std::vector<std::string> list;
    for (auto& [text, where] : string_list(node, path)) {
      if (auto normalized = normalize(text)) {
        list.push_back(std::move(*normalized));
      } else {
        report(where, "expected " + std::string(expected) + ", got " + quote(text));
      }
    }
    return list;
  }

  // [[transport.http.tokens]]: an array of tables, one per bearer token.
  void read_tokens(const toml::node& node);

  // False when the token is unusable; its problems are reported.
  bool read_token(const toml::table& table, const std::string& path, TokenConfig& token);

  // Reads a token file (relative to the config file) and keeps only the
  // digest; the plaintext is wiped before it is freed.
  std::optional<Sha256Digest> token_file_digest(const std::string& name, const SourcePlace& where);

  // Identities and tokens are both unique: an identity names one caller in
  // logs and limits, and a token must say which caller presented it.
  void add_token(TokenConfig token);

  // plugin_sections.cpp ([pinning] and [plugin."<name>"] below)
  void read_plugins(const toml::table& table);

  // [isolation]. An in_process entry is a directory when it holds a '/',
  // else the name of a pack.
  void read_isolation(const toml::table& table);

  // [trust]. A key is checked where packs decode it (host/packs), which
  // names this place; here only a file it names must be readable.
  void read_trust(const toml::table& table);

  // tasks_section.cpp, audit_section.cpp, auth_section.cpp
  void read_tasks(const toml::table& table);
  void read_audit(const toml::table& table);
  void read_auth(const toml::table& table);
  void read_oauth(const toml::table& table);

  // plugin_sections.cpp
  void read_pinning(const toml::table& table);

  // binding_sections.cpp
  void read_chains(const toml::table& chains);
  void read_chain(const std::string& name, const toml::table& table, const std::string& path);
  void read_tools(const toml::table& tools);
  void read_binding(const std::string& pattern, const toml::table& table,
                    const std::string& path);

  // egress_section.cpp
  // [egress] and its [egress.hosts] resolver table.
  void read_egress(const toml::table& table);

  // binding_sections.cpp
  // [resources."<uri glob>"] or [prompts."<name glob>"]: `chain` only.
  void read_content_bindings(const toml::table& bindings, const std::string& kind,
                             std::vector<ContentBinding>& out);

  // plugin_sections.cpp
  void read_plugin_settings(const toml::table& plugins);

  // binding_sections.cpp
  // Checked against the document rather than config_.chains, so a chain that
  // is declared but invalid is reported once, for what is wrong with it.
  void check_chain_references(const toml::table& root);

  // config_reader.cpp
  // --- values: each returns the value, or records why not and returns nothing

  const toml::table* table_value(const toml::node& node, const std::string& path);
  std::optional<std::string> string_value(const toml::node& node, const std::string& path);
  std::optional<std::int64_t> integer_value(const toml::node& node, const std::string& path,
                                            std::int64_t min, std::int64_t max);

  template <class T>
  void set_integer(const toml::node& node, const std::string& path, std::int64_t min,
                   std::int64_t max, T& field) {
    if (auto value = integer_value(node, path, min, max)) field = static_cast<T>(*value);
  }

  // An integer or a float; written so that NaN fails the range check too.
  std::optional<double> number_value(const toml::node& node, const std::string& path,
                                     std::int64_t min, std::int64_t max);
  std::optional<bool> bool_value(const toml::node& node, const std::string& path);

  template <class T, std::size_t N>
  std::optional<T> choice_value(const toml::node& node, const std::string& path,
                                const std::array<Choice<T>, N>& choices) {
    if (const auto* text = node.as_string()) {
      for (const auto& choice : choices)
        if (choice.name == text->get()) return choice.value;
    }
    report(place(node, path), "expected " + choices_text(choices) + ", got " + value_text(node));
    return std::nullopt;
  }

  // An array of non-empty strings, each with where it was written. Problems
  // drop the offending elements; the result is discarded anyway.
  std::vector<std::pair<std::string, SourcePlace>> string_list(const toml::node& node,
                                                               const std::string& path);

  // --- places and problems

  fs::path resolve(const std::string& dir) const;
  SourcePlace place(const toml::source_region& region, std::string path) const;
  SourcePlace place(const toml::node& node, std::string path) const;

  // "<file>:<line>:<column>: <key>: <what>"
  void report(const SourcePlace& where, std::string_view what);

  // "<file>:<line>:<column>: unknown key '<key>' in [<table>]"; the root has no table.
  void report_unknown_key(const toml::key& key, std::string_view table,
                          std::string_view hint = {});

  std::string file_;  // as given, for messages
  Config config_;
  std::vector<Problem> problems_;
};

}  // namespace airlock::host::config_reading
