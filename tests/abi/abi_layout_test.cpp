// abi_layout_test.cpp — pins the released ABI (1.0 to 1.5) as data: every
// offset, size, signature and number of airlock.h, for x86_64 LP64. A failure here means a
// change broke plugins already built; grow structs at their end instead.
#include <airlock/airlock.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

#if !defined(__x86_64__) || !defined(__LP64__)
#error "these layout pins are for x86_64 LP64"
#endif

#define AIRLOCK_PIN(type, member, offset) \
  static_assert(offsetof(type, member) == (offset), #type "." #member " moved")
#define AIRLOCK_PIN_TYPE(type, member, ...) \
  static_assert(std::is_same_v<decltype(type::member), __VA_ARGS__>, #type "." #member " changed type")

static_assert(sizeof(airlock_str) == 16);
AIRLOCK_PIN(airlock_str, ptr, 0);
AIRLOCK_PIN(airlock_str, len, 8);

static_assert(sizeof(airlock_plugin_info) == 72);
AIRLOCK_PIN(airlock_plugin_info, struct_size, 0);
AIRLOCK_PIN(airlock_plugin_info, name, 8);
AIRLOCK_PIN(airlock_plugin_info, version, 24);
AIRLOCK_PIN(airlock_plugin_info, description, 40);
AIRLOCK_PIN(airlock_plugin_info, plugin_data, 56);
AIRLOCK_PIN(airlock_plugin_info, on_destroy, 64);
AIRLOCK_PIN_TYPE(airlock_plugin_info, on_destroy, void (*)(void*));

static_assert(sizeof(airlock_tool_def) == 144);
AIRLOCK_PIN(airlock_tool_def, struct_size, 0);
AIRLOCK_PIN(airlock_tool_def, name, 8);
AIRLOCK_PIN(airlock_tool_def, title, 24);
AIRLOCK_PIN(airlock_tool_def, description, 40);
AIRLOCK_PIN(airlock_tool_def, input_schema, 56);
AIRLOCK_PIN(airlock_tool_def, output_schema, 72);
AIRLOCK_PIN(airlock_tool_def, annotations, 88);
AIRLOCK_PIN(airlock_tool_def, flags, 104);
AIRLOCK_PIN(airlock_tool_def, tool_data, 112);
AIRLOCK_PIN(airlock_tool_def, on_call, 120);
AIRLOCK_PIN_TYPE(airlock_tool_def, on_call, airlock_status (*)(void*, airlock_call*, airlock_str));
AIRLOCK_PIN(airlock_tool_def, required_client_capabilities, 128);  // Added in ABI 1.5
AIRLOCK_PIN_TYPE(airlock_tool_def, required_client_capabilities, airlock_str);

static_assert(sizeof(airlock_sanitizer_def) == 64);
AIRLOCK_PIN(airlock_sanitizer_def, struct_size, 0);
AIRLOCK_PIN(airlock_sanitizer_def, name, 8);
AIRLOCK_PIN(airlock_sanitizer_def, description, 24);
AIRLOCK_PIN(airlock_sanitizer_def, sanitizer_data, 40);
AIRLOCK_PIN(airlock_sanitizer_def, on_text, 48);
AIRLOCK_PIN(airlock_sanitizer_def, on_result, 56);
AIRLOCK_PIN_TYPE(airlock_sanitizer_def, on_text, airlock_status (*)(void*, airlock_str, airlock_text_writer*));
AIRLOCK_PIN_TYPE(airlock_sanitizer_def, on_result,
                 airlock_status (*)(void*, const airlock_request_context*, airlock_str, airlock_str, airlock_str,
                                    airlock_result_writer*));

static_assert(sizeof(airlock_request_context) == 88);
AIRLOCK_PIN(airlock_request_context, struct_size, 0);
AIRLOCK_PIN(airlock_request_context, protocol_version, 8);
AIRLOCK_PIN(airlock_request_context, session_id, 24);
AIRLOCK_PIN(airlock_request_context, caller, 40);
AIRLOCK_PIN(airlock_request_context, request_id, 56);
AIRLOCK_PIN(airlock_request_context, client_capabilities, 72);  // Added in ABI 1.5
AIRLOCK_PIN_TYPE(airlock_request_context, client_capabilities, airlock_str);

// ABI 1.3: resources, resource templates, prompts.
static_assert(sizeof(airlock_resource_def) == 120);
AIRLOCK_PIN(airlock_resource_def, struct_size, 0);
AIRLOCK_PIN(airlock_resource_def, uri, 8);
AIRLOCK_PIN(airlock_resource_def, name, 24);
AIRLOCK_PIN(airlock_resource_def, title, 40);
AIRLOCK_PIN(airlock_resource_def, description, 56);
AIRLOCK_PIN(airlock_resource_def, mime_type, 72);
AIRLOCK_PIN(airlock_resource_def, annotations, 88);
AIRLOCK_PIN(airlock_resource_def, resource_data, 104);
AIRLOCK_PIN(airlock_resource_def, on_read, 112);
AIRLOCK_PIN_TYPE(airlock_resource_def, on_read,
                 airlock_status (*)(void*, const airlock_request_context*, airlock_str, airlock_str,
                                    airlock_resource_writer*));

static_assert(sizeof(airlock_resource_template_def) == 128);
AIRLOCK_PIN(airlock_resource_template_def, struct_size, 0);
AIRLOCK_PIN(airlock_resource_template_def, uri_template, 8);
AIRLOCK_PIN(airlock_resource_template_def, name, 24);
AIRLOCK_PIN(airlock_resource_template_def, title, 40);
AIRLOCK_PIN(airlock_resource_template_def, description, 56);
AIRLOCK_PIN(airlock_resource_template_def, mime_type, 72);
AIRLOCK_PIN(airlock_resource_template_def, annotations, 88);
AIRLOCK_PIN(airlock_resource_template_def, template_data, 104);
AIRLOCK_PIN(airlock_resource_template_def, on_read, 112);
AIRLOCK_PIN(airlock_resource_template_def, on_complete, 120);
AIRLOCK_PIN_TYPE(airlock_resource_template_def, on_complete,
                 airlock_status (*)(void*, const airlock_request_context*, airlock_str, airlock_str, airlock_str,
                                    airlock_completion_writer*));

static_assert(sizeof(airlock_prompt_def) == 96);
AIRLOCK_PIN(airlock_prompt_def, struct_size, 0);
AIRLOCK_PIN(airlock_prompt_def, name, 8);
AIRLOCK_PIN(airlock_prompt_def, title, 24);
AIRLOCK_PIN(airlock_prompt_def, description, 40);
AIRLOCK_PIN(airlock_prompt_def, arguments, 56);
AIRLOCK_PIN(airlock_prompt_def, prompt_data, 72);
AIRLOCK_PIN(airlock_prompt_def, on_get, 80);
AIRLOCK_PIN(airlock_prompt_def, on_complete, 88);
AIRLOCK_PIN_TYPE(airlock_prompt_def, on_get,
                 airlock_status (*)(void*, const airlock_request_context*, airlock_str, airlock_str,
                                    airlock_prompt_writer*));

// ABI 1.4: the egress structs.
static_assert(sizeof(airlock_fetch_header) == 32);
AIRLOCK_PIN(airlock_fetch_header, name, 0);
AIRLOCK_PIN(airlock_fetch_header, value, 16);
static_assert(sizeof(airlock_fetch_request) == 88);
AIRLOCK_PIN(airlock_fetch_request, struct_size, 0);
AIRLOCK_PIN(airlock_fetch_request, flags, 4);
AIRLOCK_PIN(airlock_fetch_request, method, 8);
AIRLOCK_PIN(airlock_fetch_request, url, 24);
AIRLOCK_PIN(airlock_fetch_request, headers, 40);
AIRLOCK_PIN(airlock_fetch_request, header_count, 48);
AIRLOCK_PIN(airlock_fetch_request, body, 56);
AIRLOCK_PIN(airlock_fetch_request, timeout_ms, 72);
AIRLOCK_PIN(airlock_fetch_request, max_response_bytes, 80);
static_assert(sizeof(airlock_fetch_response) == 80);
AIRLOCK_PIN(airlock_fetch_response, struct_size, 0);
AIRLOCK_PIN(airlock_fetch_response, http_status, 4);
AIRLOCK_PIN(airlock_fetch_response, final_url, 8);
AIRLOCK_PIN(airlock_fetch_response, content_type, 24);
AIRLOCK_PIN(airlock_fetch_response, body, 40);
AIRLOCK_PIN(airlock_fetch_response, truncated, 56);
AIRLOCK_PIN(airlock_fetch_response, error, 64);

// 1.0 ends at result_write (112 bytes); 1.1 adds two members (128 bytes);
// 1.2 adds six (176 bytes); 1.3 adds fifteen (296 bytes); 1.4 adds one (304);
// 1.5 adds five (344).
static_assert(sizeof(airlock_host_api) == 344);
AIRLOCK_PIN(airlock_host_api, call_fetch, 296);                  // Added in ABI 1.4
AIRLOCK_PIN(airlock_host_api, call_input_request, 304);          // Added in ABI 1.5
AIRLOCK_PIN(airlock_host_api, prompt_input_request, 312);        // Added in ABI 1.5
AIRLOCK_PIN(airlock_host_api, resource_input_request, 320);      // Added in ABI 1.5
AIRLOCK_PIN(airlock_host_api, notify_list_changed, 328);         // Added in ABI 1.5
AIRLOCK_PIN(airlock_host_api, call_start_task, 336);             // Added in ABI 1.5
AIRLOCK_PIN(airlock_host_api, struct_size, 0);
AIRLOCK_PIN(airlock_host_api, abi_version, 4);
AIRLOCK_PIN(airlock_host_api, set_plugin_info, 8);
AIRLOCK_PIN(airlock_host_api, get_config, 16);
AIRLOCK_PIN(airlock_host_api, register_tool, 24);
AIRLOCK_PIN(airlock_host_api, register_sanitizer, 32);
AIRLOCK_PIN(airlock_host_api, set_init_error, 40);
AIRLOCK_PIN(airlock_host_api, log, 48);
AIRLOCK_PIN(airlock_host_api, result_set_structured, 56);
AIRLOCK_PIN(airlock_host_api, result_add_text, 64);
AIRLOCK_PIN(airlock_host_api, result_set_json, 72);
AIRLOCK_PIN(airlock_host_api, result_set_error, 80);
AIRLOCK_PIN(airlock_host_api, is_cancelled, 88);
AIRLOCK_PIN(airlock_host_api, text_write, 96);
AIRLOCK_PIN(airlock_host_api, result_write, 104);
AIRLOCK_PIN(airlock_host_api, result_add_untrusted_text, 112);  // Added in ABI 1.1
AIRLOCK_PIN(airlock_host_api, result_mark_untrusted, 120);      // Added in ABI 1.1
AIRLOCK_PIN(airlock_host_api, call_progress, 128);               // Added in ABI 1.2
AIRLOCK_PIN(airlock_host_api, call_log, 136);                    // Added in ABI 1.2
AIRLOCK_PIN(airlock_host_api, call_client_request, 144);         // Added in ABI 1.2
AIRLOCK_PIN(airlock_host_api, call_client_capabilities, 152);    // Added in ABI 1.2
AIRLOCK_PIN(airlock_host_api, call_end_stream, 160);             // Added in ABI 1.2
AIRLOCK_PIN(airlock_host_api, call_request_meta, 168);           // Added in ABI 1.2
AIRLOCK_PIN(airlock_host_api, register_resource, 176);           // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, register_resource_template, 184);  // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, register_prompt, 192);             // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, unregister_resource, 200);         // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, unregister_prompt, 208);           // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, resource_updated, 216);            // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, resource_add_text, 224);           // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, resource_add_blob, 232);           // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, prompt_set_description, 240);      // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, prompt_add_text, 248);             // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, prompt_add_image, 256);            // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, prompt_add_resource, 264);         // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, prompt_add_message, 272);          // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, completion_add, 280);              // Added in ABI 1.3
AIRLOCK_PIN(airlock_host_api, completion_set_total, 288);        // Added in ABI 1.3
AIRLOCK_PIN_TYPE(airlock_host_api, set_plugin_info, airlock_status (*)(airlock_plugin_ctx*, const airlock_plugin_info*));
AIRLOCK_PIN_TYPE(airlock_host_api, get_config, airlock_str (*)(airlock_plugin_ctx*));
AIRLOCK_PIN_TYPE(airlock_host_api, register_tool, airlock_status (*)(airlock_plugin_ctx*, const airlock_tool_def*));
AIRLOCK_PIN_TYPE(airlock_host_api, register_sanitizer,
                 airlock_status (*)(airlock_plugin_ctx*, const airlock_sanitizer_def*));
AIRLOCK_PIN_TYPE(airlock_host_api, set_init_error, void (*)(airlock_plugin_ctx*, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, log, void (*)(airlock_plugin_ctx*, airlock_log_level, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, result_set_structured, airlock_status (*)(airlock_call*, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, result_add_text, airlock_status (*)(airlock_call*, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, result_set_json, airlock_status (*)(airlock_call*, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, result_set_error, airlock_status (*)(airlock_call*, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, is_cancelled, int32_t (*)(const airlock_call*));
AIRLOCK_PIN_TYPE(airlock_host_api, text_write, airlock_status (*)(airlock_text_writer*, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, result_write, airlock_status (*)(airlock_result_writer*, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, result_add_untrusted_text, airlock_status (*)(airlock_call*, airlock_str, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, result_mark_untrusted, airlock_status (*)(airlock_call*, airlock_str, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, call_progress, airlock_status (*)(airlock_call*, double, double, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, call_log,
                 airlock_status (*)(airlock_call*, airlock_client_log_level, airlock_str, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, call_client_request,
                 airlock_status (*)(airlock_call*, airlock_str, airlock_str, uint32_t, airlock_str*));
AIRLOCK_PIN_TYPE(airlock_host_api, call_client_capabilities, airlock_str (*)(const airlock_call*));
AIRLOCK_PIN_TYPE(airlock_host_api, call_end_stream, void (*)(airlock_call*));
AIRLOCK_PIN_TYPE(airlock_host_api, call_request_meta, airlock_str (*)(const airlock_call*));
AIRLOCK_PIN_TYPE(airlock_host_api, register_resource,
                 airlock_status (*)(airlock_plugin_ctx*, const airlock_resource_def*));
AIRLOCK_PIN_TYPE(airlock_host_api, register_resource_template,
                 airlock_status (*)(airlock_plugin_ctx*, const airlock_resource_template_def*));
AIRLOCK_PIN_TYPE(airlock_host_api, register_prompt, airlock_status (*)(airlock_plugin_ctx*, const airlock_prompt_def*));
AIRLOCK_PIN_TYPE(airlock_host_api, unregister_resource, airlock_status (*)(airlock_plugin_ctx*, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, unregister_prompt, airlock_status (*)(airlock_plugin_ctx*, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, resource_updated, airlock_status (*)(airlock_plugin_ctx*, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, resource_add_text,
                 airlock_status (*)(airlock_resource_writer*, airlock_str, airlock_str, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, resource_add_blob,
                 airlock_status (*)(airlock_resource_writer*, airlock_str, airlock_str, const void*, size_t));
AIRLOCK_PIN_TYPE(airlock_host_api, prompt_set_description, airlock_status (*)(airlock_prompt_writer*, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, prompt_add_text,
                 airlock_status (*)(airlock_prompt_writer*, airlock_str, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, prompt_add_image,
                 airlock_status (*)(airlock_prompt_writer*, airlock_str, airlock_str, const void*, size_t));
AIRLOCK_PIN_TYPE(airlock_host_api, prompt_add_resource,
                 airlock_status (*)(airlock_prompt_writer*, airlock_str, airlock_str, airlock_str, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, prompt_add_message, airlock_status (*)(airlock_prompt_writer*, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, completion_add, airlock_status (*)(airlock_completion_writer*, airlock_str));
AIRLOCK_PIN_TYPE(airlock_host_api, completion_set_total, airlock_status (*)(airlock_completion_writer*, uint64_t));
AIRLOCK_PIN_TYPE(airlock_host_api, call_fetch,
                 airlock_status (*)(airlock_call*, const airlock_fetch_request*, airlock_fetch_response*));
AIRLOCK_PIN_TYPE(airlock_host_api, call_input_request,
                 airlock_status (*)(airlock_call*, airlock_str, airlock_str, airlock_str, uint32_t, airlock_str*));
AIRLOCK_PIN_TYPE(airlock_host_api, prompt_input_request,
                 airlock_status (*)(airlock_prompt_writer*, airlock_str, airlock_str, airlock_str, uint32_t,
                                    airlock_str*));
AIRLOCK_PIN_TYPE(airlock_host_api, resource_input_request,
                 airlock_status (*)(airlock_resource_writer*, airlock_str, airlock_str, airlock_str, uint32_t,
                                    airlock_str*));
AIRLOCK_PIN_TYPE(airlock_host_api, notify_list_changed, airlock_status (*)(airlock_plugin_ctx*, uint32_t));
AIRLOCK_PIN_TYPE(airlock_host_api, call_start_task, airlock_status (*)(airlock_call*));

static_assert(std::is_same_v<airlock_status, std::int32_t>);
static_assert(std::is_same_v<airlock_log_level, std::int32_t>);
static_assert(std::is_same_v<airlock_client_log_level, std::int32_t>);
static_assert(std::is_same_v<decltype(airlock_plugin_abi_version), std::uint32_t()>);
static_assert(std::is_same_v<decltype(airlock_plugin_init), airlock_status(const airlock_host_api*, airlock_plugin_ctx*)>);

TEST(AbiLayout, VersionIsOnePointFive) {
  EXPECT_EQ(AIRLOCK_ABI_VERSION, 0x00010005u);
  EXPECT_EQ(AIRLOCK_ABI_VERSION_MAJOR, 1);
  EXPECT_EQ(AIRLOCK_ABI_VERSION_MINOR, 5);
  EXPECT_TRUE((std::is_same_v<std::remove_cv_t<decltype(AIRLOCK_ABI_VERSION)>, std::uint32_t>));
}

TEST(AbiLayout, StatusValuesNeverChange) {
  EXPECT_EQ(AIRLOCK_STATUS_OK, 0);
  EXPECT_EQ(AIRLOCK_STATUS_UNCHANGED, 1);
  EXPECT_EQ(AIRLOCK_STATUS_TOOL_ERROR, 2);
  EXPECT_EQ(AIRLOCK_STATUS_CANCELLED, 3);
  EXPECT_EQ(AIRLOCK_STATUS_INVALID_ARGUMENT, 4);
  EXPECT_EQ(AIRLOCK_STATUS_ALREADY_SET, 5);
  EXPECT_EQ(AIRLOCK_STATUS_INTERNAL, 6);
  EXPECT_EQ(AIRLOCK_STATUS_UNSUPPORTED, 7);
  EXPECT_EQ(AIRLOCK_STATUS_TIMEOUT, 8);    // ABI 1.2
  EXPECT_EQ(AIRLOCK_STATUS_NOT_FOUND, 9);  // ABI 1.3
  EXPECT_EQ(AIRLOCK_STATUS_DENIED, 10);         // ABI 1.4
  EXPECT_EQ(AIRLOCK_STATUS_NETWORK_ERROR, 11);  // ABI 1.4
  EXPECT_EQ(AIRLOCK_STATUS_INPUT_REQUIRED, 12);  // ABI 1.5
  EXPECT_EQ(AIRLOCK_STATUS_TASK_STARTED, 13);    // ABI 1.5
}

TEST(AbiLayout, ClientLogLevelsNeverChange) {
  EXPECT_EQ(AIRLOCK_CLIENT_LOG_DEBUG, 0);
  EXPECT_EQ(AIRLOCK_CLIENT_LOG_INFO, 1);
  EXPECT_EQ(AIRLOCK_CLIENT_LOG_NOTICE, 2);
  EXPECT_EQ(AIRLOCK_CLIENT_LOG_WARNING, 3);
  EXPECT_EQ(AIRLOCK_CLIENT_LOG_ERROR, 4);
  EXPECT_EQ(AIRLOCK_CLIENT_LOG_CRITICAL, 5);
  EXPECT_EQ(AIRLOCK_CLIENT_LOG_ALERT, 6);
  EXPECT_EQ(AIRLOCK_CLIENT_LOG_EMERGENCY, 7);
}

TEST(AbiLayout, LogLevelsAndToolFlagsNeverChange) {
  EXPECT_EQ(AIRLOCK_LOG_TRACE, 0);
  EXPECT_EQ(AIRLOCK_LOG_DEBUG, 1);
  EXPECT_EQ(AIRLOCK_LOG_INFO, 2);
  EXPECT_EQ(AIRLOCK_LOG_WARN, 3);
  EXPECT_EQ(AIRLOCK_LOG_ERROR, 4);
  EXPECT_EQ(AIRLOCK_TOOL_REENTRANT, 1u);
  EXPECT_EQ(AIRLOCK_TOOL_CANCELLABLE, 2u);
  EXPECT_EQ(AIRLOCK_TOOL_TASK_OPTIONAL, 4u);  // ABI 1.5
  EXPECT_EQ(AIRLOCK_TOOL_TASK_REQUIRED, 8u);  // ABI 1.5
  EXPECT_TRUE((std::is_same_v<std::remove_cv_t<decltype(AIRLOCK_TOOL_TASK_REQUIRED)>, std::uint32_t>));
  EXPECT_EQ(AIRLOCK_FETCH_FOLLOW_REDIRECTS, 1u);  // ABI 1.4
}

TEST(AbiLayout, ListValuesNeverChange) {  // ABI 1.5, notify_list_changed
  EXPECT_EQ(AIRLOCK_LIST_TOOLS, 1u);
  EXPECT_EQ(AIRLOCK_LIST_PROMPTS, 2u);
  EXPECT_EQ(AIRLOCK_LIST_RESOURCES, 3u);
  EXPECT_TRUE((std::is_same_v<std::remove_cv_t<decltype(AIRLOCK_LIST_TOOLS)>, std::uint32_t>));
}

// The pins above are compile-time; this keeps them visible in test output.
TEST(AbiLayout, StructSizesMatchTheReleasedLayout) {
  EXPECT_EQ(sizeof(airlock_str), 16u);
  EXPECT_EQ(sizeof(airlock_plugin_info), 72u);
  EXPECT_EQ(sizeof(airlock_tool_def), 144u);  // 1.0: 128; 1.5 added required_client_capabilities
  EXPECT_EQ(sizeof(airlock_sanitizer_def), 64u);
  EXPECT_EQ(sizeof(airlock_request_context), 88u);  // 1.0: 72; 1.5 added client_capabilities
  EXPECT_EQ(sizeof(airlock_resource_def), 120u);           // ABI 1.3
  EXPECT_EQ(sizeof(airlock_resource_template_def), 128u);  // ABI 1.3
  EXPECT_EQ(sizeof(airlock_prompt_def), 96u);              // ABI 1.3
  EXPECT_EQ(sizeof(airlock_fetch_request), 88u);   // ABI 1.4
  EXPECT_EQ(sizeof(airlock_fetch_response), 80u);  // ABI 1.4
  EXPECT_EQ(sizeof(airlock_host_api), 344u);  // 1.0: 112; 1.1: 128; 1.2: 176; 1.3: 296; 1.4: 304; 1.5: 344
}
