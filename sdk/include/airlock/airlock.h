/*
 * airlock.h — the plugin ABI of the airlock MCP server host.
 *
 * This header is the whole contract between the host and a plugin (a tool
 * pack or a sanitizer pack shipped as a shared object). It is C99, includes
 * nothing but <stdint.h> and <stddef.h>, and is read by plugin SDKs written in
 * languages other than C and C++, so it must never depend on anything else.
 *
 * THE SHAPE OF A PLUGIN
 *   A plugin exports exactly two symbols:
 *     airlock_plugin_abi_version()  returns AIRLOCK_ABI_VERSION as the plugin
 *                                   saw it when it was compiled; the host
 *                                   calls it before any other plugin code and
 *                                   refuses a plugin whose major differs or
 *                                   whose minor is newer than the host's.
 *     airlock_plugin_init()         receives the host's function table and a
 *                                   per-plugin context through which the
 *                                   plugin names itself and registers its
 *                                   tools and sanitizers.
 *   Compile with -fvisibility=hidden; AIRLOCK_PLUGIN_EXPORT exports the two.
 *
 * NAMING
 *   on_*        functions the plugin implements and the host calls.
 *   verbs       members of airlock_host_api: the plugin calls the host.
 *   *_def       structs the plugin fills and the host copies.
 *
 * MEMORY
 *   Nothing is ever freed on the other side of the boundary. Every buffer the
 *   host hands out is borrowed for the duration of the call that hands it out.
 *   Everything a plugin passes to the host is copied before the host function
 *   returns, so the plugin may free or reuse it at once.
 *
 * TEXT
 *   All text is UTF-8 as airlock_str {ptr, len}, never NUL-terminated.
 *   JSON crosses the boundary as text.
 *
 * GROWTH
 *   Every struct that may grow starts with `struct_size`, and only grows at
 *   its end under an "Added in ABI 1.N" mark. A reader reads only the fields
 *   that struct_size covers. A changed signature gets a new `_v2` name; a
 *   status or flag value is never reused.
 *
 * UNTRUSTED TEXT (ABI 1.1)
 *   Text a tool got from a remote system (an API field, a web page, a
 *   database row written by others) is data, not instructions. A tool marks
 *   it with result_add_untrusted_text or result_mark_untrusted; the host then
 *   runs the tool's sanitizer chain over it like any text and, after the
 *   chain, labels it for the model:
 *     - a content block's text is framed as
 *         <untrusted-data source="SOURCE">
 *         TEXT
 *         </untrusted-data>
 *       (any "</untrusted-data" inside TEXT is written "<\/untrusted-data",
 *       so the frame cannot be closed early), and the block carries
 *       "_meta": {"airlock/untrusted": {"source": "SOURCE"}};
 *     - a string inside structuredContent keeps its value (so it still
 *       matches the output schema) and is listed in the result's
 *       "_meta": {"airlock/untrusted": [{"pointer": "/a/b", "source": "SOURCE"}]};
 *       the text block that mirrors such a structuredContent is framed as
 *       untrusted text of that source ("several" when fields differ).
 *   SOURCE is [A-Za-z0-9._:@/-]{1,64}. A block labelled in a whole result
 *   (result_set_json, a result sanitizer) is framed the same way, and a
 *   label with any other source withholds the result.
 *
 * TALKING TO THE CLIENT DURING A CALL (ABI 1.2)
 *   While on_call runs, a tool may report progress (call_progress), log to
 *   the client (call_log), send the client a request and wait for its answer
 *   (call_client_request: sampling, elicitation, roots), read what the client
 *   declared it can do (call_client_capabilities) and what the request
 *   carried in params._meta (call_request_meta), and ask the transport to
 *   end the request's response stream early (call_end_stream). Each message
 *   goes to the client that made the call, related to that call, over
 *   whichever transport it used (stdio, Streamable HTTP), before the call's
 *   response. What a tool sends this way does not pass its sanitizer chain:
 *   never send result data that a sanitizer may withhold.
 */
#ifndef AIRLOCK_AIRLOCK_H
#define AIRLOCK_AIRLOCK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AIRLOCK_ABI_VERSION_MAJOR 1
#define AIRLOCK_ABI_VERSION_MINOR 2
/* (major << 16) | minor, as a uint32_t. Written without casts so that C++
 * code compiled with -Wold-style-cast can use it. */
