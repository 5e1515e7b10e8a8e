/* identity.c — the airlock.identity text sanitizer: it returns every input
 * unchanged. A chain's neutral element, and proof that a plugin needs nothing
 * but airlock.h and a C11 compiler. */
#include <airlock/airlock.h>

#define STR(literal) {literal, sizeof(literal) - 1}

/* Host calls this on any worker thread, concurrently; it never blocks. */
static airlock_status on_text(void* sanitizer_data, airlock_str text, airlock_text_writer* out) {
  (void)sanitizer_data;
  (void)text;
  (void)out;
  return AIRLOCK_STATUS_UNCHANGED;
}

AIRLOCK_PLUGIN_EXPORT uint32_t airlock_plugin_abi_version(void) { return AIRLOCK_ABI_VERSION; }

AIRLOCK_PLUGIN_EXPORT airlock_status airlock_plugin_init(const airlock_host_api* host,
                                                         airlock_plugin_ctx* ctx) {
  airlock_plugin_info info = {0};
  info.struct_size = sizeof info;
  info.name = (airlock_str)STR("airlock-identity");
  info.version = (airlock_str)STR("1.0.0");
  info.description = (airlock_str)STR("the sanitizer that changes nothing");
  airlock_status status = host->set_plugin_info(ctx, &info);
  if (status != AIRLOCK_STATUS_OK) return status;

  airlock_sanitizer_def def = {0};
  def.struct_size = sizeof def;
  def.name = (airlock_str)STR("airlock.identity");
  def.description = (airlock_str)STR("returns every text unchanged");
  def.on_text = on_text;
  return host->register_sanitizer(ctx, &def);
}
