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
 *   JSON crosses the boundary as text. {NULL, n} reads as the empty string,
 *   whatever n is.
 *
 * HOW THE HOST'S FUNCTIONS ARE DESCRIBED
 *   Each member of airlock_host_api says, in this order:
 *     Caller   who calls it, when, and on which thread;
 *     Copies   what the host copies before it returns, and how long what it
 *              hands back stays valid;
 *     NULL     what a NULL handle or pointer does;
 *     Returns  every status it returns, and what each means.
 *   A part shared by a group of functions is said once, at the group's head.
 *   Two rules hold for every function and are not repeated:
 *     - A NULL handle (ctx, call, writer) or struct pointer never reaches
 *       memory: a function that returns a status returns INVALID_ARGUMENT
 *       and does nothing else, one that returns nothing does nothing, and
 *       one that returns text returns the empty value its entry names. In
 *       a worker process and inside the server alike.
 *     - A function that returns a status may also return INTERNAL when the
 *       host itself failed (out of memory); nothing was done.
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
 *
 * RESOURCES, PROMPTS AND COMPLETIONS (ABI 1.3)
 *   Besides tools, a plugin may serve MCP resources (register_resource: one
 *   URI; register_resource_template: every URI an RFC 6570 level-1 template
 *   such as "file:///notes/{name}" matches), prompts (register_prompt) and
 *   completions of a prompt's arguments or a template's variables (their
 *   on_complete). It may register them during init or later, from any
 *   thread, and remove them again (unregister_resource, unregister_prompt);
 *   clients then get notifications/resources/list_changed or
 *   notifications/prompts/list_changed. resource_updated tells the clients
 *   that subscribed to a URI that its content changed. What a read or a get
 *   returns passes the sanitizer chain bound to it ([resources."<uri glob>"],
 *   [prompts."<name glob>"], else the "default" chain): its text sanitizers
 *   run over every text in it, and any failure withholds the whole answer,
 *   as for tool results. Result sanitizers see tool results only.
 *
 * EGRESS (ABI 1.4)
 *   A tool reaches the network only through call_fetch. The operator grants
 *   each tool a set of destinations in the host's TOML ([tools."<name>"]
 *   egress = ["https://api.example.com", "*.example.org:8443"]); a tool with
 *   no grants reaches nothing. Before any connection the host parses the
 *   URL as written (never decoding or normalizing it), checks its scheme,
 *   host and port against the set of the tool making the call, resolves the
 *   name itself, refuses loopback, private, link-local, shared and cloud
 *   metadata addresses unless the set grants them (egress_addresses, or the
 *   address written literally in a grant), and connects only to an address
 *   it checked. A redirect is followed only when the request allows it, and
 *   each hop is checked as a new destination against the same set. A URL a
 *   tool received in its arguments gets no grant from the tool that produced
 *   it: it is checked against the acting tool's own set like any other.
 *   Every destination a call reached or was refused is listed, after the
 *   sanitizer chain ran, in the result's
 *     "_meta": {"airlock/egress": [{"url", "host", "port", "address"?,
 *               "decision": "allowed"|"denied", "rule", "status"?,
 *               "bytes"?, "truncated"?, "error"?}, ...]}
 *   in the order the host met them, and in the host's audit log.
 *
 * TWO PROTOCOL ERAS, ONE API (ABI 1.5)
 *   The host serves MCP 2025-06-18 and 2025-11-25 clients (a session opened
 *   by initialize) and 2026-07-28 clients (every request stands alone and
 *   carries its own protocol version and client capabilities) at once. A
 *   plugin never needs to know which: the request context says so
 *   (protocol_version, client_capabilities) for those that care.
 *   Asking the client for input works in both with the same calls
 *   (call_input_request, prompt_input_request, resource_input_request; the
 *   older call_client_request too):
 *     - in a session, the host sends the client a request and BLOCKS the
 *       hook until the answer comes, as in ABI 1.2;
 *     - in a 2026-07-28 request, an answer the client already gave (in the
 *       retry's inputResponses, or carried from an earlier round in the
 *       sealed requestState) returns at once; a question not answered yet
 *       returns AIRLOCK_STATUS_INPUT_REQUIRED without blocking. The hook
 *       should then return soon (with any status); the host drops what it
 *       produced, answers the client with every question asked in this run
 *       (an InputRequiredResult), and runs the hook again FROM THE START
 *       when the client retries with its answers. So a hook that asks must
 *       ask the same questions, under the same keys, in the same order each
 *       run, and must not do before its last question anything it may not
 *       repeat. Keys name the questions: [A-Za-z0-9_.-]{1,64}; the
 *       key-less call_client_request uses "input-1", "input-2", ... by the
 *       position of the question in the run.
 */
#ifndef AIRLOCK_AIRLOCK_H
#define AIRLOCK_AIRLOCK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AIRLOCK_ABI_VERSION_MAJOR 1
#define AIRLOCK_ABI_VERSION_MINOR 5
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
/* Added in ABI 1.3: the resource, template or prompt asked for does not
 * exist (from on_read, the client gets -32002 "Resource not found"). */
#define AIRLOCK_STATUS_NOT_FOUND 9
/* Added in ABI 1.4: the egress layer refused a destination (call_fetch). */
#define AIRLOCK_STATUS_DENIED 10
/* Added in ABI 1.4: a network action failed: no connection, a TLS failure,
 * a malformed response (call_fetch). */