#define AIRLOCK_ABI_VERSION (AIRLOCK_ABI_VERSION_MAJOR * 65536u + AIRLOCK_ABI_VERSION_MINOR)

#if defined(_WIN32)
#define AIRLOCK_PLUGIN_EXPORT __declspec(dllexport)
#else
#define AIRLOCK_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* ------------------------------------------------------------------------ */
/* Basic types                                                              */
/* ------------------------------------------------------------------------ */

/* Borrowed UTF-8 bytes; not NUL-terminated. Who owns them and for how long is
 * said wherever an airlock_str is passed. {NULL, 0} is the empty string. */
typedef struct airlock_str {
  const char* ptr;
  size_t len;
} airlock_str;

/* Status codes returned by plugin hooks and by host functions. Values are
 * fixed forever; a retired value is never reused. */
typedef int32_t airlock_status;
#define AIRLOCK_STATUS_OK 0
/* Returned by a sanitizer: its output equals its input. Lets the host skip a
 * copy; it is never an error. */
#define AIRLOCK_STATUS_UNCHANGED 1
/* A tool failed in a way the model should see: the message set with
 * result_set_error (or a generic one) becomes an isError result. */
#define AIRLOCK_STATUS_TOOL_ERROR 2
/* The call noticed its cancellation and stopped. */
#define AIRLOCK_STATUS_CANCELLED 3
/* Something the caller passed is malformed (bad JSON, wrong shape, a call
 * made at the wrong time). */
#define AIRLOCK_STATUS_INVALID_ARGUMENT 4
/* A one-shot setter was called a second time. */
#define AIRLOCK_STATUS_ALREADY_SET 5
/* A failure inside the plugin or the host that is nobody's input. */
#define AIRLOCK_STATUS_INTERNAL 6
/* The request is understood but not offered by this host or plugin. */
#define AIRLOCK_STATUS_UNSUPPORTED 7
/* Added in ABI 1.2: a wait ended because its time ran out
 * (call_client_request). */
#define AIRLOCK_STATUS_TIMEOUT 8

/* Log levels for airlock_host_api.log; the host maps them to its own. */
typedef int32_t airlock_log_level;
#define AIRLOCK_LOG_TRACE 0
#define AIRLOCK_LOG_DEBUG 1
#define AIRLOCK_LOG_INFO 2
#define AIRLOCK_LOG_WARN 3
#define AIRLOCK_LOG_ERROR 4

/* Added in ABI 1.2: the eight MCP log levels for call_log, in rising order
 * of severity (the RFC 5424 names; the client sees the lowercase name, e.g.
 * "warning"). */
typedef int32_t airlock_client_log_level;
#define AIRLOCK_CLIENT_LOG_DEBUG 0
#define AIRLOCK_CLIENT_LOG_INFO 1
#define AIRLOCK_CLIENT_LOG_NOTICE 2
#define AIRLOCK_CLIENT_LOG_WARNING 3
#define AIRLOCK_CLIENT_LOG_ERROR 4
#define AIRLOCK_CLIENT_LOG_CRITICAL 5
#define AIRLOCK_CLIENT_LOG_ALERT 6
#define AIRLOCK_CLIENT_LOG_EMERGENCY 7

/* Tool flags (airlock_tool_def.flags), bits that may be or-ed together. */
/* The tool may run on several threads at once. Without it the host runs at
 * most one call of this tool at a time. */
#define AIRLOCK_TOOL_REENTRANT 1u
/* The tool polls is_cancelled while it runs. Without it the host checks the
 * call's cancellation once, before the tool starts, and never after. */
#define AIRLOCK_TOOL_CANCELLABLE 2u

/* ------------------------------------------------------------------------ */
/* Opaque handles, all owned by the host                                    */
/* ------------------------------------------------------------------------ */

/* One loaded plugin, as the host sees it. Valid from airlock_plugin_init until
 * the plugin's on_destroy returns; usable from any thread. */
typedef struct airlock_plugin_ctx airlock_plugin_ctx;

/* One tool invocation. Valid only during the on_call it is passed to. The
 * result setters are not thread-safe: only on on_call's thread; is_cancelled
 * and the call_* functions of ABI 1.2 are, from any thread until on_call
 * returns. Using it after on_call returned is a plugin bug the host cannot
 * catch: the handle no longer exists. */
