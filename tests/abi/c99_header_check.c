/* c99_header_check.c — airlock.h must compile as strict C99 with every
 * warning an error, on its own, as the first include. */
#include <airlock/airlock.h>

/* Uses each macro so that a typo in one fails the build. */
static const uint32_t k_version = AIRLOCK_ABI_VERSION;
static const uint32_t k_flags = AIRLOCK_TOOL_REENTRANT | AIRLOCK_TOOL_CANCELLABLE;

uint32_t airlock_c99_header_check(void);
uint32_t airlock_c99_header_check(void) {
  airlock_str empty = {NULL, 0};
  airlock_tool_def tool = {0};
  tool.struct_size = sizeof tool;
  airlock_resource_def resource = {0};
  airlock_resource_template_def resource_template = {0};
  airlock_prompt_def prompt = {0};
  tool.name = empty;
  resource.struct_size = sizeof resource;
  resource_template.struct_size = sizeof resource_template;
  prompt.struct_size = sizeof prompt;
  return k_version + k_flags + (uint32_t)tool.struct_size + (uint32_t)AIRLOCK_STATUS_UNSUPPORTED +
         (uint32_t)AIRLOCK_LOG_ERROR + (uint32_t)AIRLOCK_STATUS_TIMEOUT + (uint32_t)AIRLOCK_CLIENT_LOG_EMERGENCY +
         (uint32_t)AIRLOCK_STATUS_NOT_FOUND + (uint32_t)resource.struct_size +
         (uint32_t)resource_template.struct_size + (uint32_t)prompt.struct_size;
}