#define AIRLOCK_STATUS_NETWORK_ERROR 11
/* Added in ABI 1.5: a question to the client is not answered yet in a
 * 2026-07-28 request (see TWO PROTOCOL ERAS); nothing was sent; return soon,
 * the hook runs again with the answer. */
#define AIRLOCK_STATUS_INPUT_REQUIRED 12
/* Added in ABI 1.5: call_start_task turned the request into a durable task;
 * return now (any status): the host runs the hook again, from the start, as
 * the task. */
#define AIRLOCK_STATUS_TASK_STARTED 13

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
/* Added in ABI 1.5: the tool may run as a durable task (call_start_task);
 * listed with execution.taskSupport "optional". */
#define AIRLOCK_TOOL_TASK_OPTIONAL 4u
/* Added in ABI 1.5: the tool runs only as a task: a 2026-07-28 request that
 * did not declare the tasks extension gets -32021; taskSupport "required". */
#define AIRLOCK_TOOL_TASK_REQUIRED 8u

/* ------------------------------------------------------------------------ */
/* Opaque handles, all owned by the host                                    */
/* ------------------------------------------------------------------------ */

/* One loaded plugin, as the host sees it. Valid from airlock_plugin_init until
 * the plugin's on_destroy returns; usable from any thread. */
typedef struct airlock_plugin_ctx airlock_plugin_ctx;

/* One tool invocation. Valid only during the on_call it is passed to. The
 * result setters and call_start_task are not thread-safe: only on on_call's
 * own thread. is_cancelled, the call_* functions of ABI 1.2 and call_fetch
 * are: from any thread, as long as on_call has not returned (on_call waits
 * for the threads it lent the handle to). Using it after on_call returned is
 * a plugin bug the host cannot catch: the handle no longer exists. */
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
  /* The name clients call it by: 1 to 64 of [A-Za-z0-9_.-] (MCP's tool
   * name rule), unique across all plugins. "<vendor>.<name>", e.g.
   * "acme.search", keeps packs from colliding; a pack that must match
   * names fixed elsewhere (a conformance suite) may use bare ones. */
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
  /* --- Added in ABI 1.5: read only if struct_size covers the member. --- */
  /* The client capabilities the tool cannot work without, as a JSON
   * ClientCapabilities object, e.g. {"sampling":{}}; empty means none. A
   * 2026-07-28 request whose client lacks one gets error -32021 naming what
   * is missing, and the tool does not run. Sessions of earlier versions are
   * not checked: there call_client_request returns UNSUPPORTED as before. */
  airlock_str required_client_capabilities;
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
  /* --- Added in ABI 1.5: read only if struct_size covers the member. --- */
  /* The capabilities the client declared, as a JSON object ("{}" when none):
   * at initialize for a session, in the request's own _meta for a 2026-07-28
   * request. protocol_version is then the request's version, and session_id
   * is empty (2026-07-28 has no sessions). */
  airlock_str client_capabilities;
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
/* Added in ABI 1.3: resources, prompts and completions                     */
/* ------------------------------------------------------------------------ */

/* Where on_read writes the contents it read. Valid only during on_read, on
 * its thread. */
typedef struct airlock_resource_writer airlock_resource_writer;

/* Where on_get writes the prompt's messages. Valid only during on_get, on
 * its thread. */
typedef struct airlock_prompt_writer airlock_prompt_writer;

/* Where on_complete writes its suggestions. Valid only during on_complete,
 * on its thread. */
typedef struct airlock_completion_writer airlock_completion_writer;

/* Host calls this on one of its worker threads, once per resources/read of
 * a URI the resource (or template) serves, possibly on many threads at once:
 * it must be reentrant. It may block briefly (a file, a query); there is no
 * cancellation, so keep it short.
 *
 * `context`: who asks (request_id is the resources/read id). `uri`: the URI
 * the client asked for. `variables`: for a template, its variables as a JSON
 * object of strings, e.g. {"id":"123"}, as they appear in the URI (percent-
 * encoding kept); "{}" for a resource. All borrowed for the call.
 * Writes one or more contents with host->resource_add_text or
 * resource_add_blob and returns AIRLOCK_STATUS_OK. AIRLOCK_STATUS_NOT_FOUND:
 * nothing is there (the client gets -32002 "Resource not found");
 * AIRLOCK_STATUS_INVALID_ARGUMENT: the URI is malformed for this resource
 * (-32602); any other status, or OK with no contents, is a failure the client
 * sees as a fixed host error, never plugin text. */
typedef airlock_status (*airlock_on_read_fn)(void* resource_data, const airlock_request_context* context,
                                             airlock_str uri, airlock_str variables, airlock_resource_writer* out);

/* Host calls this on one of its worker threads for completion/complete,
 * possibly on many threads at once. It must not block for long: a client
 * calls it as the user types.
 *
 * `argument`: the prompt argument or template variable being completed;
 * `value`: what the user typed so far; `arguments`: the values already
 * chosen for the others, a JSON object of strings ("{}" when none). All
 * borrowed for the call. Writes candidates with host->completion_add (the
 * client sees at most 100) and optionally completion_set_total, then
 * returns AIRLOCK_STATUS_OK; any other status gives the client an error. */