typedef struct airlock_call airlock_call;

/* Where a text sanitizer writes its output. Valid only during on_text. */
typedef struct airlock_text_writer airlock_text_writer;

/* Where a result sanitizer writes its output. Valid only during on_result. */
typedef struct airlock_result_writer airlock_result_writer;

/* ------------------------------------------------------------------------ */
/* What a plugin registers                                                  */
/* ------------------------------------------------------------------------ */

/* Who the plugin is. Passed to set_plugin_info during init; the host copies
 * every field before set_plugin_info returns. */
typedef struct airlock_plugin_info {
  uint32_t struct_size; /* sizeof(airlock_plugin_info) as the plugin compiled it */
  /* Short name, [a-z0-9._-]{1,64}. Keys the plugin's own config table,
   * [plugin."<name>"], and names its logger. Required. */
  airlock_str name;
  airlock_str version;     /* free text, e.g. "1.2.0"; may be empty */
  airlock_str description; /* one line; may be empty */
  /* Passed back to on_destroy. The plugin owns what it points to. */
  void* plugin_data;
  /* Host calls this once, on the thread that unloads the plugin, after the
   * last call into any of the plugin's tools and sanitizers has returned and
   * before the library is unloaded. May be NULL. Must not call the host. */
  void (*on_destroy)(void* plugin_data);
} airlock_plugin_info;

/* Host calls this on one of its worker threads, once per tools/call, after
 * the arguments are parsed. Concurrently with other calls of the same tool
 * only if the tool has AIRLOCK_TOOL_REENTRANT. It may block (network, disk);
 * a tool with AIRLOCK_TOOL_CANCELLABLE polls host->is_cancelled(call) while
 * it blocks.
 *
 * `tool_data`: the def's tool_data, as registered.
 * `arguments`: the call's arguments as a JSON object, "{}" when the client
 *   sent none; never any other JSON type. Borrowed for the duration of the
 *   call.
 * The tool reports its result through the host's result_* functions:
 *   - result_set_structured: the payload; becomes structuredContent and, by
 *     default, its serialized text in content;
 *   - result_add_text: one text content block each;
 *   - result_set_json: a whole CallToolResult object;
 *   - result_set_error: an isError result with a message for the model.
 * Returns AIRLOCK_STATUS_OK when the result is set; AIRLOCK_STATUS_TOOL_ERROR
 * for a failure the model should see (with result_set_error's message, or a
 * generic one); AIRLOCK_STATUS_CANCELLED when it stopped on cancellation; any
 * other value is an internal failure, reported without plugin text. */
typedef airlock_status (*airlock_on_call_fn)(void* tool_data, airlock_call* call,
                                             airlock_str arguments);

/* A tool. Passed to register_tool during init; the host copies every field,
 * parses the JSON fields, and rejects the plugin if any is invalid. */
typedef struct airlock_tool_def {
  uint32_t struct_size; /* sizeof(airlock_tool_def) as the plugin compiled it */
  /* Full name "<namespace>.<name>", e.g. "acme.search": [A-Za-z0-9_-]
   * segments joined by '.', at most 128 bytes. Unique across all plugins. */
  airlock_str name;
  airlock_str title;       /* human-readable; may be empty */
  airlock_str description; /* for the model; may be empty */
  /* JSON Schema of the arguments, a JSON object with "type": "object".
   * Empty means {"type":"object"}. */
  airlock_str input_schema;
  /* JSON Schema of structuredContent, a JSON object; empty means none. */
  airlock_str output_schema;
  /* MCP ToolAnnotations as a JSON object (readOnlyHint, destructiveHint, …);
   * empty means none. */
  airlock_str annotations;
  uint32_t flags; /* AIRLOCK_TOOL_* bits */
  /* Passed back to on_call. The plugin owns what it points to; it must stay
   * valid until on_destroy. */
  void* tool_data;
  airlock_on_call_fn on_call; /* required */
} airlock_tool_def;

