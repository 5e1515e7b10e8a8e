// conformance-pack: every tool, resource, resource template and prompt the
// official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16,
// `--suite all`) calls on a server, with the names, descriptions, schemas and
// contents its reference server ("everything-server") advertises. Served by
// examples/conformance-pack/airlock.toml; tests/interop runs the suite
// against it (ctest -R conformance_all).
//
// It is also the example of everything a plugin can do besides plain tools:
// image, audio and embedded-resource content, logging to the client,
// progress, sampling and elicitation (ABI 1.2), and resources, templates,
// prompts and completions (ABI 1.3).
#include <airlock/airlock.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using airlock::sdk::Call;
using airlock::sdk::Contents;
using airlock::sdk::LogLevel;
using airlock::sdk::Messages;
using airlock::sdk::PromptRequest;
using airlock::sdk::ReadRequest;
using airlock::sdk::StatusError;
using airlock::sdk::Text;
using boost::json::array;
using boost::json::object;

// A 1x1 red PNG and a minimal WAV, as the suite's fixtures spell them.
constexpr std::string_view kPng =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
constexpr std::string_view kWav = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

constexpr std::string_view kNoArguments = R"({"type":"object","properties":{}})";

// Tools that wait (on timers or the client) say they are cancellable, so a
// cancelled call stops waiting; every tool here is reentrant.
constexpr std::uint32_t kFlags = AIRLOCK_TOOL_REENTRANT | AIRLOCK_TOOL_CANCELLABLE;

// The host base64-encodes resource blobs itself, so the binary resource
// hands it the PNG's bytes: decoded once, at init.
std::string decode_base64(std::string_view text) {
  auto sextet = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string bytes;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    const int v = sextet(c);
    if (v < 0) throw std::invalid_argument("not base64");
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<char>((buffer >> bits) & 0xffu));
    }
  }
  return bytes;
}