typedef airlock_status (*airlock_on_complete_fn)(void* data, const airlock_request_context* context,
                                                 airlock_str argument, airlock_str value, airlock_str arguments,
                                                 airlock_completion_writer* out);

/* One resource. Passed to register_resource; the host copies every field. */
typedef struct airlock_resource_def {
  uint32_t struct_size; /* sizeof(airlock_resource_def) as the plugin compiled it */
  /* Absolute URI (a scheme, then ':'), at most 2048 bytes, no spaces or
   * control characters; unique across all plugins. Required. */
  airlock_str uri;
  airlock_str name;        /* short identifier for lists; required */
  airlock_str title;       /* human-readable; may be empty */
  airlock_str description; /* may be empty */
  airlock_str mime_type;   /* e.g. "text/plain"; may be empty */
  /* MCP Annotations as a JSON object (audience, priority, lastModified);
   * empty means none. */
  airlock_str annotations;
  /* Passed back to on_read. The plugin owns what it points to; it must stay
   * valid until on_destroy, even after unregister_resource, since a read
   * that began before may still run. */
  void* resource_data;
  airlock_on_read_fn on_read; /* required */
} airlock_resource_def;

/* A family of resources named by an RFC 6570 URI template. Passed to
 * register_resource_template; the host copies every field. */
typedef struct airlock_resource_template_def {
  uint32_t struct_size; /* sizeof(airlock_resource_template_def) as the plugin compiled it */
  /* Level 1 only: literal text and {name} expressions, names of
   * [A-Za-z0-9_]; e.g. "test://template/{id}/data". A variable matches one
   * or more characters other than '/', '?' and '#'. Unique across all
   * plugins. A read of a URI that a resource registers exactly goes to that
   * resource; otherwise to the first template, by template text, that
   * matches it. Required. */
  airlock_str uri_template;
  airlock_str name;        /* required */
  airlock_str title;       /* may be empty */
  airlock_str description; /* may be empty */
  airlock_str mime_type;   /* of every resource it names; may be empty */
  airlock_str annotations; /* JSON object, as for a resource; may be empty */
  void* template_data;     /* passed back to both hooks; valid until on_destroy */
  airlock_on_read_fn on_read;         /* required */
  airlock_on_complete_fn on_complete; /* completes its variables; NULL: none */
} airlock_resource_template_def;

/* Host calls this on one of its worker threads, once per prompts/get,
 * possibly on many threads at once. It may block briefly.
 *
 * `name`: the prompt. `arguments`: the client's arguments, a JSON object of
 * strings ("{}" when none); the host has checked that every required
 * argument is there. Borrowed for the call. Writes messages with
 * host->prompt_add_text, prompt_add_image, prompt_add_resource or
 * prompt_add_message (and optionally prompt_set_description), in order, then
 * returns AIRLOCK_STATUS_OK. AIRLOCK_STATUS_INVALID_ARGUMENT: an argument's
 * value is not acceptable (the client gets -32602); any other status, or OK
 * with no messages, is a failure the client sees as a fixed host error. */
typedef airlock_status (*airlock_on_get_fn)(void* prompt_data, const airlock_request_context* context,
                                            airlock_str name, airlock_str arguments, airlock_prompt_writer* out);

/* A prompt. Passed to register_prompt; the host copies every field. */
typedef struct airlock_prompt_def {
  uint32_t struct_size; /* sizeof(airlock_prompt_def) as the plugin compiled it */
  airlock_str name;        /* 1 to 64 of [A-Za-z0-9_.-]; unique; required */
  airlock_str title;       /* may be empty */
  airlock_str description; /* may be empty */
  /* Its arguments as a JSON array of objects {"name": string, "title"?:
   * string, "description"?: string, "required"?: bool}, names unique;
   * empty means no arguments. */
  airlock_str arguments;
  void* prompt_data; /* passed back to both hooks; valid until on_destroy */
  airlock_on_get_fn on_get;           /* required */
  airlock_on_complete_fn on_complete; /* completes its arguments; NULL: none */
} airlock_prompt_def;

/* ------------------------------------------------------------------------ */
/* Egress (ABI 1.4)                                                         */
/* ------------------------------------------------------------------------ */

/* One request header. Both borrowed by the host for the duration of
 * call_fetch; neither may hold CR, LF or NUL. */
typedef struct airlock_fetch_header {
  airlock_str name;
  airlock_str value;
} airlock_fetch_header;

/* Fetch flags (airlock_fetch_request.flags). */
/* Follow redirects (301, 302, 303, 307, 308), at most the host's limit, each
 * hop checked as a new destination. Without it a redirect is the response. */
#define AIRLOCK_FETCH_FOLLOW_REDIRECTS 1u

/* What a tool asks the host to fetch. The plugin owns it; the host reads it
 * during call_fetch only. */
typedef struct airlock_fetch_request {
  uint32_t struct_size;  /* sizeof(airlock_fetch_request) as the plugin compiled it */
  uint32_t flags;        /* AIRLOCK_FETCH_* */
  airlock_str method;    /* "GET" when empty; an RFC 9110 token */
  airlock_str url;       /* absolute http:// or https:// URL, ASCII, as written */
  const airlock_fetch_header* headers; /* may be NULL when header_count is 0 */
  size_t header_count;
  airlock_str body;            /* sent as is; empty: none */
  /* Both at most the operator's [egress] settings, which are also the
   * defaults (0): a tool may ask for less, never more. */
  uint32_t timeout_ms;         /* whole fetch, every hop together */
  uint64_t max_response_bytes; /* body bytes kept */
} airlock_fetch_request;

