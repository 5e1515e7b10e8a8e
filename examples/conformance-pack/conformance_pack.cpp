// conformance-pack: every tool, resource, resource template and prompt the
// official MCP conformance suites call on a server, with the names,
// descriptions, schemas and contents their reference servers advertise:
// @modelcontextprotocol/conformance 0.1.16 (`--suite all`, MCP 2025-11-25;
// ctest -R conformance_all) and 0.2.0-alpha.12 (`--suite all` with
// `--spec-version 2025-11-25` and `2026-07-28`). Served by
// examples/conformance-pack/airlock.toml; tests/interop runs the suites
// against it.
//
// It is also the example of everything a plugin can do besides plain tools:
// image, audio and embedded-resource content, logging to the client,
// progress, sampling and elicitation (ABI 1.2), resources, templates,
// prompts and completions (ABI 1.3), and one code path for both protocol
// eras (ABI 1.5): keyed questions to the client that block in a session and
// become an InputRequiredResult in a 2026-07-28 request, a required client
// capability, list-changed notifications, and tools that finish as durable
// tasks (the tasks extension, SEP-2663).
#include <airlock/airlock.hpp>

#include <array>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

namespace {

using airlock::sdk::Call;
using airlock::sdk::ClientReply;
using airlock::sdk::Contents;
using airlock::sdk::InputRequired;
using airlock::sdk::LogLevel;
using airlock::sdk::Messages;
using airlock::sdk::PromptRequest;
using airlock::sdk::ReadRequest;
using airlock::sdk::StatusError;
using airlock::sdk::Text;
using boost::json::array;
using boost::json::object;
using boost::json::value;

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

// --- Questions and answers of the 2026-07-28 fixtures (ABI 1.5) ----------

// An elicitation/create form asking for one required field of JSON `type`.
object form(std::string_view message, std::string_view field, std::string_view type) {
  return object{{"message", message},
                {"requestedSchema", object{{"type", "object"},
                                           {"properties", object{{field, object{{"type", type}}}}},
                                           {"required", array{field}}}}};
}

// A sampling/createMessage request of one user text.
object sampling(std::string_view text, int max_tokens) {
  return object{{"messages", array{object{{"role", "user"}, {"content", text_block(text)}}}},
                {"maxTokens", max_tokens}};
}

// An ElicitResult's action; "undefined" when it has none (as the reference
// servers print it).
std::string action_of(const object& answer) {
  const value* action = answer.if_contains("action");
  return action != nullptr && action->is_string() ? std::string(action->get_string()) : "undefined";
}

// The field `name` of what the user accepted; nullopt when they declined,
// cancelled or left it out. A non-string value is given as JSON.
std::optional<std::string> accepted(const object& answer, std::string_view name) {
  if (action_of(answer) != "accept") return std::nullopt;
  const value* content = answer.if_contains("content");
  const value* field = content != nullptr && content->is_object() ? content->get_object().if_contains(name) : nullptr;
  if (field == nullptr) return std::nullopt;
  return field->is_string() ? std::string(field->get_string()) : boost::json::serialize(*field);
}

// The text a CreateMessageResult carries: its content block, or the first
// text block of a content array (2025-11-25 allows both).
std::string sampled_text(const object& result) {
  auto text_of = [](const value& block) -> std::optional<std::string> {
    if (!block.is_object()) return std::nullopt;
    const value* text = block.get_object().if_contains("text");
    if (text == nullptr || !text->is_string()) return std::nullopt;
    return std::string(text->get_string());
  };
  const value* content = result.if_contains("content");
  if (content == nullptr) return "(no content)";
  if (content->is_array()) {
    for (const value& block : content->get_array())
      if (std::optional<std::string> text = text_of(block)) return *text;
  } else if (std::optional<std::string> text = text_of(*content)) {
    return *text;
  }
  return "(no text)";
}

// How many roots a ListRootsResult names.
std::size_t root_count(const object& result) {
  const value* roots = result.if_contains("roots");
  return roots != nullptr && roots->is_array() ? roots->get_array().size() : 0;
}

// The answer to a question the tool can do without: nullopt when the client
// did not declare the capability it needs (nothing was asked), or when the
// answer comes in a later round (then `pending` is set). No answer for any
// other reason is a tool error.
std::optional<object> optional_answer(const Call& call, std::string_view key, std::string_view method,
                                      const object& params, bool& pending) {
  const ClientReply reply = call.ask_input(key, method, boost::json::serialize(params));
  switch (reply.status) {
    case AIRLOCK_STATUS_OK: return airlock::sdk::parse_object(reply.text, std::string(key) + " answer");
    case AIRLOCK_STATUS_UNSUPPORTED: return std::nullopt;
    case AIRLOCK_STATUS_INPUT_REQUIRED: pending = true; return std::nullopt;
    case AIRLOCK_STATUS_CANCELLED: throw airlock::sdk::Cancelled{};
    default:
      throw StatusError(AIRLOCK_STATUS_TOOL_ERROR,
                        std::string(method) + " '" + std::string(key) + "': no answer (status " +
                            std::to_string(reply.status) + ", " + reply.text + ")");
  }
}

constexpr std::string_view kNameQuestion = "What is your name?";

// The tools the 0.2 suite calls on the 2026-07-28 wire: server-stateless's
// diagnostics, the MRTR (SEP-2322) scenarios' tools and the SEP-2243
// custom-header tool. In a 2025-11-25 session each works too: a question
// blocks until the client answers it.
void register_2026_tools(airlock::sdk::Plugin& plugin) {
  plugin.tool({.name = "test_missing_capability",
               .description = "Tests that a tool needing a client capability (sampling) is refused to a client "
                              "that did not declare it",
               .input_schema = kNoArguments,
               .flags = kFlags,
               .required_client_capabilities = {{"sampling", object{}}}},
              [](const object&, Call&) { return Text{"Success"}; });

  plugin.tool({.name = "test_streaming_elicitation",
               .description = "Tests a response stream that carries progress and then a question to the client, "
                              "never a server request in a 2026-07-28 request",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                call.progress(1, 2, "asking for confirmation");
                const object answer = call.elicit("confirm", form("Please confirm to finish streaming", "confirm",
                                                                  "boolean"));
                return Text{"Streaming complete: action=" + action_of(answer)};
              });

  plugin.tool({.name = "test_logging_tool",
               .description = "Tests that log messages reach a client only at the level it asked for",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                call.log(LogLevel::info, "Diagnostic trace logging activated");
                return Text{"Logging evaluated"};
              });

  // A list change the suite can trigger: the lists stay as they are, the
  // notification is what it checks.
  const auto trigger = [host = plugin.host_handle()](airlock::sdk::List list) {
    return [host, list](const object&, Call&) {
      if (const airlock_status status = host.notify_list_changed(list); status != AIRLOCK_STATUS_OK)
        throw StatusError(AIRLOCK_STATUS_TOOL_ERROR,
                          "notify_list_changed failed with status " + std::to_string(status));
      return Text{"Mutation triggered"};
    };
  };
  plugin.tool({.name = "test_trigger_tool_change",
               .description = "Tells clients that the tool list changed (notifications/tools/list_changed)",
               .input_schema = kNoArguments,
               .flags = kFlags},
              trigger(airlock::sdk::List::tools));
  plugin.tool({.name = "test_trigger_prompt_change",
               .description = "Tells clients that the prompt list changed (notifications/prompts/list_changed)",
               .input_schema = kNoArguments,
               .flags = kFlags},
              trigger(airlock::sdk::List::prompts));

  plugin.tool({.name = "test_input_required_result_elicitation",
               .description = "Tests an InputRequiredResult that asks the client for one elicitation (SEP-2322)",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                const object answer = call.elicit("user_name", form(kNameQuestion, "name", "string"));
                const std::optional<std::string> name = accepted(answer, "name");
                return Text{name ? "Hello, " + *name + "!" : "No name given (action=" + action_of(answer) + ")"};
              });

  plugin.tool({.name = "test_input_required_result_sampling",
               .description = "Tests an InputRequiredResult that asks the client for one sampling (SEP-2322)",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                const object answer =
                    call.sample("capital_question", sampling("What is the capital of France?", 100));
                return Text{"Sampling result: " + sampled_text(answer)};
              });

  plugin.tool({.name = "test_input_required_result_list_roots",
               .description = "Tests an InputRequiredResult that asks the client for its roots (SEP-2322)",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                return Text{"Found " + std::to_string(root_count(call.list_roots("client_roots"))) + " root(s)"};
              });

  plugin.tool({.name = "test_input_required_result_request_state",
               .description = "Tests that requestState travels with an InputRequiredResult and its retry (SEP-2322)",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                const object answer = call.elicit("confirm", form("Please confirm", "ok", "boolean"));
                return Text{accepted(answer, "ok") == "true" ? "state-ok: requestState validated"
                                                             : "Not confirmed (action=" + action_of(answer) + ")"};
              });

  // Asks all three before stopping, so that one InputRequiredResult carries
  // every question.
  plugin.tool({.name = "test_input_required_result_multiple_inputs",
               .description = "Tests an InputRequiredResult with an elicitation, a sampling and a roots request "
                              "at once (SEP-2322)",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                const std::optional<object> name =
                    call.input("user_name", "elicitation/create", form(kNameQuestion, "name", "string"));
                const std::optional<object> greeting =
                    call.input("greeting", "sampling/createMessage", sampling("Generate a greeting", 50));
                const std::optional<object> roots = call.input("client_roots", "roots/list");
                if (!name || !greeting || !roots) throw InputRequired();
                return Text{"Name: " + accepted(*name, "name").value_or("(none: action=" + action_of(*name) + ")") +
                            "; Greeting: " + sampled_text(*greeting) +
                            "; Roots: " + std::to_string(root_count(*roots))};
              });

  // Round 2 asks step2 only once step1 is answered: the answer to step1
  // comes back from the sealed requestState, not from the client.
  plugin.tool({.name = "test_input_required_result_multi_round",
               .description = "Tests two rounds of InputRequiredResult, each with its own requestState (SEP-2322)",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                const object first = call.elicit("step1", form("Step 1: What is your name?", "name", "string"));
                const object second =
                    call.elicit("step2", form("Step 2: What is your favorite color?", "color", "string"));
                return Text{"Multi-round complete for " + accepted(first, "name").value_or("(no name)") +
                            " who likes " + accepted(second, "color").value_or("(no color)")};
              });

  // The host seals requestState; a tampered one never reaches this tool.
  plugin.tool({.name = "test_input_required_result_tampered_state",
               .description = "Tests that a tampered requestState is refused (SEP-2322)",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                const object answer = call.elicit("confirm", form("Please confirm", "ok", "boolean"));
                return Text{accepted(answer, "ok") == "true" ? "integrity-ok: state verified"
                                                             : "Not confirmed (action=" + action_of(answer) + ")"};
              });

  // The host refuses (UNSUPPORTED) what the request did not declare, so the
  // InputRequiredResult holds only the questions the client can answer.
  plugin.tool({.name = "test_input_required_result_capabilities",
               .description = "Tests that an InputRequiredResult asks only for what the client declared (SEP-2322)",
               .input_schema = kNoArguments,
               .flags = kFlags},
              [](const object&, Call& call) {
                bool pending = false;
                const std::optional<object> name = optional_answer(
                    call, "elicit_input", "elicitation/create", form(kNameQuestion, "name", "string"), pending);
                const std::optional<object> capital = optional_answer(
                    call, "sample_input", "sampling/createMessage", sampling("What is the capital of France?", 100),
                    pending);
                if (pending) throw InputRequired();
                if (!name && !capital) return Text{"No supported capabilities declared"};
                std::string text = "Answered:";
                if (name) text += " elicitation (action=" + action_of(*name) + ")";
                if (capital) text += std::string(name ? "," : "") + " sampling (" + sampled_text(*capital) + ")";
                return Text{text};
              });

  // The custom-header scenario (SEP-2243) picks the first tool with a
  // string x-mcp-header property; the host checks Mcp-Param-Region against
  // the argument before the tool runs.
  plugin.tool(
      {.name = "test_x_mcp_header",
       .description = "Tests an argument mirrored in an Mcp-Param header (SEP-2243)",
       .input_schema =
           R"({"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"level":{"type":"integer"}}})",
       .flags = kFlags},
      [](const object& args, Call&) {
        const value* region = args.if_contains("region");
        return Text{region != nullptr && region->is_string() ? "region=" + std::string(region->get_string())
                                                             : std::string("no region given")};
      });
}

