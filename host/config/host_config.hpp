// Reads airlock.toml into plain structs and checks everything that can be
// checked without loading a plugin.
#pragma once

// Grants as plain data: not the policy that applies them, nor Asio.
#include "egress/address_range.hpp"
#include "egress/egress_rule.hpp"
#include "util/error.hpp"

#include <boost/json/object.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace airlock::host {

// Where a value was written, so errors found after loading (a chain naming an
// unknown sanitizer) can still name the file, line and key.
struct SourcePlace {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::string key;  // dotted path, e.g. "chains.default.steps[2]"

  // "airlock.toml:12:5" (file as given, line, column): the prefix of every
  // config error message; callers append ": <key>: <what>".
  std::string describe() const;
};

enum class OnPluginError { fail, skip };
enum class Mirror { text, none };

struct ServerConfig {
  std::string name = "airlock";
  std::string log_level = "info";          // trace|debug|info|warn|error|off
  std::size_t max_message_bytes = 4u << 20;  // one stdio line / one HTTP body
  std::uint32_t workers = 4;               // tool-call threads
  std::uint32_t queue_capacity = 1024;     // queued calls before "busy"
  std::uint32_t page_size = 100;           // tools/list page
  Mirror mirror = Mirror::text;
  std::size_t max_result_bytes = 1u << 20;  // serialized CallToolResult; text is cut past it
  std::uint32_t sanitizer_timeout_ms = 1000;  // one step; a slower step withholds the result
  // 2026-07-28: how long clients may cache discover and list results.
  std::uint32_t list_ttl_ms = 60000;  // 0 to 86'400'000
  // The key that seals multi round-trip requestState: 32 bytes, raw or
  // base64. Replicas that share it serve each other's retries; without it a
  // key is generated at start and retries must reach this process.
  std::optional<std::filesystem::path> request_state_key_file;
  std::uint32_t request_state_ttl_s = 600;  // how long a client has to answer; 1 to 86400
};

// [[transport.http.tokens]]: one bearer token, who it stands for, and what
// it may reach. The token itself is never kept: only its SHA-256, given in
// the config or hashed at load from a file (whose plaintext is then wiped).
// Identities and digests are both unique across tokens.
struct TokenConfig {
  // [A-Za-z0-9._@-]{1,64}; names the caller in logs, metrics and rate limits
  std::string identity;
  std::array<std::uint8_t, 32> sha256{};  // from `sha256 = "<hex>"` or hashed from `file`
  std::vector<std::string> tools;         // globs; empty: every tool
  SourcePlace place;                      // the [[transport.http.tokens]] header
};

// How a POST that carries a request is answered when the client accepts both.
enum class HttpResponseMode { sse, json };

// [transport.http]. Each comment gives the range checked at load.
struct HttpConfig {
  std::optional<std::string> listen;  // "HOST:PORT" or "[IPV6]:PORT"
  std::string path = "/mcp";          // starts with '/'
  HttpResponseMode response = HttpResponseMode::sse;  // "sse" | "json"
  bool standalone_stream = true;      // GET opens the server->client stream; false: 405
  std::uint32_t io_threads = 1;       // 1..64
  // Host must name one of these: "host", "host:port", "[v6]" or "[v6]:port",
  // lowercased at load (a pattern without a port matches any port). Empty:
  // the loopback names of the bound address (localhost, 127.0.0.1, [::1]).
  std::vector<std::string> allowed_hosts;
  // Origin, when sent, must be one of these: "scheme://host[:port]",
  // lowercased at load, no path. Empty: http(s) with an allowed host.
  std::vector<std::string> allowed_origins;
  std::vector<TokenConfig> tokens;            // empty: no authentication
  bool allow_unauthenticated_remote = false;  // serve a non-loopback address with no tokens
  std::uint32_t max_sessions = 10'000;        // 1..1e6 live sessions; past it, 503
  // 1..604800; an unused session expires (404 afterwards)
  std::uint32_t session_idle_timeout_s = 1800;
  std::uint32_t max_connections = 1024;      // 1..1e6; past it, 503 and close
  std::size_t max_header_bytes = 16u << 10;  // 1 KiB..1 MiB; 431 past it
  std::uint32_t read_timeout_ms = 10'000;    // 100..3600000: whole request (headers + body); 408
  std::uint32_t idle_timeout_ms = 60'000;    // 100..3600000: an idle keep-alive connection closes
  // 65536..2^40: bodies over 64 KiB held at once, all connections; past it a
  // body waits unread (transport/http/body_budget.hpp); a larger one runs alone
  std::size_t max_body_bytes_in_flight = 1u << 20;
  double rate_limit = 0;         // 0..1e6 requests per second per identity; 0: unlimited (429)
  std::uint32_t rate_burst = 0;  // 0..1e6 bucket size; 0: max(1, ceil(rate_limit))
  std::size_t replay_bytes = 4u << 20;       // 1 KiB..1 GiB of SSE events kept per session
  std::uint32_t sse_retry_ms = 1000;         // 0..600000: the `retry:` a client waits to resume
  std::uint32_t shutdown_grace_ms = 10'000;  // 0..600000: SIGTERM gives in-flight calls this long
  bool access_log = true;                    // one line per request at info
};

