// The functions ABI 1.3 adds to airlock_host_api: registering resources,
// resource templates and prompts (at init or later), and the writers their
// hooks fill. host_api.cpp puts them in the table; like every table entry,
// none throws.
#pragma once

#include <airlock/airlock.h>

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace airlock::host::content_api {

airlock_status register_resource(airlock_plugin_ctx* ctx, const airlock_resource_def* def) noexcept;
airlock_status register_resource_template(airlock_plugin_ctx* ctx, const airlock_resource_template_def* def) noexcept;
airlock_status register_prompt(airlock_plugin_ctx* ctx, const airlock_prompt_def* def) noexcept;
airlock_status unregister_resource(airlock_plugin_ctx* ctx, airlock_str uri) noexcept;
airlock_status unregister_prompt(airlock_plugin_ctx* ctx, airlock_str name) noexcept;
airlock_status resource_updated(airlock_plugin_ctx* ctx, airlock_str uri) noexcept;

airlock_status resource_add_text(airlock_resource_writer* out, airlock_str uri, airlock_str mime_type,
                                 airlock_str text) noexcept;
airlock_status resource_add_blob(airlock_resource_writer* out, airlock_str uri, airlock_str mime_type,
                                 const void* bytes, size_t len) noexcept;
airlock_status prompt_set_description(airlock_prompt_writer* out, airlock_str description) noexcept;
airlock_status prompt_add_text(airlock_prompt_writer* out, airlock_str role, airlock_str text) noexcept;
airlock_status prompt_add_image(airlock_prompt_writer* out, airlock_str role, airlock_str mime_type,
                                const void* bytes, size_t len) noexcept;
airlock_status prompt_add_resource(airlock_prompt_writer* out, airlock_str role, airlock_str uri,
                                   airlock_str mime_type, airlock_str text) noexcept;
airlock_status prompt_add_message(airlock_prompt_writer* out, airlock_str message_json) noexcept;
airlock_status completion_add(airlock_completion_writer* out, airlock_str value) noexcept;
airlock_status completion_set_total(airlock_completion_writer* out, uint64_t total) noexcept;

}  // namespace airlock::host::content_api

namespace airlock::host {

// Says what is wrong with `message` as an MCP PromptMessage (a role, and a
// text, image, audio, resource or resource_link block, bytes in base64), or
// nothing. Names fields only, never values.
std::optional<std::string> prompt_message_shape_error(const boost::json::object& message);

}  // namespace airlock::host