/* What the host answers. The plugin passes it zeroed except struct_size; the
 * host fills the members struct_size covers. OWNERSHIP: every airlock_str is
 * host memory, valid until on_call returns. */
typedef struct airlock_fetch_response {
  uint32_t struct_size;   /* sizeof(airlock_fetch_response) as the plugin compiled it */
  int32_t http_status;    /* of the last hop; 0 when none answered */
  airlock_str final_url;  /* the URL of the last hop, as the host parsed it */
  airlock_str content_type; /* the last hop's Content-Type; empty when none */
  airlock_str body;       /* bytes as received (any encoding), at most the limit */
  int32_t truncated;      /* 1 when the body was cut at max_response_bytes */
  /* On any status but OK: what went wrong, for the model and the operator;
   * for DENIED it names the destination and the rule that refused it. */
  airlock_str error;
} airlock_fetch_response;

/* ------------------------------------------------------------------------ */
/* What the host offers                                                     */
/* ------------------------------------------------------------------------ */

/* The host's function table. Passed to airlock_plugin_init; owned by the host
 * and valid until the plugin's on_destroy returns. Read only the members that
 * struct_size covers. */
typedef struct airlock_host_api {
  uint32_t struct_size; /* sizeof(airlock_host_api) as the host compiled it */
  uint32_t abi_version; /* AIRLOCK_ABI_VERSION of the host */

  /* Every function below is described in the same four parts (see HOW THE
   * HOST'S FUNCTIONS ARE DESCRIBED at the top of this file):
   *   Caller   who calls it, when, and on which thread;
   *   Copies   what the host copies before it returns, and how long what it
   *            hands back stays valid;
   *   NULL     what a NULL handle or pointer does;
   *   Returns  every status it returns, and what each means. */

  /* --- Init (ABI 1.0) ----------------------------------------------------- */

  /* Names the plugin.
   * Caller   airlock_plugin_init, as its first call to the host, once; the
   *          loading thread.
   * Copies   every field of `info`; keeps plugin_data and on_destroy (and so
   *          calls on_destroy later) only when it returns OK.
   * NULL     ctx or info: INVALID_ARGUMENT; the plugin stays unnamed.
   * Returns  OK; INVALID_ARGUMENT for a name that is not [a-z0-9._-]{1,64}
   *          (the host refuses the plugin, naming the name) or a call
   *          outside init; ALREADY_SET on a second call. */
  airlock_status (*set_plugin_info)(airlock_plugin_ctx* ctx, const airlock_plugin_info* info);

  /* The plugin's own config table, [plugin."<name>"] of the host's TOML, as
   * a JSON object.
   * Caller   airlock_plugin_init, after set_plugin_info; the loading thread.
   * Copies   returns host memory, valid until airlock_plugin_init returns.
   * NULL     ctx: {NULL, 0}.
   * Returns  the table as JSON text, "{}" when the config has none; {NULL, 0}
   *          before set_plugin_info or after init. */
  airlock_str (*get_config)(airlock_plugin_ctx* ctx);

  /* Registers a tool.
   * Caller   airlock_plugin_init, after set_plugin_info; the loading thread.
   * Copies   every field of `def`; parses its JSON fields and compiles its
   *          schemas before it returns.
   * NULL     ctx or def: INVALID_ARGUMENT, nothing registered.
   * Returns  OK; INVALID_ARGUMENT for a bad name, a NULL on_call, a field
   *          that is not the JSON it must be, a schema airlock cannot check,
   *          or a call outside init: the host logs why and refuses the whole
   *          plugin, whatever init then returns. */
  airlock_status (*register_tool)(airlock_plugin_ctx* ctx, const airlock_tool_def* def);

  /* Registers a sanitizer.
   * Caller   airlock_plugin_init, after set_plugin_info; the loading thread.
   * Copies   every field of `def`.
   * NULL     ctx or def: INVALID_ARGUMENT, nothing registered.
   * Returns  OK; INVALID_ARGUMENT for a name that is not
   *          "<namespace>.<name>", not exactly one of on_text and on_result,
   *          or a call outside init: as register_tool, the plugin is
   *          refused. */
  airlock_status (*register_sanitizer)(airlock_plugin_ctx* ctx, const airlock_sanitizer_def* def);

  /* Explains why init is about to fail; the host prints it in the line that
   * refuses the plugin.
   * Caller   airlock_plugin_init; the loading thread.
   * Copies   `message`. A second call replaces the first.
   * NULL     ctx: nothing happens.
   * Returns  nothing. */
  void (*set_init_error)(airlock_plugin_ctx* ctx, airlock_str message);

  /* --- Any time (ABI 1.0) ------------------------------------------------- */

  /* Logs to the operator's log under the plugin's name. Never log result
   * data a sanitizer may withhold: the log does not pass the chain.
   * Caller   any thread, from set_plugin_info until on_destroy returns
   *          (before set_plugin_info there is no name to log under, and
   *          nothing is logged).
   * Copies   `message`. Never blocks for long.
   * NULL     ctx: nothing happens.
   * Returns  nothing; never fails. A level that is no AIRLOCK_LOG_* logs at
   *          info. */
  void (*log)(airlock_plugin_ctx* ctx, airlock_log_level level, airlock_str message);

  /* --- A tool call's result (ABI 1.0) -------------------------------------
   * Caller   on_call, on its own thread (the setters are not thread-safe).
   * Copies   every argument, before returning.
   * NULL     call: INVALID_ARGUMENT, nothing set.
   * A result is parts (result_set_structured and result_add_text) or whole
   * (result_set_json), never both: a call that sets both has its result
   * withheld. result_set_error, or a TOOL_ERROR return, makes it an error
   * result instead. Text that is not valid UTF-8 is taken here and withholds
   * the result later, unless a sanitizer of the chain repairs it. */

  /* Sets the payload, a JSON object: structuredContent, and (by the host's
   * mirroring) its text in content.
   * Returns  OK; INVALID_ARGUMENT when it is not a JSON object (or nests
   *          deeper than 128); ALREADY_SET on a second call. */
  airlock_status (*result_set_structured)(airlock_call* call, airlock_str json_object);

  /* Appends a text content block.
   * Returns  OK. */
  airlock_status (*result_add_text)(airlock_call* call, airlock_str text);

  /* Sets the whole result, a CallToolResult JSON object (content,
   * structuredContent, isError, _meta); a second call replaces the first.
   * Returns  OK; INVALID_ARGUMENT when it is not a JSON object (or nests
   *          deeper than 128). */
  airlock_status (*result_set_json)(airlock_call* call, airlock_str json_object);

  /* Makes the result an isError result whose text is `message`, meant for
   * the model; whatever else was set is dropped. A second call replaces the
   * first.
   * Returns  OK. */
  airlock_status (*result_set_error)(airlock_call* call, airlock_str message);

  /* Whether the call was cancelled (client cancel, disconnect, deadline).
   * Caller   any thread while on_call runs. Cheap: poll it.
   * NULL     call: 0.
   * Returns  1 once the call is cancelled, else 0. */
  int32_t (*is_cancelled)(const airlock_call* call);

  /* --- Sanitizer output (ABI 1.0) -----------------------------------------
   * Caller   only inside the hook that received the writer, on its thread.
   * Copies   every argument, before returning.
   * NULL     out: INVALID_ARGUMENT, nothing written. */

  /* Appends a piece of a text sanitizer's output; the pieces of one on_text
   * are its whole output.
   * Returns  OK. */
  airlock_status (*text_write)(airlock_text_writer* out, airlock_str piece);

  /* Sets a result sanitizer's output, a whole CallToolResult JSON object; a
   * second call replaces the first. What is not such an object fails the
   * call closed after on_result returns.
   * Returns  OK. */
  airlock_status (*result_write)(airlock_result_writer* out, airlock_str json_object);

  /* --- Added in ABI 1.1: read only if struct_size covers the member. ------
   * See UNTRUSTED TEXT. Caller, Copies and NULL as for the result setters
   * above. */

  /* Appends a text content block holding text from a remote system, named
   * by `source`.
   * Returns  OK; INVALID_ARGUMENT for a source that is not
   *          [A-Za-z0-9._:@/-]{1,64}. */
  airlock_status (*result_add_untrusted_text)(airlock_call* call, airlock_str source, airlock_str text);

  /* Marks the string at `json_pointer` (RFC 6901, e.g. "/peer/name") inside
   * the structured payload as text from `source`; before or after
   * result_set_structured. A pointer that names no string of the final
   * payload withholds the result.
   * Returns  OK; INVALID_ARGUMENT for a bad source or pointer syntax. */
  airlock_status (*result_mark_untrusted)(airlock_call* call, airlock_str json_pointer, airlock_str source);

  /* --- Added in ABI 1.2: read only if struct_size covers the member. ------
   * See TALKING TO THE CLIENT DURING A CALL. For all of them:
   * Caller   while on_call runs, from any thread: on_call's own, or one of
   *          the plugin's that on_call waits for before it returns. They are
   *          thread-safe. After on_call returned the handle is gone.
   * Copies   every argument, before returning; what they hand back is host
   *          memory, valid until on_call returns.
   * NULL     call: INVALID_ARGUMENT (or the empty value named below); a NULL
   *          `reply` is INVALID_ARGUMENT.
   * Once the call is cancelled (client cancel, disconnect, deadline) they
   * send nothing and return CANCELLED. Without a client (a tool the
   * contract harness calls) they send nothing either: progress and logs
   * return OK, requests UNSUPPORTED. In a durable task progress and logs go
   * nowhere, and a question waits for tasks/update (see call_start_task). */

  /* Reports progress: sends notifications/progress {progressToken, progress,
   * total?, message?} when the request asked for progress (it carried
   * params._meta.progressToken, echoed as sent); otherwise sends nothing, so
   * a tool need not know. `total` <= 0 or NaN is left out (unknown total),
   * and so is an empty `message`. Never blocks for long.
   * Returns  OK; INVALID_ARGUMENT, with nothing sent, when `progress` is not
   *          finite, or not greater than the last progress of this call
   *          (progress strictly increases, whether or not the client asked
   *          for it), or `message` is not valid UTF-8; CANCELLED. */
  airlock_status (*call_progress)(airlock_call* call, double progress, double total, airlock_str message);

  /* Logs to the client (the operator's log is `log`): sends
   * notifications/message {level, logger?, data: message} when `level` is at
   * or above the level the client chose with logging/setLevel ("info" until
   * it chooses one); below it, sends nothing. An empty `logger` is left out.
   * Never blocks for long.
   * Returns  OK; INVALID_ARGUMENT, with nothing sent, for a level that is no
   *          AIRLOCK_CLIENT_LOG_*, or a logger or message that is not valid
   *          UTF-8; CANCELLED. */
  airlock_status (*call_log)(airlock_call* call, airlock_client_log_level level, airlock_str logger,
                             airlock_str message);

  /* Sends the client a JSON-RPC request `method` with `params_json` (a JSON
   * object; empty means {}) and BLOCKS the calling thread until the client
   * answers, `timeout_ms` passes (0: the host's default, 60 s) or the call is
   * cancelled. The host picks the request id. The methods, and the client
   * capability each needs (see call_client_capabilities):
   *   "sampling/createMessage"  sampling
   *   "elicitation/create"      elicitation
   *   "roots/list"              roots
   * A tool that waits on the client should have AIRLOCK_TOOL_CANCELLABLE and,
   * if it has a timeout_ms in the host's config, one longer than the wait: the
   * tool's deadline cancels the wait. In a 2026-07-28 request this is
   * call_input_request with the key "input-<n>" (see TWO PROTOCOL ERAS).
   * Copies   *reply is host memory, valid until on_call returns (each request
   *          gets its own); set to {NULL, 0} first, whatever happens, and
   *          left so unless said below.
   * Returns  OK                *reply = the client's result object, as JSON;
   *          TOOL_ERROR        the client answered with a JSON-RPC error (a
   *                            user who declined, params the client
   *                            refused): *reply = the error object {code,
   *                            message, data?}, as JSON;
   *          UNSUPPORTED       another method, the client lacks the
   *                            capability, or there is no client; nothing
   *                            was sent;
   *          TIMEOUT           no answer in time; the host sends the client
   *                            notifications/cancelled for it and drops a
   *                            late answer;
   *          CANCELLED         the call was cancelled, or the client went
   *                            away, before or while it waited;
   *          INVALID_ARGUMENT  `reply` is NULL, or params_json is not a JSON
   *                            object; nothing was sent. */
  airlock_status (*call_client_request)(airlock_call* call, airlock_str method, airlock_str params_json,
                                        uint32_t timeout_ms, airlock_str* reply);

  /* What the client declared it can do, as a JSON ClientCapabilities
   * object: at initialize in a session; in the request's own _meta in a
   * 2026-07-28 request; in a durable task, those of the request that
   * started it.
   * NULL     call: "{}".
   * Returns  the object as JSON text; "{}" when the client declared none or
   *          there is no client. Never fails. */
  airlock_str (*call_client_capabilities)(const airlock_call* call);

  /* Asks the transport to end the response stream this call's messages
   * travel on now, before the result exists. Over Streamable HTTP the client
   * then resumes with GET and Last-Event-ID and still receives every later
   * message and the result (SSE polling, SEP-1699). Not a cancellation: the
   * tool goes on and its result is delivered.
   * NULL     call: nothing happens.
   * Returns  nothing. Does nothing over stdio or without a client. */
  void (*call_end_stream)(airlock_call* call);

  /* The request's params._meta as a JSON object, e.g. {"progressToken":7}.
   * NULL     call: "{}".
   * Returns  the object as JSON text; "{}" when the request carried none.
   *          Never fails. */
  airlock_str (*call_request_meta)(const airlock_call* call);

  /* --- Added in ABI 1.3: read only if struct_size covers the member. ------
   * See RESOURCES, PROMPTS AND COMPLETIONS. */

  /* Registers a resource, a resource template or a prompt.
   * Caller   airlock_plugin_init after set_plugin_info, on the loading
   *          thread; or later, from any thread, until on_destroy begins.
   *          Never blocks for long.
   * Copies   every field of `def`.
   * NULL     ctx or def: INVALID_ARGUMENT, nothing registered.
   * Returns  OK: during init it is served once the plugin loads; after init
   *          it is served at once and clients are told the list changed.
   *          INVALID_ARGUMENT for a bad field, a call before
   *          set_plugin_info, a URI, template or name this plugin
   *          registered already, or (after init) one any plugin
   *          serves: during init the host refuses the plugin (a clash with
   *          another plugin refuses it when the registry adds it); after
   *          init only this registration is refused, and the host logs
   *          why. */
  airlock_status (*register_resource)(airlock_plugin_ctx* ctx, const airlock_resource_def* def);
  airlock_status (*register_resource_template)(airlock_plugin_ctx* ctx, const airlock_resource_template_def* def);
  airlock_status (*register_prompt)(airlock_plugin_ctx* ctx, const airlock_prompt_def* def);

  /* Stops serving the plugin's own resource with exactly this `uri` (or the
   * template with exactly this template text), or its prompt `name`; clients
   * are told the list changed. Reads and gets already running finish.
   * Caller   any thread, after set_plugin_info, until on_destroy begins.
   * Copies   the argument.
   * NULL     ctx: INVALID_ARGUMENT.
   * Returns  OK; NOT_FOUND when this plugin serves no such thing. */
  airlock_status (*unregister_resource)(airlock_plugin_ctx* ctx, airlock_str uri);
  airlock_status (*unregister_prompt)(airlock_plugin_ctx* ctx, airlock_str name);

  /* The content at `uri` changed: every session that subscribed to exactly
   * this URI (resources/subscribe) gets notifications/resources/updated
   * {uri}.
   * Caller   any thread, once init returned OK (before, nothing is sent).
   *          Never blocks for long.
   * Copies   `uri`.
   * NULL     ctx: INVALID_ARGUMENT.
   * Returns  OK, also when nobody subscribed; INVALID_ARGUMENT for a URI
   *          that is not valid UTF-8. */
  airlock_status (*resource_updated)(airlock_plugin_ctx* ctx, airlock_str uri);

  /* --- What a read, a get or a completion writes (ABI 1.3) ----------------
   * Caller   only inside the hook that received the writer (on_read, on_get,
   *          on_complete), on its thread.
   * Copies   every argument, before returning.
   * NULL     out: INVALID_ARGUMENT, nothing written; `bytes` may be NULL
   *          only with len 0. */

  /* Appends one text content to a read: {uri, mimeType?, text}. An empty
   * `uri` means the URI read; an empty `mime_type` means the resource's (or
   * template's) own, or none.
   * Returns  OK; INVALID_ARGUMENT when an argument is not valid UTF-8. */
  airlock_status (*resource_add_text)(airlock_resource_writer* out, airlock_str uri, airlock_str mime_type,
                                      airlock_str text);

  /* Appends one binary content to a read: {uri, mimeType?, blob}, the host
   * base64-encoding the `len` bytes at `bytes`. `uri` and `mime_type` as for
   * resource_add_text.
   * Returns  OK; INVALID_ARGUMENT for NULL bytes with a length, or a uri or
   *          mime_type that is not valid UTF-8. */
  airlock_status (*resource_add_blob)(airlock_resource_writer* out, airlock_str uri, airlock_str mime_type,
                                      const void* bytes, size_t len);

  /* Sets the description of this get's result (GetPromptResult.description);
   * a second call replaces the first.
   * Returns  OK; INVALID_ARGUMENT when not valid UTF-8. */
  airlock_status (*prompt_set_description)(airlock_prompt_writer* out, airlock_str description);

  /* Appends a message with text content. `role` is "user" or "assistant".
   * Returns  OK; INVALID_ARGUMENT for another role, or text that is not
   *          valid UTF-8. */
  airlock_status (*prompt_add_text)(airlock_prompt_writer* out, airlock_str role, airlock_str text);

  /* Appends a message with image content: the host base64-encodes the `len`
   * bytes at `bytes`; `mime_type` (required) e.g. "image/png".
   * Returns  OK; INVALID_ARGUMENT for a bad role, an empty or non-UTF-8
   *          mime_type, or NULL bytes with a length. */
  airlock_status (*prompt_add_image)(airlock_prompt_writer* out, airlock_str role, airlock_str mime_type,
                                     const void* bytes, size_t len);

  /* Appends a message embedding a text resource: content {type: "resource",
   * resource: {uri, mimeType?, text}}.
   * Returns  OK; INVALID_ARGUMENT for a bad role, an empty uri, or text that
   *          is not valid UTF-8. */
  airlock_status (*prompt_add_resource)(airlock_prompt_writer* out, airlock_str role, airlock_str uri,
                                        airlock_str mime_type, airlock_str text);

  /* Appends any PromptMessage, as JSON: {"role": "user"|"assistant",
   * "content": a text, image, audio, resource or resource_link block}, image
   * and audio data and blobs in base64.
   * Returns  OK; INVALID_ARGUMENT when it is not such a message. */
  airlock_status (*prompt_add_message)(airlock_prompt_writer* out, airlock_str message_json);

  /* Appends one completion candidate; the client sees the first 100.
   * Returns  OK; INVALID_ARGUMENT when not valid UTF-8. */
  airlock_status (*completion_add)(airlock_completion_writer* out, airlock_str value);

  /* How many candidates exist in all, when more than were added (the client
   * is told there are more).
   * Returns  OK. */
  airlock_status (*completion_set_total)(airlock_completion_writer* out, uint64_t total);

  /* --- Added in ABI 1.4: read only if struct_size covers the member. ------
   * See EGRESS. */

  /* Performs an HTTP(S) request for the calling tool, as that tool: its own
   * egress set decides every destination. BLOCKS the calling thread until
   * the response is in, the timeout passes or the call is cancelled.
   * Response headers other than Content-Type are not returned; Set-Cookie is
   * never kept.
   * Caller   while on_call runs, from any thread, as the ABI 1.2 calls;
   *          thread-safe.
   * Copies   `request` and everything it points to; what it writes into
   *          `response` is host memory, valid until on_call returns.
   *          `response->struct_size` must be set by the plugin; the host
   *          writes only the members it covers.
   * NULL     call, request or response: INVALID_ARGUMENT, nothing sent and
   *          nothing written.
   * Returns  OK                an HTTP response arrived (any status, 4xx and
   *                            5xx included); truncated says whether the
   *                            body was cut;
   *          DENIED            a destination (the URL, a redirect hop, or
   *                            every address its name resolved to) is
   *                            outside the tool's set, or the URL or a
   *                            redirect's Location is one the host refuses
   *                            to read: not an absolute http(s) URL, or
   *                            spelled so that two readers could take it two
   *                            ways (userinfo, a backslash, a percent-encoded
   *                            host, IPv4 in any form but the dotted quad,
   *                            another scheme such as file:); nothing was
   *                            sent there. Like every refusal it is listed
   *                            in "airlock/egress", its "rule" then naming
   *                            what the URL broke ("url: userinfo not
   *                            allowed", "redirect: scheme file not
   *                            allowed"), "host" empty and "port" 0;
   *          NETWORK_ERROR     no response: the name did not resolve, no
   *                            connection, TLS failed, too many redirects, a
   *                            malformed response;
   *          TIMEOUT           timeout_ms (or the host's default) passed;
   *          CANCELLED         the call was cancelled before or while it
   *                            waited;
   *          INVALID_ARGUMENT  a bad method or header, a header the host sets
   *                            itself (Host, Content-Length,
   *                            Transfer-Encoding, Connection), NULL headers
   *                            with a count; nothing was sent. (Before this
   *                            host, a URL the host could not read was
   *                            INVALID_ARGUMENT too; treat both alike.)
   *          On any status but OK, `response->error` says why. */
  airlock_status (*call_fetch)(airlock_call* call, const airlock_fetch_request* request,
                               airlock_fetch_response* response);

  /* --- Added in ABI 1.5: read only if struct_size covers the member. ------
   * See TWO PROTOCOL ERAS, ONE API. */

  /* Asks the client a question named `key` ([A-Za-z0-9_.-]{1,64}): the
   * methods, capabilities, timeout and *reply of call_client_request, which
   * this is with a key. In a session BLOCKS as call_client_request does (the
   * key is not sent). In a 2026-07-28 request never blocks.
   * Caller, Copies and NULL as call_client_request.
   * Returns  in a session, as call_client_request. In a 2026-07-28 request:
   *          OK with the client's answer when it gave one; INPUT_REQUIRED
   *          when not (the question is recorded; see TWO PROTOCOL ERAS);
   *          UNSUPPORTED when the request did not declare the capability
   *          (elicitation with "mode":"url" needs elicitation.url; sampling
   *          with "tools" needs sampling.tools). In both: INVALID_ARGUMENT
   *          for a bad key or params, or for an answer whose shape does not
   *          fit the method (the client then gets -32602 naming the key). */
  airlock_status (*call_input_request)(airlock_call* call, airlock_str key, airlock_str method,
                                       airlock_str params_json, uint32_t timeout_ms, airlock_str* reply);

  /* call_input_request for a prompt get.
   * Caller   only inside on_get, on its thread.
   * Copies   as call_input_request, but *reply is valid until on_get returns.
   * NULL     out or reply: INVALID_ARGUMENT.
   * Returns  as call_input_request. */
  airlock_status (*prompt_input_request)(airlock_prompt_writer* out, airlock_str key, airlock_str method,
                                         airlock_str params_json, uint32_t timeout_ms, airlock_str* reply);

  /* call_input_request for a resource read.
   * Caller   only inside on_read, on its thread.
   * Copies   as call_input_request, but *reply is valid until on_read
   *          returns.
   * NULL     out or reply: INVALID_ARGUMENT.
   * Returns  as call_input_request. */
  airlock_status (*resource_input_request)(airlock_resource_writer* out, airlock_str key, airlock_str method,
                                           airlock_str params_json, uint32_t timeout_ms, airlock_str* reply);

  /* Tells clients that a list changed (AIRLOCK_LIST_*): sessions get
   * notifications/<list>/list_changed, 2026-07-28 clients on every open
   * subscriptions/listen stream that asked for it. The host does not change
   * the list; a plugin uses this when what its entries say or do changed.
   * Caller   any thread, once init returned OK (before, nobody listens).
   *          Never blocks for long.
   * NULL     ctx: INVALID_ARGUMENT.
   * Returns  OK; INVALID_ARGUMENT for another value of `list`. */
  airlock_status (*notify_list_changed)(airlock_plugin_ctx* ctx, uint32_t list);

  /* Asks to finish this call as a durable task (a tool with
   * AIRLOCK_TOOL_TASK_OPTIONAL or _REQUIRED): the client gets a task id at
   * once and reads the result later, from any server sharing the task
   * store; every read passes the reader's sanitizer chain. In a task,
   * progress and logs go nowhere, and a question (call_input_request) puts
   * the task in input_required until the client answers it with
   * tasks/update; the hook then runs again from the start.
   * Caller   on_call, on its own thread.
   * NULL     call: INVALID_ARGUMENT.
   * Returns  OK            the call already runs as a task: go on;
   *          TASK_STARTED  the task was created and the client told; return
   *                        now (with any status): the host runs on_call
   *                        again, from the start, as the task, with the
   *                        answers the client gave so far (so ask your
   *                        questions before starting the task);
   *          UNSUPPORTED   this request cannot become a task (the client did
   *                        not declare the tasks extension, the tool is not
   *                        marked, or the host has no task store): go on
   *                        synchronously. */
  airlock_status (*call_start_task)(airlock_call* call);

  /* Added in ABI 1.6 and later: below this line. */
} airlock_host_api;

/* Added in ABI 1.5: the lists of notify_list_changed. */
#define AIRLOCK_LIST_TOOLS 1u
#define AIRLOCK_LIST_PROMPTS 2u
#define AIRLOCK_LIST_RESOURCES 3u

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