// [egress]: how the host's fetch (ABI 1.4 call_fetch) behaves for every
// tool. What each tool may reach is its binding's `egress`.
struct EgressConfig {
  // Each a default and a ceiling: a tool may ask for less, never more.
  std::uint32_t timeout_ms = 30'000;              // 1..3600000: a fetch, all hops together
  std::uint64_t max_response_bytes = 8u << 20;    // 1..1 GiB: body bytes kept
  std::uint32_t max_redirects = 5;                // 0..20 hops a fetch may follow
  // [egress.hosts]: names the host's resolver answers itself, lowercased:
  // "name" = ["address", ...]. Pins a name without touching /etc/hosts; the
  // answers are checked like any other. Each address as written, checked at
  // load; host_overrides() (egress/resolver.hpp) reads them for the resolver.
  std::map<std::string, std::vector<std::string>> hosts;
};

struct PluginsConfig {
  std::vector<std::filesystem::path> dirs;  // absolute: relative ones resolved against the file
  OnPluginError on_error = OnPluginError::fail;
  // Run the fast subset of the contract checks (host/check) on every
  // sanitizer a plugin registers, and refuse the plugin when one fails.
  bool require_check = false;
};

// How a plugin runs (host/isolation): in a confined worker process of its
// own, or inside the server, which trusts it with everything the server has.
enum class IsolationMode { process, in_process };

// [isolation]: which plugins run in worker processes, and each worker's
// limits. airlock's own plugin directory runs in-process unless `mode` or
// the AIRLOCK_ISOLATION environment variable says otherwise.
struct IsolationConfig {
  IsolationMode mode = IsolationMode::process;  // every plugin outside airlock's own directory
  // Directories (as in [plugins] dirs) and pack names the operator trusts to
  // run inside the server.
  std::vector<std::filesystem::path> in_process_dirs;
  std::vector<std::string> in_process_packs;
  std::uint32_t memory_mb = 1024;        // each worker's address space (RLIMIT_AS)
  std::uint32_t max_workers = 4;         // calls one worker runs at once
  std::uint32_t cancel_grace_ms = 1000;  // a cancelled call that keeps running past this: the worker is killed
  std::uint32_t max_backoff_ms = 30'000; // a worker that keeps crashing waits at most this long to restart
  // [isolation.plugins."<file>.so"]: one plugin's own limits, by its file
  // name (known before the plugin runs, unlike the name it gives itself).
  struct Limits {
    std::optional<std::uint32_t> memory_mb;
    std::optional<std::uint32_t> max_workers;
  };
  std::map<std::string, Limits> plugins;
};

// One key of [trust] keys: a minisign public key. Written inline (the
// base64 line) or as a path to a .pub file, whose text is read at load.
struct TrustedKey {
  std::string text;  // the inline value, or the file's whole text
  SourcePlace place;
};

