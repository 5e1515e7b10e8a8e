/* hello.c — example.hello-c, a tool written in plain C11 against airlock.h
 * alone. With no JSON library it answers with fixed text and a structured
 * payload built by snprintf. */
#include <airlock/airlock.h>

#include <stdio.h>
#include <string.h>

/* The host table, kept from init; valid until the plugin is unloaded. */
static const airlock_host_api* g_host;

static airlock_str str(const char* text) {
  airlock_str s = {text, strlen(text)};
  return s;
}

/* Host calls this on a worker thread, possibly on several at once (the tool
 * is REENTRANT): it keeps no state. `arguments` is borrowed for the call. */
static airlock_status hello_call(void* tool_data, airlock_call* call, airlock_str arguments) {
  char payload[64];
  airlock_status status;
  (void)tool_data;
  status = g_host->result_add_text(call, str("hello from a C11 plugin"));
  if (status != AIRLOCK_STATUS_OK) return status;
  snprintf(payload, sizeof payload, "{\"argumentsBytes\":%zu}", arguments.len);
  return g_host->result_set_structured(call, str(payload));
}

AIRLOCK_PLUGIN_EXPORT uint32_t airlock_plugin_abi_version(void) { return AIRLOCK_ABI_VERSION; }

/* Host calls this once, on the loading thread. */
AIRLOCK_PLUGIN_EXPORT airlock_status airlock_plugin_init(const airlock_host_api* host,
                                                         airlock_plugin_ctx* ctx) {
  airlock_plugin_info info = {0};
  airlock_tool_def tool = {0};
  airlock_status status;
  g_host = host;

  info.struct_size = sizeof info;
  info.name = str("example-hello-c");
  info.version = str("1.0.0");
  info.description = str("an example tool in plain C11");
  status = host->set_plugin_info(ctx, &info);
  if (status != AIRLOCK_STATUS_OK) return status;

  tool.struct_size = sizeof tool;
  tool.name = str("example.hello-c");
  tool.title = str("Hello from C");
  tool.description = str("Says hello and reports how many bytes of arguments it received.");
  tool.input_schema = str("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}");
  tool.flags = AIRLOCK_TOOL_REENTRANT;
  tool.on_call = hello_call;
  return host->register_tool(ctx, &tool);
}