/* Host calls this for one string leaf of a tool result (a content block's
 * text, a string inside structuredContent), on any worker thread, possibly on
 * many threads at once. It must not block.
 *
 * `text`: the leaf, valid UTF-8 is not guaranteed. Borrowed for the call.
 * Writes its complete output with host->text_write(out, …), in one or more
 * pieces that the host concatenates, and returns AIRLOCK_STATUS_OK; or writes
 * nothing and returns AIRLOCK_STATUS_UNCHANGED when the output equals the
 * input. Any other status fails the whole tool call closed.
 *
 * Contract, checked by the harness: deterministic, idempotent
 * (s(s(x)) == s(x)), free of one-shot side effects, and destination-
 * preserving: it may drop, escape, truncate or redact, never decode, resolve
 * or normalize a URL into a new destination. */
typedef airlock_status (*airlock_on_text_fn)(void* sanitizer_data, airlock_str text,
                                             airlock_text_writer* out);

/* The request a result sanitizer runs for. Borrowed for the call. */
typedef struct airlock_request_context {
  uint32_t struct_size;          /* sizeof(airlock_request_context) as the host compiled it */
  airlock_str protocol_version;  /* negotiated MCP version, e.g. "2025-11-25" */
  airlock_str session_id;        /* empty over stdio */
  airlock_str caller;            /* authenticated identity; empty when none */
  airlock_str request_id;        /* the JSON-RPC id as JSON text, e.g. "7" or "\"a\"" */
} airlock_request_context;

/* Host calls this once per tool result, on any worker thread, possibly on
 * many threads at once. It must not block.
 *
 * `tool_name`: the invoked tool. `arguments`: the raw arguments (JSON
 * object). `result`: the complete CallToolResult as JSON. All borrowed for the
 * call. Writes a complete replacement result with host->result_write(out, …)
 * and returns AIRLOCK_STATUS_OK, or returns AIRLOCK_STATUS_UNCHANGED. Any
 * other status, or output that is not a CallToolResult object, fails the
 * whole tool call closed. Same contract as airlock_on_text_fn. */
typedef airlock_status (*airlock_on_result_fn)(void* sanitizer_data,
                                               const airlock_request_context* context,
                                               airlock_str tool_name, airlock_str arguments,
                                               airlock_str result, airlock_result_writer* out);

/* A sanitizer: exactly one of on_text and on_result is set. Passed to
 * register_sanitizer during init; the host copies every field. */
typedef struct airlock_sanitizer_def {
  uint32_t struct_size; /* sizeof(airlock_sanitizer_def) as the plugin compiled it */
  airlock_str name;        /* "<namespace>.<name>", as for tools; unique */
  airlock_str description; /* may be empty */
  void* sanitizer_data;    /* passed back to the hook; valid until on_destroy */
  airlock_on_text_fn on_text;
  airlock_on_result_fn on_result;
} airlock_sanitizer_def;

/* ------------------------------------------------------------------------ */
/* What the host offers                                                     */
/* ------------------------------------------------------------------------ */

/* The host's function table. Passed to airlock_plugin_init; owned by the host
 * and valid until the plugin's on_destroy returns. Read only the members that
 * struct_size covers. */