// [trust]: whose tool packs the host loads (host/packs). A pack's
// pack.toml.minisig must verify against one of `keys`; digests in pack.toml
// must match the shared objects whatever this says.
struct TrustConfig {
  std::vector<TrustedKey> keys;
  // Refuse unsigned packs, packs signed by an unknown key, and loose .so
  // files outside unsigned_dirs.
  bool require_signed = false;
  // Directories the package manager owns, whose loose .so files load even
  // under require_signed (the first-party plugins).
  std::vector<std::filesystem::path> unsigned_dirs;
  SourcePlace place;  // the [trust] table
};

// What a pinned tool whose definition changed gets (host/pins).
enum class OnDefinitionChange { refuse, warn };

// [pinning]: a digest of each tool's definition (name, description,
// inputSchema, outputSchema), recorded on first sight in `file` and compared
// on every start, so a plugin update cannot silently change what the model is
// told.
struct PinningConfig {
  std::optional<std::filesystem::path> file;  // absent: no pinning
  OnDefinitionChange on_definition_change = OnDefinitionChange::refuse;
  SourcePlace place;  // the [pinning] table
};

// [tasks]: durable tasks (MCP 2025-11-25 tasks, 2026-07-28's tasks
// extension), kept in a store several servers may share.
struct TasksConfig {
  bool enabled = true;
  // A SQLite file, or a postgresql:// URI. Empty: tasks.db in
  // $STATE_DIRECTORY (systemd), else beside the config file.
  std::string store;
  std::int64_t ttl_ms = 3'600'000;        // how long a task is kept; 1000 to 30 days
  std::int64_t poll_interval_ms = 500;    // what clients are told to poll at; 50 to 60000
  std::string node_id;                    // this server in the store; empty: hostname and port / pid
};

struct ChainConfig {
  std::string name;
  std::vector<std::string> steps;  // sanitizer names, in the order written
  std::vector<SourcePlace> step_places;
  SourcePlace place;
};

// [tools."<name or glob>"]: binds settings to every tool whose name matches.
struct ToolBinding {
  std::string pattern;                   // exact name or glob with '*' and '?'
  std::optional<std::string> chain;      // chain name
  std::optional<std::uint32_t> timeout_ms;
  std::optional<Mirror> mirror;
  std::optional<std::size_t> max_result_bytes;
  // Where the tool may reach through the host's fetch; absent: nowhere (or
  // what a later matching binding grants). `egress_addresses` belongs to the
  // same table: special ranges (loopback, private, metadata...) it grants.
  std::optional<std::vector<EgressRule>> egress;
  std::vector<AddressRange> egress_addresses;
  SourcePlace place;
  SourcePlace chain_place;
};

// [resources."<uri glob>"] and [prompts."<name glob>"]: the chain that what
// a matching resource read or prompt get returns passes (ABI 1.3 content).
// The first match in file order wins; unbound content takes the "default"
// chain, and chain = "none" opts out of every chain.
struct ContentBinding {
  std::string pattern;               // exact URI / name, or glob with '*' and '?'
  std::optional<std::string> chain;  // chain name
  SourcePlace place;
  SourcePlace chain_place;
};

// [audit] (issue 21): the trail a security team reads. Off unless the table
// is present.
enum class AuditFormat { ocsf, cef };
enum class AuditSinkKind { file, stderr_stream, syslog };

struct AuditConfig {
  bool enabled = false;  // an [audit] table was given
  AuditSinkKind sink = AuditSinkKind::file;  // "file" | "stderr" | "syslog"
  std::filesystem::path file;                // sink = "file": required; reopened on SIGHUP
  std::filesystem::path syslog_socket = "/dev/log";  // sink = "syslog": a UNIX datagram socket (RFC 5424)
  AuditFormat format = AuditFormat::ocsf;    // "ocsf" | "cef"
  std::uint32_t queue = 8192;                // records waiting for the writer; 16..1048576
  std::uint32_t checkpoint_interval_s = 300;  // 1..86400; a checkpoint is also written at stop
  // The Ed25519 key that signs checkpoints: its 32-byte seed, raw or base64.
  // Without it checkpoints still hold the chain's head, unsigned.
  std::optional<std::filesystem::path> signing_key_file;
  // Argument values beside their digest, after the redact-secrets patterns
  // (the built-ins and the [plugin."airlock-redact-secrets"] ones).
  bool record_arguments = false;
  std::string replica;  // names this server's chain; empty: the host name
};

