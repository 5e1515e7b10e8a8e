/* c_plugin.c — the smallest C plugin a vendor builds from the installed SDK
 * with nothing but `cc $(pkg-config --cflags airlock)`: one text sanitizer
 * that leaves every text as it is. */
#include <airlock/airlock.h>

#define STR(literal) {literal, sizeof(literal) - 1}

/* Host calls this on any worker thread, concurrently; it keeps no state. */
static airlock_status keep_text(void* sanitizer_data, airlock_str text, airlock_text_writer* out) {
  (void)sanitizer_data;
  (void)text;
  (void)out;
  return AIRLOCK_STATUS_UNCHANGED;
}

AIRLOCK_PLUGIN_EXPORT uint32_t airlock_plugin_abi_version(void) { return AIRLOCK_ABI_VERSION; }

/* Host calls this once, on the loading thread. */
AIRLOCK_PLUGIN_EXPORT airlock_status airlock_plugin_init(const airlock_host_api* host,
                                                         airlock_plugin_ctx* ctx) {
  airlock_plugin_info info = {0};
  airlock_sanitizer_def def = {0};
  airlock_status status;

  info.struct_size = sizeof info;
  info.name = (airlock_str)STR("packaging-c-plugin");
  info.version = (airlock_str)STR("1.0.0");
  info.description = (airlock_str)STR("built with pkg-config against the installed SDK");
  status = host->set_plugin_info(ctx, &info);
  if (status != AIRLOCK_STATUS_OK) return status;

  def.struct_size = sizeof def;
  def.name = (airlock_str)STR("packaging.keep-text");
  def.description = (airlock_str)STR("returns every text unchanged");
  def.on_text = keep_text;
  return host->register_sanitizer(ctx, &def);
}