typedef struct airlock_host_api {
  uint32_t struct_size; /* sizeof(airlock_host_api) as the host compiled it */
  uint32_t abi_version; /* AIRLOCK_ABI_VERSION of the host */

  /* --- Init: plugin calls these only inside airlock_plugin_init. --------- */

  /* Names the plugin. Must be the first call of init. The host copies
   * `info`. Returns AIRLOCK_STATUS_OK, INVALID_ARGUMENT for a bad name, or
   * ALREADY_SET. The host keeps `on_destroy` (and so will call it) only when
   * this returns AIRLOCK_STATUS_OK. */
  airlock_status (*set_plugin_info)(airlock_plugin_ctx* ctx, const airlock_plugin_info* info);

  /* The plugin's own config table, [plugin."<name>"] of the host's TOML, as
   * a JSON object ("{}" when absent). OWNERSHIP: borrowed; valid until init
   * returns. Empty before set_plugin_info. */
  airlock_str (*get_config)(airlock_plugin_ctx* ctx);

  /* Registers a tool. The host copies `def`. Returns AIRLOCK_STATUS_OK or
   * INVALID_ARGUMENT (the host logs why and refuses the plugin). */
  airlock_status (*register_tool)(airlock_plugin_ctx* ctx, const airlock_tool_def* def);

  /* Registers a sanitizer. The host copies `def`. Returns as register_tool. */
  airlock_status (*register_sanitizer)(airlock_plugin_ctx* ctx, const airlock_sanitizer_def* def);

  /* Explains why init is about to fail; the host prints it in the line that
   * refuses the plugin. The host copies `message`. */
  void (*set_init_error)(airlock_plugin_ctx* ctx, airlock_str message);

  /* --- Any time, any thread. -------------------------------------------- */

  /* Logs to the operator's log under the plugin's name. Never blocks for
   * long, never fails. The host copies `message`. Never log result data that
   * a sanitizer may withhold. */
  void (*log)(airlock_plugin_ctx* ctx, airlock_log_level level, airlock_str message);

  /* --- Calls: plugin calls these only inside on_call, on its thread. ---- */

  /* Sets the payload: a JSON object that becomes structuredContent (and, by
   * the host's mirroring, its text). Host copies. INVALID_ARGUMENT if not a
   * JSON object; ALREADY_SET on a second call. */
  airlock_status (*result_set_structured)(airlock_call* call, airlock_str json_object);

  /* Appends a text content block. Host copies. */
  airlock_status (*result_add_text)(airlock_call* call, airlock_str text);

  /* Sets the whole result as a CallToolResult JSON object (content,
   * structuredContent, isError, _meta); replaces anything set before. Host
   * copies. INVALID_ARGUMENT if it is not a JSON object. */
  airlock_status (*result_set_json)(airlock_call* call, airlock_str json_object);

  /* Makes the result an isError result whose text is `message`, meant for
   * the model. Host copies. */
  airlock_status (*result_set_error)(airlock_call* call, airlock_str message);

  /* Returns 1 once the call is cancelled (client cancel, disconnect,
   * deadline), else 0. Cheap; safe from any thread while the call runs. */
  int32_t (*is_cancelled)(const airlock_call* call);

  /* --- Sanitizer output: only inside the hook that received the writer. */

  /* Appends a piece of a text sanitizer's output. Host copies. */
  airlock_status (*text_write)(airlock_text_writer* out, airlock_str piece);

  /* Sets a result sanitizer's output (a whole CallToolResult JSON object);
   * a second call replaces the first. Host copies. */
  airlock_status (*result_write)(airlock_result_writer* out, airlock_str json_object);

  /* --- Added in ABI 1.1: read only if struct_size covers the member. --- */

  /* Appends a text content block holding text from a remote system, named by
   * `source` (see UNTRUSTED TEXT). Only inside on_call, on its thread. Host
   * copies both. INVALID_ARGUMENT for a bad source. */
  airlock_status (*result_add_untrusted_text)(airlock_call* call, airlock_str source, airlock_str text);

  /* Marks the string at `json_pointer` (RFC 6901, e.g. "/peer/name") inside
   * the structured payload as text from `source`. Only inside on_call, on
   * its thread; may come before or after result_set_structured. Host copies
   * both. A pointer that does not name a string of the final payload fails
   * the call closed. INVALID_ARGUMENT for a bad source or pointer syntax. */
  airlock_status (*result_mark_untrusted)(airlock_call* call, airlock_str json_pointer, airlock_str source);

  /* --- Added in ABI 1.2: read only if struct_size covers the member. --- */
  /* See TALKING TO THE CLIENT DURING A CALL. Plugin calls these only while
   * on_call runs: on its thread, or on a thread of the plugin's that on_call
   * joins before it returns; they are thread-safe. Once the call is
   * cancelled (client cancel, disconnect, deadline) they send nothing and
   * return AIRLOCK_STATUS_CANCELLED. A NULL `call` is INVALID_ARGUMENT. The
   * host copies every airlock_str passed in before returning. */

  /* Reports progress: sends notifications/progress {progressToken, progress,
   * total?, message?} when the request asked for progress (it carried
   * params._meta.progressToken, echoed as sent); otherwise sends nothing and
   * still returns AIRLOCK_STATUS_OK, so a tool need not know. `total` <= 0
   * or NaN is left out (unknown total), and so is an empty `message`. Never
   * blocks for long.
   * Returns OK; INVALID_ARGUMENT, with nothing sent, when `progress` is not
   * finite, or not greater than the last progress of this call (progress
   * strictly increases, whether or not the client asked for it), or
   * `message` is not valid UTF-8; CANCELLED as above. */
  airlock_status (*call_progress)(airlock_call* call, double progress, double total, airlock_str message);

  /* Logs to the client (the operator's log is `log`): sends
   * notifications/message {level, logger?, data: message} when `level` is at
   * or above the level the client chose with logging/setLevel ("info" until
   * it chooses one); below it, sends nothing and returns OK. An empty
   * `logger` is left out. Never blocks for long.
   * Returns OK; INVALID_ARGUMENT, with nothing sent, for a level that is no
   * AIRLOCK_CLIENT_LOG_*, or a logger or message that is not valid UTF-8;
   * CANCELLED as above. */
  airlock_status (*call_log)(airlock_call* call, airlock_client_log_level level, airlock_str logger,
                             airlock_str message);

  /* Sends the client a JSON-RPC request `method` with `params_json` (a JSON
   * object; empty means {}) and BLOCKS the calling thread until the client
   * answers, `timeout_ms` passes (0: the host's default, 60 s) or the call is
   * cancelled. The host picks the request id. The methods, and the client
   * capability each needs (declared at initialize, see
   * call_client_capabilities):
   *   "sampling/createMessage"  sampling
   *   "elicitation/create"      elicitation
   *   "roots/list"              roots
   * A tool that waits on the client should have AIRLOCK_TOOL_CANCELLABLE and,
   * if it has a timeout_ms in the host's config, one longer than the wait: the
   * tool's deadline cancels the wait.
   * OWNERSHIP of *reply: host memory, valid until on_call returns (each
   * request gets its own). {NULL, 0} unless said otherwise below.
   * Returns
   *   OK                *reply = the client's result object, as JSON;
   *   TOOL_ERROR        the client answered with a JSON-RPC error (a user who
   *                     declined, params the client refused): *reply = the
   *                     error object {code, message, data?}, as JSON;
   *   UNSUPPORTED       another method, or the client lacks the capability;
   *                     nothing was sent;
   *   TIMEOUT           no answer in time; the host sends the client
   *                     notifications/cancelled for it and drops a late answer;
   *   CANCELLED         the call was cancelled, or the client went away,
   *                     before or while it waited;
   *   INVALID_ARGUMENT  `reply` is NULL, or params_json is not a JSON object;
   *                     nothing was sent. */
  airlock_status (*call_client_request)(airlock_call* call, airlock_str method, airlock_str params_json,
                                        uint32_t timeout_ms, airlock_str* reply);

  /* The capabilities object the client declared at initialize, as JSON ("{}"
   * when it declared none). OWNERSHIP: host memory, valid until on_call
   * returns. Never fails; a NULL call gives "{}". */
  airlock_str (*call_client_capabilities)(const airlock_call* call);

  /* Asks the transport to end the response stream this call's messages
   * travel on now, before the result exists. Over Streamable HTTP the client
   * then resumes with GET and Last-Event-ID and still receives every later
   * message and the result (SSE polling, SEP-1699). Not a cancellation: the
   * tool goes on and its result is delivered. Does nothing over stdio, or
   * for a NULL call. */
  void (*call_end_stream)(airlock_call* call);

  /* The request's params._meta as a JSON object ("{}" when absent), e.g.
   * {"progressToken":7}. OWNERSHIP: host memory, valid until on_call
   * returns. Never fails; a NULL call gives "{}". */
  airlock_str (*call_request_meta)(const airlock_call* call);

  /* Added in ABI 1.3 and later: below this line. */
} airlock_host_api;

/* ------------------------------------------------------------------------ */
/* The two entry points a plugin exports                                    */
/* ------------------------------------------------------------------------ */

/* Host calls this once, on the loading thread, before any other plugin code.
 * Return AIRLOCK_ABI_VERSION. The host refuses a different major or a newer
 * minor, and then calls nothing else in the plugin. */
AIRLOCK_PLUGIN_EXPORT uint32_t airlock_plugin_abi_version(void);

/* Host calls this once, on the loading thread, after the version check.
 * `host` and `ctx` stay valid until on_destroy returns. The plugin calls
 * set_plugin_info first, then registers its tools and sanitizers. Return
 * AIRLOCK_STATUS_OK; any other value refuses the plugin (after
 * set_init_error, with the plugin's message), and the host then calls
 * on_destroy if set_plugin_info gave one, and unloads the library. */
AIRLOCK_PLUGIN_EXPORT airlock_status airlock_plugin_init(const airlock_host_api* host,
                                                         airlock_plugin_ctx* ctx);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AIRLOCK_AIRLOCK_H */