// Sleeps in short steps, so a cancelled call stops soon.
void pause(const Call& call, std::chrono::milliseconds total) {
  for (auto slept = std::chrono::milliseconds(0); slept < total; slept += std::chrono::milliseconds(10)) {
    call.throw_if_cancelled();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// String(token) as the reference server writes it: a string as it is, a
// number in decimal; "0" without a token (its `?? 0`).
std::string token_text(const object& meta) {
  const boost::json::value* token = meta.if_contains("progressToken");
  if (token == nullptr) return "0";
  if (token->is_string()) return std::string(token->get_string());
  return boost::json::serialize(*token);
}

object text_block(std::string_view text) { return object{{"type", "text"}, {"text", text}}; }

// A CallToolResult made of `blocks`.
object content(array blocks) { return object{{"content", std::move(blocks)}}; }

// "<prefix>action=<action>, content=<content as JSON>": how the reference
// server reports an elicitation's answer.
std::string elicitation_report(std::string_view prefix, const object& answer) {
  const boost::json::value* action = answer.if_contains("action");
  const boost::json::value* given = answer.if_contains("content");
  return std::string(prefix) + "action=" +
         (action != nullptr && action->is_string() ? std::string(action->get_string()) : std::string("undefined")) +
         ", content=" + (given != nullptr ? boost::json::serialize(*given) : std::string("{}"));
}

// Asks the client to fill in a form; a client that cannot, or declines with
// an error, gets the reference server's words for it instead of a failure.
Text elicit(Call& call, std::string_view prefix, object params) {
  try {
    return Text{elicitation_report(prefix, call.elicit(params))};
  } catch (const StatusError& e) {
    return Text{std::string("Elicitation not supported or error: ") + e.what()};
  }
}

void register_tools(airlock::sdk::Plugin& plugin) {
  plugin.tool({.name = "test_simple_text", .description = "Tests simple text content response",
               .input_schema = kNoArguments, .flags = kFlags},
              [](const object&, Call&) { return Text{"This is a simple text response for testing."}; });

  plugin.tool({.name = "test_image_content", .description = "Tests image content response",
               .input_schema = kNoArguments, .flags = kFlags},
              [](const object&, Call& call) {
                call.set_json(content({object{{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}}}));
              });

  plugin.tool({.name = "test_audio_content", .description = "Tests audio content response",
               .input_schema = kNoArguments, .flags = kFlags},
              [](const object&, Call& call) {
                call.set_json(content({object{{"type", "audio"}, {"data", kWav}, {"mimeType", "audio/wav"}}}));
              });

  plugin.tool({.name = "test_embedded_resource", .description = "Tests embedded resource content response",
               .input_schema = kNoArguments, .flags = kFlags},
              [](const object&, Call& call) {
                call.set_json(content({object{{"type", "resource"},
                                              {"resource", object{{"uri", "test://embedded-resource"},
                                                                  {"mimeType", "text/plain"},
                                                                  {"text", "This is an embedded resource content."}}}}}));
              });

  plugin.tool({.name = "test_multiple_content_types",
               .description = "Tests response with multiple content types (text, image, resource)",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                const std::string json = boost::json::serialize(object{{"test", "data"}, {"value", 123}});
                call.set_json(content({text_block("Multiple content types test:"),
                                       object{{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}},
                                       object{{"type", "resource"},
                                              {"resource", object{{"uri", "test://mixed-content-resource"},
                                                                  {"mimeType", "application/json"},
                                                                  {"text", json}}}}}));
              });

  plugin.tool({.name = "test_tool_with_logging",
               .description = "Tests tool that emits log messages during execution",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                call.log(LogLevel::info, "Tool execution started");
                pause(call, std::chrono::milliseconds(50));
                call.log(LogLevel::info, "Tool processing data");
                pause(call, std::chrono::milliseconds(50));
                call.log(LogLevel::info, "Tool execution completed");
                return Text{"Tool with logging executed successfully"};
              });

  plugin.tool({.name = "test_tool_with_progress",
               .description = "Tests tool that reports progress notifications",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                for (int step = 0; step <= 100; step += 50) {
                  if (step > 0) pause(call, std::chrono::milliseconds(50));
                  call.progress(step, 100, "Completed step " + std::to_string(step) + " of 100");
                }
                return Text{token_text(call.request_meta())};
              });

  plugin.tool({.name = "test_error_handling", .description = "Tests error response handling",
               .input_schema = kNoArguments, .flags = kFlags},
              [](const object&, Call&) -> Text {
                throw std::runtime_error("This tool intentionally returns an error for testing");
              });

  plugin.tool({.name = "test_reconnection",
               .description = "Tests SSE stream disconnection and client reconnection (SEP-1699). Server will "
                              "close the stream mid-call and send the result after client reconnects.",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                call.end_stream();
                pause(call, std::chrono::milliseconds(100));
                return Text{"Reconnection test completed successfully. If you received this, the client properly "
                            "reconnected after stream closure."};
              });

  plugin.tool(
      {.name = "test_sampling",
       .description = "Tests server-initiated sampling (LLM completion request)",
       .input_schema = R"({"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"]})",
       .flags = kFlags},
      [](const object& args, Call& call) {
        const object question{{"role", "user"}, {"content", text_block(airlock::sdk::string_arg(args, "prompt"))}};
        try {
          const object answer = call.sample(object{{"messages", array{question}}, {"maxTokens", 100}});
          const boost::json::value* said = answer.if_contains("content");
          const boost::json::value* text = said != nullptr && said->is_object() ? said->get_object().if_contains("text")
                                                                                : nullptr;
          return Text{"LLM response: " +
                      (text != nullptr && text->is_string() ? std::string(text->get_string()) : "No response")};
        } catch (const StatusError& e) {
          return Text{std::string("Sampling not supported or error: ") + e.what()};
        }
      });

  plugin.tool(
      {.name = "test_elicitation",
       .description = "Tests server-initiated elicitation (user input request)",
       .input_schema = R"({"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]})",
       .flags = kFlags},
      [](const object& args, Call& call) {
        const object schema{
            {"type", "object"},
            {"properties", object{{"username", object{{"type", "string"}, {"description", "User's response"}}},
                                  {"email", object{{"type", "string"}, {"description", "User's email address"}}}}},
            {"required", array{"username", "email"}}};
        return elicit(call, "User response: ",
                      object{{"message", airlock::sdk::string_arg(args, "message")}, {"requestedSchema", schema}});
      });

  plugin.tool({.name = "test_elicitation_sep1034_defaults",
               .description = "Tests elicitation with default values per SEP-1034",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                const object properties{
                    {"name", object{{"type", "string"}, {"description", "User name"}, {"default", "John Doe"}}},
                    {"age", object{{"type", "integer"}, {"description", "User age"}, {"default", 30}}},
                    {"score", object{{"type", "number"}, {"description", "User score"}, {"default", 95.5}}},
                    {"status", object{{"type", "string"},
                                      {"description", "User status"},
                                      {"enum", array{"active", "inactive", "pending"}},
                                      {"default", "active"}}},
                    {"verified", object{{"type", "boolean"}, {"description", "Verification status"}, {"default", true}}}};
                return elicit(call, "Elicitation completed: ",
                              object{{"message", "Please review and update the form fields with defaults"},
                                     {"requestedSchema", object{{"type", "object"},
                                                                {"properties", properties},
                                                                {"required", array{}}}}});
              });

  plugin.tool({.name = "test_elicitation_sep1330_enums",
               .description = "Tests elicitation with enum schema improvements per SEP-1330",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                auto titled = [](std::string_view a, std::string_view b, std::string_view c, std::string_view what) {
                  return array{object{{"const", "value1"}, {"title", std::string(a) + " " + std::string(what)}},
                               object{{"const", "value2"}, {"title", std::string(b) + " " + std::string(what)}},
                               object{{"const", "value3"}, {"title", std::string(c) + " " + std::string(what)}}};
                };
                const object properties{
                    {"untitledSingle", object{{"type", "string"},
                                              {"description", "Select one option"},
                                              {"enum", array{"option1", "option2", "option3"}}}},
                    {"titledSingle", object{{"type", "string"},
                                            {"description", "Select one option with titles"},
                                            {"oneOf", titled("First", "Second", "Third", "Option")}}},
                    {"legacyEnum", object{{"type", "string"},
                                          {"description", "Select one option (legacy)"},
                                          {"enum", array{"opt1", "opt2", "opt3"}},
                                          {"enumNames", array{"Option One", "Option Two", "Option Three"}}}},
                    {"untitledMulti", object{{"type", "array"},
                                             {"description", "Select multiple options"},
                                             {"minItems", 1},
                                             {"maxItems", 3},
                                             {"items", object{{"type", "string"},
                                                              {"enum", array{"option1", "option2", "option3"}}}}}},
                    {"titledMulti", object{{"type", "array"},
                                           {"description", "Select multiple options with titles"},
                                           {"minItems", 1},
                                           {"maxItems", 3},
                                           {"items", object{{"anyOf", titled("First", "Second", "Third", "Choice")}}}}}};
                return elicit(call, "Elicitation completed: ",
                              object{{"message", "Please select options from the enum fields"},
                                     {"requestedSchema", object{{"type", "object"},
                                                                {"properties", properties},
                                                                {"required", array{}}}}});
              });

  // Its schema reaches tools/list as written: $schema, $defs and
  // additionalProperties included (the suite's json-schema-2020-12 checks).
  plugin.tool(
      {.name = "json_schema_2020_12_tool",
       .description = "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
       .input_schema = R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false})",
       .flags = kFlags},
      [](const object& args, Call&) {
        return Text{"JSON Schema 2020-12 tool called with: " + boost::json::serialize(args)};
      });
}

