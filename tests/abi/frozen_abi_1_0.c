/* frozen_abi_1_0.c — a plugin compiled against the frozen ABI 1.0 header
 * (tests/abi/airlock_1_0.h) and nothing newer: every 1.x host must load it.
 * "frozen-abi-1-0" registers the tool frozen.echo and the sanitizer
 * frozen.keep. */
#include <airlock/airlock.h>

#include <string.h>

#ifndef AIRLOCK_FROZEN_ABI_1_0
#error "<airlock/airlock.h> must resolve to tests/abi/frozen/airlock/airlock.h"
#endif

static const airlock_host_api* g_host;

static airlock_str str(const char* text) {
  airlock_str s = {text, strlen(text)};
  return s;
}

static airlock_status echo_call(void* tool_data, airlock_call* call, airlock_str arguments) {
  (void)tool_data;
  (void)arguments;
  return g_host->result_add_text(call, str("frozen abi 1.0"));
}

static airlock_status keep_text(void* sanitizer_data, airlock_str text, airlock_text_writer* out) {
  (void)sanitizer_data;
  (void)text;
  (void)out;
  return AIRLOCK_STATUS_UNCHANGED;
}

AIRLOCK_PLUGIN_EXPORT uint32_t airlock_plugin_abi_version(void) { return AIRLOCK_ABI_VERSION; }

AIRLOCK_PLUGIN_EXPORT airlock_status airlock_plugin_init(const airlock_host_api* host,
                                                         airlock_plugin_ctx* ctx) {
  airlock_plugin_info info = {0};
  airlock_tool_def tool = {0};
  airlock_sanitizer_def keep = {0};
  airlock_status status;
  g_host = host;

  info.struct_size = sizeof info;
  info.name = str("frozen-abi-1-0");
  info.version = str("1.0.0");
  status = host->set_plugin_info(ctx, &info);
  if (status != AIRLOCK_STATUS_OK) return status;

  tool.struct_size = sizeof tool;
  tool.name = str("frozen.echo");
  tool.description = str("answers from a plugin built against ABI 1.0");
  tool.flags = AIRLOCK_TOOL_REENTRANT;
  tool.on_call = echo_call;
  status = host->register_tool(ctx, &tool);
  if (status != AIRLOCK_STATUS_OK) return status;

  keep.struct_size = sizeof keep;
  keep.name = str("frozen.keep");
  keep.on_text = keep_text;
  return host->register_sanitizer(ctx, &keep);
}
