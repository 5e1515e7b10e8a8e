// airlock.hpp — an optional, header-only C++20 layer over airlock.h: Boost.JSON
// in and out, and a barrier at every function the host calls, so that no C++
// exception ever crosses the C ABI. airlock.h stays the contract; this header
// only makes it shorter to honour from C++. Link Boost::json (airlock_add_plugin
// does it for a plugin with C++ sources).
//
//   #include <airlock/airlock.hpp>
//
//   AIRLOCK_PLUGIN(plugin) {
//     plugin.info("example", "1.0.0", "Example tools");
//     plugin.tool({.name = "example.echo",
//                  .input_schema = R"({"type":"object","properties":{"text":{"type":"string"}}})",
//                  .flags = AIRLOCK_TOOL_REENTRANT},
//                 [](const boost::json::object& args, airlock::sdk::Call&) {
//                   return airlock::sdk::Text{std::string(airlock::sdk::string_arg(args, "text"))};
//                 });
//     plugin.text_sanitizer({.name = "example.keep"},
//                           [](std::string_view) -> std::optional<std::string> { return {}; });
//   }
//
// A tool is a callable `R(const boost::json::object& args, Call& call) const`:
//   R = boost::json::object  the structured payload (result_set_structured);
//   R = Text                 one text content block (result_add_text);
//   R = UntrustedText        one block of remote text (result_add_untrusted_text);
//   R = boost::json::value   an object as above, a string as Text, null as nothing;
//   R = void                 the tool reported through `call` itself.
// Thrown from a tool: std::exception -> an isError result with e.what() and
// AIRLOCK_STATUS_TOOL_ERROR; anything else -> "unknown error", TOOL_ERROR;
// Cancelled -> AIRLOCK_STATUS_CANCELLED; StatusError -> its status;
// InputRequired -> AIRLOCK_STATUS_INPUT_REQUIRED (see TWO PROTOCOL ERAS);
// TaskStarted -> AIRLOCK_STATUS_TASK_STARTED (see DURABLE TASKS).
//
// TALKING TO THE CLIENT (ABI 1.2): while it runs, a tool may report progress,
// log to the client and ask the client (sampling, elicitation, roots):
//   [](const boost::json::object&, airlock::sdk::Call& call) {
//     call.progress(0, 100, "starting");
//     call.log(airlock::sdk::LogLevel::info, "asking the model");
//     const boost::json::object question{{"role", "user"}, {"content", {{"type", "text"}, {"text", "Hi"}}}};
//     const boost::json::object answer =
//         call.sample({{"messages", boost::json::array{question}}, {"maxTokens", 100}});
//     call.progress(100, 100);
//     return airlock::sdk::Text{std::string(answer.at("content").at("text").as_string())};
//   }
//
// RESOURCES, PROMPTS AND COMPLETIONS (ABI 1.3): a plugin may also serve
// resources, URI templates and prompts; what they return passes the chain
// bound to them, like a tool result:
//   plugin.resource({.uri = "docs://readme", .name = "readme", .mime_type = "text/plain"},
//                   [](const airlock::sdk::ReadRequest&, airlock::sdk::Contents& out) {
//                     out.add_text("Read me first.");
//                   });
//   plugin.resource_template({.uri_template = "docs://pages/{page}", .name = "page"},
//                            [](const airlock::sdk::ReadRequest& r, airlock::sdk::Contents& out) {
//                              if (r.variables.at("page") != "1") throw airlock::sdk::NotFound();
//                              out.add_text("Page one.");
//                            },
//                            {{"page", [](std::string_view typed, const boost::json::object&) {
//                                return std::vector<std::string>{"1"};
//                              }}});
//   plugin.prompt({.name = "greet", .arguments = {{.name = "who", .required = true}}},
//                 [](const airlock::sdk::PromptRequest& r, airlock::sdk::Messages& out) {
//                   out.text("user", "Say hello to " + std::string(airlock::sdk::string_arg(r.arguments, "who")));
//                 });
// After init, a plugin's own threads keep plugin.host_handle() to tell
// subscribed clients that a resource changed (Host::resource_updated).
//
// TWO PROTOCOL ERAS (ABI 1.5): one tool serves MCP sessions (2025-11-25 and
// before) and stateless 2026-07-28 requests. A question to the client has a
// key. In a session it blocks until the client answers. In a 2026-07-28
// request an unanswered question throws InputRequired: the host asks the
// client and runs the tool again FROM THE START with the answers, so ask the
// same questions under the same keys in the same order each run, and do
// nothing before the last question that must not happen twice:
//   plugin.tool({.name = "example.greet",
//                .required_client_capabilities = {{"elicitation", boost::json::object{}}}},
//               [](const boost::json::object&, airlock::sdk::Call& call) {
//                 const boost::json::object answer = call.elicit(
//                     "who", {{"message", "Who is there?"},
//                             {"requestedSchema", {{"type", "object"},
//                                                  {"properties", {{"name", {{"type", "string"}}}}}}}});
//                 return airlock::sdk::Text{"Hello, " + std::string(answer.at("content").at("name").as_string())};
//               });
// Call::input asks without throwing (nullopt: not answered yet), so that
// several questions reach the client in one round:
//   const std::optional<boost::json::object> roots = call.input("roots", "roots/list");
//   const std::optional<boost::json::object> name = call.input("name", "elicitation/create", question);
//   if (!roots || !name) throw airlock::sdk::InputRequired();
// A prompt (Messages) and a read (Contents) ask the same way. A plugin whose
// tools, prompts or resources changed what they say or do tells clients with
// plugin.host_handle().notify_list_changed(airlock::sdk::List::tools).
//
// DURABLE TASKS (ABI 1.5): a tool flagged AIRLOCK_TOOL_TASK_OPTIONAL (or
// _REQUIRED) may finish as a task: the client gets a task id at once and
// reads the result later, from any server sharing the task store. The tool
// asks with Call::start_task(), after its questions (the answers gathered so
// far travel into the task) and before its long work. The first time, when
// the host can make a task of the request, start_task throws TaskStarted:
// let it through, the host answers the client and runs the tool again FROM
// THE START as the task, where start_task returns true. false means no task
// here (an older host, a client that did not ask for one): go on, the same
// code answers synchronously.
//   plugin.tool({.name = "example.report",
//                .flags = AIRLOCK_TOOL_TASK_OPTIONAL | AIRLOCK_TOOL_CANCELLABLE},
//               [](const boost::json::object&, airlock::sdk::Call& call) {
//                 call.start_task();                // throws TaskStarted the first time
//                 for (int step = 0; step < 100; ++step) {
//                   call.throw_if_cancelled();    // tasks/cancel reaches the tool here
//                   work(step);
//                 }
//                 return airlock::sdk::Text{"done"};
//               });
//
// THREADS: tools run on host worker threads (several at once when the def has
// AIRLOCK_TOOL_REENTRANT) and sanitizers on any number of threads at once, so
// every callable is invoked as const and must be safe to share.
// LIFETIME: the plugin owns every registered callable; they live in one heap
// object that the host hands back to on_destroy, which frees it.
#ifndef AIRLOCK_AIRLOCK_HPP
#define AIRLOCK_AIRLOCK_HPP

// The layer, one part per file (airlock/sdk/), in the order each builds on
// the one before:
//   core.hpp          views, exceptions, values, argument helpers, barrier
//   call.hpp          Call, and the questions to the client
//   plugin_state.hpp  the plugin's heap object of registered callables
//   tools.hpp         on_call -> a tool callable
//   sanitizers.hpp    on_text / on_result -> a sanitizer callable
//   content.hpp       ABI 1.3: resources, prompts, completions, Host
//   plugin.hpp        the registrar (Plugin), airlock_plugin_init, AIRLOCK_PLUGIN
#include <airlock/sdk/core.hpp>
#include <airlock/sdk/call.hpp>
#include <airlock/sdk/plugin_state.hpp>
#include <airlock/sdk/tools.hpp>
#include <airlock/sdk/sanitizers.hpp>
#include <airlock/sdk/content.hpp>
#include <airlock/sdk/plugin.hpp>

#endif  // AIRLOCK_AIRLOCK_HPP