void register_resources(airlock::sdk::Plugin& plugin) {
  plugin.resource({.uri = "test://static-text",
                   .name = "static-text",
                   .title = "Static Text Resource",
                   .description = "A static text resource for testing",
                   .mime_type = "text/plain"},
                  [](const ReadRequest&, Contents&) { return Text{"This is the content of the static text resource."}; });

  plugin.resource({.uri = "test://static-binary",
                   .name = "static-binary",
                   .title = "Static Binary Resource",
                   .description = "A static binary resource (image) for testing",
                   .mime_type = "image/png"},
                  [png = decode_base64(kPng)](const ReadRequest&, Contents& out) { out.add_blob(png); });

  // The reference server's description promises updates every 3 s that its
  // 0.1.16 version never sends; so does this one: subscribing is what the
  // suite checks.
  plugin.resource({.uri = "test://watched-resource",
                   .name = "watched-resource",
                   .title = "Watched Resource",
                   .description = "A resource that auto-updates every 3 seconds",
                   .mime_type = "text/plain"},
                  [](const ReadRequest&, Contents&) { return Text{"Watched resource content"}; });

  plugin.resource_template({.uri_template = "test://template/{id}/data",
                            .name = "template",
                            .title = "Resource Template",
                            .description = "A resource template with parameter substitution",
                            .mime_type = "application/json"},
                           [](const ReadRequest& request, Contents&) {
                             const std::string id(request.variables.at("id").as_string());
                             return Text{boost::json::serialize(
                                 object{{"id", id}, {"templateTest", true}, {"data", "Data for ID: " + id}})};
                           });
}

