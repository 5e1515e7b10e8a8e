// What a loaded plugin contributes, in host terms: tools and sanitizers with
// their definitions copied, parsed and ready for the hot path.
#pragma once

#include "egress/egress_record.hpp"
#include "plugins/tool_headers.hpp"
#include "schema/schema_validator.hpp"

#include <airlock/airlock.h>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace airlock::host {

class PluginLibrary;

struct Tool {
  std::string name;
  std::string title;
  std::string description;
  boost::json::object input_schema;
  std::optional<boost::json::object> output_schema;
  std::optional<boost::json::object> annotations;
  // Compiled once, at registration; null output_validator: no outputSchema.
  std::shared_ptr<const SchemaValidator> input_validator;
  std::shared_ptr<const SchemaValidator> output_validator;
  std::uint32_t flags = 0;
  void* tool_data = nullptr;
  airlock_on_call_fn on_call = nullptr;
  // The arguments a 2026-07-28 client repeats as Mcp-Param-* headers
  // (x-mcp-header in the inputSchema), checked against the body.
  std::vector<HeaderParam> header_params;
  // ClientCapabilities a 2026-07-28 request must declare to call it (ABI
  // 1.5); empty: none.
  boost::json::object required_client_capabilities;

  // Keeps the shared object loaded while the tool can still be called.
  std::shared_ptr<PluginLibrary> owner;
  // Serializes calls of a tool that is not AIRLOCK_TOOL_REENTRANT.
  std::unique_ptr<std::mutex> serial = std::make_unique<std::mutex>();

  bool reentrant() const { return (flags & AIRLOCK_TOOL_REENTRANT) != 0; }
  bool cancellable() const { return (flags & AIRLOCK_TOOL_CANCELLABLE) != 0; }
  // ABI 1.5: may run as a durable task; runs only as one.
  bool task_capable() const { return (flags & (AIRLOCK_TOOL_TASK_OPTIONAL | AIRLOCK_TOOL_TASK_REQUIRED)) != 0; }
  bool task_required() const { return (flags & AIRLOCK_TOOL_TASK_REQUIRED) != 0; }
};

enum class SanitizerKind { text, result };

struct Sanitizer {
  std::string name;
  std::string description;
  SanitizerKind kind = SanitizerKind::text;
  void* data = nullptr;
  airlock_on_text_fn on_text = nullptr;
  airlock_on_result_fn on_result = nullptr;
  std::shared_ptr<PluginLibrary> owner;
};

// A tool result as the tool left it, before any stage of the pipeline.
struct ToolOutput {
  boost::json::array content;                    // result_add_text
  std::optional<boost::json::object> structured;  // result_set_structured
  std::optional<boost::json::object> whole;       // result_set_json
  std::optional<std::string> error_message;       // result_set_error
  struct UntrustedField {
    std::string pointer;  // RFC 6901, into structuredContent
    std::string source;
  };
  std::vector<UntrustedField> untrusted_fields;  // result_mark_untrusted
  // Every destination the call reached or was refused (call_fetch), in
  // order: the result's provenance, added after the chain.
  std::vector<EgressRecord> egress;
};

}  // namespace airlock::host