// What one OAuth scope grants: globs over tool names, resource URIs (a
// template is listed when a glob matches its uriTemplate text) and prompt
// names. `scope = ["glob", ...]` grants tools only; a table names all three.
struct ScopeGrant {
  std::vector<std::string> tools;
  std::vector<std::string> resources;
  std::vector<std::string> prompts;
};

// [auth.oauth] (issue 22): the HTTP transport as an OAuth 2.1 resource
// server (RFC 9728 metadata, RFC 9068 JWT access tokens). Off unless the
// table is present; [[transport.http.tokens]] keep working beside it.
struct OAuthConfig {
  bool enabled = false;  // an [auth.oauth] table was given
  // The resource identifier tokens must name in `aud` and that the metadata
  // announces: an absolute http(s) URL without a fragment. Empty: each
  // request's own, "http://<Host><transport.http.path>" (the Host header is
  // checked against allowed_hosts first). Set it behind a TLS proxy.
  std::string resource;
  // Issuer identifiers, exactly as the servers write `iss`: https, or http
  // for a loopback host. Their keys come from RFC 8414 (or OpenID) metadata.
  std::vector<std::string> authorization_servers;
  // JWS algorithms accepted; asymmetric only (RS*, PS*, ES*). Default: all nine.
  std::vector<std::string> algorithms;
  std::uint32_t leeway_s = 60;                // 0..300: clock skew allowed on exp and nbf
  std::uint32_t jwks_refresh_min_s = 60;      // 0..86400: an unknown kid refetches keys at most this often
  std::uint32_t fetch_timeout_ms = 5000;      // 100..60000: one metadata or JWKS fetch
  // Special ranges (loopback, private...) the metadata and JWKS fetches may
  // reach, as a tool binding's egress_addresses. Public addresses need none.
  std::vector<AddressRange> fetch_addresses;
  // [auth.oauth.scopes]: what each scope grants. A token reaches the tools,
  // resources and prompts its scopes grant, no others; the keys are what the
  // metadata lists as supported.
  std::map<std::string, ScopeGrant> scopes;
  SourcePlace place;  // the [auth.oauth] header
};

struct Config {
  std::filesystem::path file;  // absolute path of the TOML file
  ServerConfig server;
  HttpConfig http;
  EgressConfig egress;
  PluginsConfig plugins;
  IsolationConfig isolation;
  TrustConfig trust;
  PinningConfig pinning;
  TasksConfig tasks;
  AuditConfig audit;
  OAuthConfig oauth;
  // The chain named "default", when declared, applies to every tool without a
  // binding; a binding's chain = "none" opts a tool out of every chain.
  std::map<std::string, ChainConfig> chains;
  std::vector<ToolBinding> tools;        // in file order; the first match wins
  std::vector<ContentBinding> resources;  // [resources."<uri glob>"], in file order
  std::vector<ContentBinding> prompts;    // [prompts."<name glob>"], in file order
  std::map<std::string, boost::json::object> plugin_settings;  // [plugin."<name>"]
  std::map<std::string, SourcePlace> plugin_setting_places;
};

// Parses and validates a config file. Errors name file, line, column and key:
// "airlock.toml:12:5: unknown key 'tols'".
Result<Config> load_config(const std::filesystem::path& file);

// The same, from text; `file` is only used for messages and relative paths.
Result<Config> parse_config(std::string_view text, const std::filesystem::path& file);

// True when `name` matches `pattern` ('*' any run, '?' one byte).
bool glob_match(std::string_view pattern, std::string_view name);

// True when `token` can travel as the credentials of an `Authorization:
// Bearer` header: RFC 6750's b64token, 1*(A-Z a-z 0-9 - . _ ~ + /) *"=".
bool is_bearer_token(std::string_view token);

}  // namespace airlock::host