// --- Durable tasks (ABI 1.5, the tasks extension of 2026-07-28) -----------

// Tools that may finish as a task also wait and poll their cancellation
// (tasks/cancel reaches them through is_cancelled).
constexpr std::uint32_t kTaskOptional = kFlags | AIRLOCK_TOOL_TASK_OPTIONAL;
constexpr std::uint32_t kTaskRequired = kFlags | AIRLOCK_TOOL_TASK_REQUIRED;

// The longest slow_compute: a task holds a worker thread while it runs.
constexpr double kMaxSeconds = 600;

// A number as a person writes it: 2, 0.5 (the shortest form that reads back).
std::string number_text(double number) {
  std::array<char, 32> buffer{};
  const auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), number);
  return error == std::errc() ? std::string(buffer.data(), end) : std::to_string(number);
}

// `seconds` of slow_compute: a JSON number from 0 to kMaxSeconds.
double seconds_arg(const object& args) {
  const value* given = args.if_contains("seconds");
  const double seconds = given != nullptr && given->is_number() ? given->to_number<double>() : -1;
  if (!(seconds >= 0 && seconds <= kMaxSeconds))
    throw std::invalid_argument("argument 'seconds' must be a number from 0 to " + number_text(kMaxSeconds));
  return seconds;
}

// The fixtures of the tasks-* scenarios of conformance 0.2.0-alpha.12, under
// the names and arguments the suite calls. Where the host lets a call run
// without a task (a 2025-11-25 session that did not ask for one; a 2026-07-28
// request without the extension, for all but the task-only failing_job and
// test_tool_with_task, which it refuses with -32021), start_task() is false
// and the same code answers synchronously.
void register_task_tools(airlock::sdk::Plugin& plugin) {
  // Never a task: a legacy `task` parameter on its call changes nothing.
  plugin.tool({.name = "greet",
               .description = "Greets someone by name, synchronously (never a task)",
               .input_schema = R"({"type":"object","properties":{"name":{"type":"string","description":"Who to greet"}},"required":["name"]})",
               .flags = kFlags},
              [](const object& args, Call&) {
                return Text{"Hello, " + std::string(airlock::sdk::string_arg(args, "name")) + "!"};
              });

  // A task from one second up; a shorter job answers at once.
  plugin.tool(
      {.name = "slow_compute",
       .description = "Works for `seconds` seconds, as a task when the client can have one; tasks/cancel stops it",
       .input_schema = R"({"type":"object","properties":{"seconds":{"type":"number","minimum":0,"maximum":600,"description":"How long the work takes"},"label":{"type":"string","description":"Names the work in the result"}},"required":["seconds"]})",
       .flags = kTaskOptional},
      [](const object& args, Call& call) {
        const double seconds = seconds_arg(args);
        const value* given = args.if_contains("label");
        if (given != nullptr && !given->is_string()) throw std::invalid_argument("argument 'label' must be a string");
        const std::string label = given != nullptr ? std::string(given->get_string()) : "slow_compute";
        if (seconds >= 1) call.start_task();
        pause(call, std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000)));
        return Text{label + ": computed in " + number_text(seconds) + " s"};
      });

  // A tool error, not a protocol one: the task completes with isError.
  plugin.tool({.name = "failing_job",
               .description = "Runs only as a task and fails after about a second with a tool error (isError)",
               .input_schema = kNoArguments,
               .flags = kTaskRequired},
              [](const object&, Call& call) -> Text {
                call.start_task();
                pause(call, std::chrono::seconds(1));
                throw StatusError(AIRLOCK_STATUS_TOOL_ERROR, "failing_job: the job failed, as it always does");
              });

  // An internal failure: the task ends `failed` with a JSON-RPC error
  // (-32603), and without a task the call gets that error itself.
  plugin.tool({.name = "protocol_error_job",
               .description = "Fails with an internal error (a protocol-level error, not a tool result)",
               .input_schema = kNoArguments,
               .flags = kTaskOptional},
              [](const object&, Call& call) -> Text {
                call.start_task();
                throw StatusError(AIRLOCK_STATUS_INTERNAL, "protocol_error_job: failing with an internal error on purpose");
              });

  // The task starts first, so the question is asked from inside it: the
  // task waits in input_required until tasks/update brings the answer.
  plugin.tool(
      {.name = "confirm_delete",
       .description = "Asks the user to confirm deleting a file (from inside the task), then reports what it did",
       .input_schema = R"({"type":"object","properties":{"filename":{"type":"string","description":"The file to delete"}},"required":["filename"]})",
       .flags = kTaskOptional},
      [](const object& args, Call& call) {
        const std::string filename(airlock::sdk::string_arg(args, "filename"));
        call.start_task();
        const object answer = call.elicit("confirm", form("Delete " + filename + "?", "confirm", "boolean"));
        return Text{accepted(answer, "confirm") == "true" ? "Deleted " + filename : "Kept " + filename};
      });

  // Both questions go out together, so the task waits on two keys at once
  // and may get their answers one tasks/update at a time.
  plugin.tool({.name = "multi_input",
               .description = "Asks two questions at once (from inside the task) and reports both answers",
               .input_schema = kNoArguments,
               .flags = kTaskOptional},
              [](const object&, Call& call) {
                call.start_task();
                const std::optional<object> first =
                    call.input("first", "elicitation/create", form("First question: what name?", "name", "string"));
                const std::optional<object> second =
                    call.input("second", "elicitation/create", form("Second question: what name?", "name", "string"));
                if (!first || !second) throw InputRequired();
                auto told = [](const object& answer) {
                  return accepted(answer, "name").value_or("(none: action=" + action_of(answer) + ")");
                };
                return Text{"multi_input: first=" + told(*first) + ", second=" + told(*second)};
              });

  // The question comes before the task: round one is a synchronous
  // InputRequiredResult, the retry with the answer starts the task, and the
  // task (run again from the start) finds the answer carried into it.
  plugin.tool({.name = "test_tool_with_task",
               .description = "Asks for a name synchronously (SEP-2322), then finishes as a task greeting it",
               .input_schema = kNoArguments,
               .flags = kTaskRequired},
              [](const object&, Call& call) {
                const object answer = call.elicit("user_name", form(kNameQuestion, "name", "string"));
                call.start_task();
                const std::optional<std::string> name = accepted(answer, "name");
                return Text{name ? "Hello, " + *name + "!" : "No name given (action=" + action_of(answer) + ")"};
              });
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
  // additionalProperties (SEP-1613), and $anchor, allOf/anyOf and
  // if/then/else (SEP-2106): the 0.2 suite's JSON_SCHEMA_2020_12_FIXTURE.
  plugin.tool(
      {.name = "json_schema_2020_12_tool",
       .description = "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
       .input_schema = R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false})",
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

  // MRTR beyond tools/call (SEP-2322): a get that asks the client first.
  plugin.prompt({.name = "test_input_required_result_prompt",
                 .description = "MRTR: prompt that requires elicitation input"},
                [](const PromptRequest&, Messages& out) {
                  const object answer =
                      out.elicit("user_context", form("What context should the prompt use?", "context", "string"));
                  const std::optional<std::string> context = accepted(answer, "context");
                  out.text("user", context ? "Prompt with context: " + *context
                                           : "Prompt without context (action=" + action_of(answer) + ")");
                });
}

}  // namespace

AIRLOCK_PLUGIN(plugin) {
  plugin.info("conformance-pack", "1.2.0",
              "the tools, resources and prompts the MCP conformance suites (0.1.16, 0.2) call on a server");
  register_tools(plugin);
  register_2026_tools(plugin);
  register_task_tools(plugin);
  register_resources(plugin);
  register_prompts(plugin);
}