void register_prompts(airlock::sdk::Plugin& plugin) {
  plugin.prompt({.name = "test_simple_prompt", .title = "Simple Test Prompt",
                 .description = "A simple prompt without arguments"},
                [](const PromptRequest&, Messages& out) { out.text("user", "This is a simple prompt for testing."); });

  // As the reference server: the arguments are completed with no
  // suggestions (the suite checks that completion/complete answers).
  const airlock::sdk::Completer no_suggestions = [](std::string_view, const object&) {
    return std::vector<std::string>{};
  };
  plugin.prompt({.name = "test_prompt_with_arguments",
                 .title = "Prompt With Arguments",
                 .description = "A prompt with required arguments",
                 .arguments = {{.name = "arg1", .description = "First test argument", .required = true},
                               {.name = "arg2", .description = "Second test argument", .required = true}}},
                [](const PromptRequest& request, Messages& out) {
                  out.text("user", "Prompt with arguments: arg1='" +
                                       std::string(airlock::sdk::string_arg(request.arguments, "arg1")) + "', arg2='" +
                                       std::string(airlock::sdk::string_arg(request.arguments, "arg2")) + "'");
                },
                {{"arg1", no_suggestions}, {"arg2", no_suggestions}});

  plugin.prompt({.name = "test_prompt_with_embedded_resource",
                 .title = "Prompt With Embedded Resource",
                 .description = "A prompt that includes an embedded resource",
                 .arguments = {{.name = "resourceUri", .description = "URI of the resource to embed", .required = true}}},
                [](const PromptRequest& request, Messages& out) {
                  out.resource("user", airlock::sdk::string_arg(request.arguments, "resourceUri"), "text/plain",
                               "Embedded resource content for testing.");
                  out.text("user", "Please process the embedded resource above.");
                });

  plugin.prompt({.name = "test_prompt_with_image", .title = "Prompt With Image",
                 .description = "A prompt that includes image content"},
                [](const PromptRequest&, Messages& out) {
                  out.message(object{{"role", "user"},
                                     {"content", object{{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}}}});
                  out.text("user", "Please analyze the image above.");
                });
}

}  // namespace

AIRLOCK_PLUGIN(plugin) {
  plugin.info("conformance-pack", "1.0.0",
              "the tools, resources and prompts the MCP conformance suite (0.1.16) calls on a server");
  register_tools(plugin);
  register_resources(plugin);
  register_prompts(plugin);
}
