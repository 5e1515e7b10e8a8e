// Plugin isolation, from outside, against the hostile fixtures: a plugin in a
// worker process reaches neither the network, nor files outside its own, nor
// new processes; when it dies (segfault, abort, exit, a memory hog, a call
// that never returns) its calls get fixed text and not a byte of what it had
// produced, and everything else keeps being served; and no plugin, isolated
// or not, can write into the stdio protocol stream.
//
// CI runs this binary twice, with AIRLOCK_ISOLATION=process and with
// =in-process, and the variable overrides every config: a case that means
// something in one mode only skips in the other and says why.
#include "integration.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace airlock::test {
namespace {

using testing::HasSubstr;
using testing::Not;
using testing::StartsWith;
namespace fs = std::filesystem;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

// What a call gets when the worker running it stops (host/isolation).
constexpr std::string_view kStoppedText = "the tool's plugin stopped unexpectedly";
// kWithheldText of host/pipeline/result_pipeline.hpp: a chain that failed.
constexpr std::string_view kWithheldText = "tool result withheld: it did not pass the sanitizer chain";
// How long a server gets to exit 0 once stdin is closed. It waits up to 5 s
// (kShutdownGrace) only for calls still in flight, and none is here.
constexpr std::chrono::milliseconds kExitWithin = 8s;
// How long a call after a crash may take: the worker is started again first.
constexpr std::chrono::milliseconds kRestartWithin = 10s;

constexpr std::string_view kIsolated = "mode = \"process\"\n";
constexpr std::string_view kInProcess = "mode = \"in-process\"\n";

// What AIRLOCK_ISOLATION forces on this run: "process", "in-process" or "".
std::string forced_mode() {
  const char* mode = std::getenv("AIRLOCK_ISOLATION");
  return mode ? mode : "";
}

constexpr const char* kNeedsWorker =
    "AIRLOCK_ISOLATION=in-process runs every plugin inside the server; this case means something only "
    "in a worker process (the run with AIRLOCK_ISOLATION=process covers it)";
constexpr const char* kNeedsInProcess =
    "AIRLOCK_ISOLATION=process isolates every plugin; this case is about a plugin inside the server "
    "(the run with AIRLOCK_ISOLATION=in-process covers it)";

// The hostile fixture and airlock's own plugins (example.echo is the tool of
// another plugin), `isolation` as the body of [isolation], then `rest`.
std::string hostile_config(std::string_view isolation, std::string_view rest = "") {
  std::string toml = "[server]\nname = \"isolation-test\"\nworkers = 4\n\n[plugins]\n" +
                     toml_dirs({fixture_dir("hostile"), kPluginDir}) + "\non_error = \"fail\"\n\n[isolation]\n";
  toml += isolation;
  toml += "\n";
  toml += rest;
  return toml;
}

// Fails the test wherever `needle` shows in what the server sent the client
// or wrote to its log. Only after finish(): then both are complete.
void expect_nowhere(const McpStdioClient& client, std::string_view needle, std::string_view what) {
  for (const std::string& line : client.lines())
    EXPECT_THAT(line, Not(HasSubstr(needle))) << what << " reached the client";
  EXPECT_THAT(client.stderr_text(), Not(HasSubstr(needle))) << what << " reached the log";
}

// Calls `tool` until its answer is not `transient` (once, when that is
// empty), within `within`. For where fixed text is the truthful answer to a
// healthy tool: a call that reached a worker in the grace before it is
// killed dies with it; a chain whose sanitizer's worker restarts fails closed.
Message call_until_not(McpStdioClient& client, std::string_view tool, const json::object& arguments,
                       std::string_view transient, std::chrono::milliseconds within = kRestartWithin) {
  const auto deadline = Clock::now() + within;
  for (;;) {
    Message m = client.call_tool(tool, arguments, within);
    if (transient.empty() || first_text(m) != transient || Clock::now() >= deadline) return m;
    std::this_thread::sleep_for(100ms);
  }
}

void write_file(const fs::path& path, std::string_view content, fs::perms permissions) {
  std::ofstream(path, std::ios::binary) << content;
  fs::permissions(path, permissions);
}

// True once `path` exists, checked until `within` has passed.
bool appears_within(const fs::path& path, std::chrono::milliseconds within) {
  const auto deadline = Clock::now() + within;
  while (!fs::exists(path)) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// A TCP listener on 127.0.0.1, an ephemeral port, in this test's network
// namespace: whatever connects to it, the test sees.
class LoopbackListener {
 public:
  LoopbackListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(fd_, 8) != 0 || ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) != 0)
      return;
    port_ = ntohs(address.sin_port);
  }
  ~LoopbackListener() {
    if (fd_ >= 0) ::close(fd_);
  }
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;

  std::uint16_t port() const { return port_; }  // 0 when it could not listen

  // True when a connection arrives within `window`; accepts and closes it.
  bool accepts_within(std::chrono::milliseconds window) {
    pollfd waiting{fd_, POLLIN, 0};
    if (::poll(&waiting, 1, static_cast<int>(window.count())) <= 0) return false;
    const int connection = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection >= 0) ::close(connection);
    return connection >= 0;
  }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

// --- Confinement --------------------------------------------------------------
// Each refusal is a "refused: <strerror>" the tool itself reports: the call
// was made and failed, which a fixture that never tried could not say.

TEST(Confinement, AnIsolatedToolCannotOpenASocketAndALoopbackListenerSeesNothing) {
  if (forced_mode() == "in-process") GTEST_SKIP() << kNeedsWorker;
  LoopbackListener listener;
  ASSERT_NE(0, listener.port()) << "the test cannot listen on 127.0.0.1";
  TempConfig config(hostile_config(kIsolated));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  const Message m = client->call_tool("hostile.connect", json::object{{"port", listener.port()}});
  EXPECT_FALSE(is_tool_error(m)) << m.line;
  EXPECT_THAT(first_text(m), StartsWith("refused: ")) << m.line;
  EXPECT_FALSE(listener.accepts_within(500ms)) << "a connection reached the test's listener";
  EXPECT_EQ(0, client->finish(kExitWithin));
}

TEST(Confinement, AnIsolatedToolCannotReadTheTokenFileTheConfigOrEtcShadow) {
  if (forced_mode() == "in-process") GTEST_SKIP() << kNeedsWorker;
  // The comment is a secret of the config's own: only reading the file shows it.
  constexpr std::string_view kConfigSecret = "config-secret-61d3e0";
  TempConfig config(hostile_config(kIsolated) + "# " + std::string(kConfigSecret) + "\n");
  constexpr std::string_view kToken = "token-4e1f0b8d2a";
  const fs::path token = config.dir() / "ci-bot.token";
  write_file(token, kToken, fs::perms::owner_read | fs::perms::owner_write);
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  // A failure says how much was read, never what: /etc/shadow must not end
  // up in a CI log because the confinement broke.
  for (const fs::path& path : {token, config.path(), fs::path("/etc/shadow")}) {
    const Message m = client->call_tool("hostile.read", json::object{{"path", path.string()}});
    const std::string text = first_text(m);
    EXPECT_FALSE(is_tool_error(m)) << path;
    EXPECT_TRUE(text.starts_with("refused: ")) << path << ": the tool read " << text.size() << " bytes of it";
  }
  EXPECT_EQ(0, client->finish(kExitWithin));
  expect_nowhere(*client, kToken, "the token");
  expect_nowhere(*client, kConfigSecret, "the config");
  std::size_t shadow_lines = 0;
  for (const std::string& line : client->lines()) shadow_lines += line.find("root:") != std::string::npos;
  EXPECT_EQ(0u, shadow_lines) << "lines the client received hold /etc/shadow's root entry";
}

TEST(Confinement, AnIsolatedToolCannotWriteOutsideItsTempDir) {
  if (forced_mode() == "in-process") GTEST_SKIP() << kNeedsWorker;
  TempConfig config(hostile_config(kIsolated));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  // Beside the config, and straight in the shared temp directory.
  const fs::path beside_config = config.dir() / "written-by-plugin";
  const fs::path in_tmp = fs::temp_directory_path() / ("airlock-hostile-" + std::to_string(::getpid()));
  for (const fs::path& path : {beside_config, in_tmp}) {
    const Message m = client->call_tool("hostile.write", json::object{{"path", path.string()}});
    EXPECT_FALSE(is_tool_error(m)) << m.line;
    EXPECT_THAT(first_text(m), StartsWith("refused: ")) << path << " was written: " << m.line;
    EXPECT_FALSE(fs::exists(path)) << path;
  }
  std::error_code ignored;
  fs::remove(in_tmp, ignored);
  EXPECT_EQ(0, client->finish(kExitWithin));
}

TEST(Confinement, AnIsolatedToolCannotStartAProcess) {
  if (forced_mode() == "in-process") GTEST_SKIP() << kNeedsWorker;
  TempConfig config(hostile_config(kIsolated));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  const fs::path marker = config.dir() / "spawned-marker";
  const Message m = client->call_tool("hostile.exec", json::object{{"path", marker.string()}});
  EXPECT_FALSE(is_tool_error(m)) << m.line;
  EXPECT_THAT(first_text(m), StartsWith("refused: ")) << m.line;
  EXPECT_FALSE(appears_within(marker, 500ms)) << "a process the tool started touched " << marker;
  EXPECT_EQ(0, client->finish(kExitWithin));
}

TEST(Confinement, AnIsolatedToolCannotFork) {
  if (forced_mode() == "in-process") GTEST_SKIP() << kNeedsWorker;
  TempConfig config(hostile_config(kIsolated));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  const Message m = client->call_tool("hostile.fork", json::object{});
  EXPECT_EQ("forked 0", first_text(m)) << m.line;
  EXPECT_EQ(0, client->finish(kExitWithin));
}

// The control of the five above: the same calls succeed for a plugin trusted
// in-process, so each refusal there is the worker's doing, not the fixture's.
TEST(TrustedInProcess, ConnectsReadsWritesSpawnsAndForks) {
  if (forced_mode() == "process") GTEST_SKIP() << kNeedsInProcess;
  LoopbackListener listener;
  ASSERT_NE(0, listener.port()) << "the test cannot listen on 127.0.0.1";
  TempConfig config(hostile_config(kInProcess));
  const fs::path token = config.dir() / "ci-bot.token";
  write_file(token, "token-in-process", fs::perms::owner_read | fs::perms::owner_write);
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  EXPECT_EQ("connected", first_text(client->call_tool("hostile.connect", json::object{{"port", listener.port()}})));
  EXPECT_TRUE(listener.accepts_within(2s));
  EXPECT_EQ("token-in-process", first_text(client->call_tool("hostile.read", json::object{{"path", token.string()}})));
  const fs::path written = config.dir() / "written-by-plugin";
  EXPECT_EQ("written", first_text(client->call_tool("hostile.write", json::object{{"path", written.string()}})));
  EXPECT_TRUE(fs::exists(written));
  const fs::path marker = config.dir() / "spawned-marker";
  EXPECT_EQ("spawned", first_text(client->call_tool("hostile.exec", json::object{{"path", marker.string()}})));
  EXPECT_TRUE(appears_within(marker, 2s));
  EXPECT_EQ("forked 64", first_text(client->call_tool("hostile.fork", json::object{})));
  EXPECT_EQ(0, client->finish(kExitWithin));
}

// --- Faults stay inside the worker ---------------------------------------------
// hostile.crash puts AIRLOCK_CANARY in its result before it dies: what a dead
// plugin had produced must reach neither the client nor the log.

// After a fault: the plugin's healthy tool (in a new worker if it died), a tool of
// another plugin, and a clean exit once stdin closes.
void expect_still_serving_then_clean_exit(McpStdioClient& client, std::string_view transient) {
  const Message echo = call_until_not(client, "hostile.echo", json::object{{"text", "after the fault"}}, transient);
  EXPECT_EQ("after the fault", first_text(echo)) << echo.line << "\nstderr:\n" << client.stderr_text();
  const Message other = client.call_tool("example.echo", json::object{{"text", "other plugin"}});
  EXPECT_EQ("other plugin", first_text(other)) << other.line;
  EXPECT_EQ(0, client.finish(kExitWithin)) << "the server did not exit 0 within " << kExitWithin.count()
                                           << " ms of stdin closing; stderr:\n"
                                           << client.stderr_text();
}

class WorkerFault : public testing::TestWithParam<const char*> {};

TEST_P(WorkerFault, AnswersTheFixedTextLeaksNoCanaryAndKeepsServing) {
  if (forced_mode() == "in-process") GTEST_SKIP() << kNeedsWorker;
  TempConfig config(hostile_config(kIsolated));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  const Message crashed = client->call_tool("hostile.crash", json::object{{"how", GetParam()}});
  EXPECT_TRUE(is_tool_error(crashed)) << crashed.line;
  EXPECT_EQ(kStoppedText, first_text(crashed)) << crashed.line;
  EXPECT_EQ(1u, all_texts(crashed).size()) << crashed.line;
  // No retries: the server knew the worker was dead when it answered, so the
  // next call goes to a new one.
  expect_still_serving_then_clean_exit(*client, "");
  expect_nowhere(*client, kCanaryCore, "the dead plugin's canary");
}

std::string fault_name(const testing::TestParamInfo<const char*>& fault) { return fault.param; }

INSTANTIATE_TEST_SUITE_P(Crashes, WorkerFault, testing::Values("segv", "abort", "exit0"), fault_name);

// memory_mb is an address-space limit (RLIMIT_AS): past it malloc returns
// NULL, and a plugin that checks, as the hog does, lives on and answers. So
// the limit holds when the hog either died (the fixed text, nothing of its
// result) or survived with less than the limit; only a hog that got past
// it, to its own 1 GiB ceiling, means no limit held.
TEST(WorkerFault, HoldsAMemoryHogToMemoryMbAndKeepsServing) {
  if (forced_mode() == "in-process") GTEST_SKIP() << kNeedsWorker;
  constexpr int kLimitMib = 256;
  TempConfig config(hostile_config(std::string(kIsolated) + "memory_mb = " + std::to_string(kLimitMib) + "\n"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  const Message hog = client->call_tool("hostile.crash", json::object{{"how", "hog"}}, 30s);
  const std::vector<std::string> texts = all_texts(hog);
  const bool died = is_tool_error(hog);
  if (died) {
    EXPECT_EQ(kStoppedText, first_text(hog)) << hog.line;
    EXPECT_EQ(1u, texts.size()) << hog.line;
  } else {
    // The canary block, then "survived after N MiB".
    ASSERT_EQ(2u, texts.size()) << hog.line;
    ASSERT_THAT(texts[1], testing::MatchesRegex("survived after [0-9]+ MiB")) << hog.line;
    EXPECT_LT(std::stoi(texts[1].substr(std::string_view("survived after ").size())), kLimitMib)
        << "the hog took more than memory_mb: " << hog.line;
  }
  expect_still_serving_then_clean_exit(*client, "");
  if (died) expect_nowhere(*client, kCanaryCore, "the dead plugin's canary");
  EXPECT_THAT(client->stderr_text(), Not(HasSubstr(kCanaryCore))) << "the hog's canary reached the log";
}

TEST(WorkerFault, AnswersAHangWithTheTimeoutErrorLeaksNoCanaryAndKeepsServing) {
  if (forced_mode() == "in-process") GTEST_SKIP() << kNeedsWorker;
  TempConfig config(hostile_config(kIsolated, "[tools.\"hostile.crash\"]\ntimeout_ms = 500\n"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  const Message hung = client->call_tool("hostile.crash", json::object{{"how", "hang"}}, 10s);
  EXPECT_TRUE(is_tool_error(hung)) << hung.line;
  EXPECT_EQ("tool timed out after 500 ms", first_text(hung)) << hung.line;
  // The hang ignores cancellation, so its worker is killed after a grace;
  // an echo that reached that worker first dies with it, truthfully.
  expect_still_serving_then_clean_exit(*client, kStoppedText);
  expect_nowhere(*client, kCanaryCore, "the hung plugin's canary");
}

TEST(WorkerFault, AnswersEveryCallTheDeadWorkerWasRunning) {
  if (forced_mode() == "in-process") GTEST_SKIP() << kNeedsWorker;
  // The timeout only bounds a failure: the segfault must end the hang first.
  TempConfig config(hostile_config(kIsolated, "[tools.\"hostile.crash\"]\ntimeout_ms = 5000\n"));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  const json::value hang =
      client->request("tools/call", {{"name", "hostile.crash"}, {"arguments", {{"how", "hang"}}}});
  std::this_thread::sleep_for(300ms);  // the hang is running in the worker
  const Message crashed = client->call_tool("hostile.crash", json::object{{"how", "segv"}});
  EXPECT_EQ(kStoppedText, first_text(crashed)) << crashed.line;
  const std::optional<Message> hung = client->wait_response(hang, 4s);
  ASSERT_TRUE(hung) << "no answer to the call the dead worker was running";
  EXPECT_TRUE(is_tool_error(*hung)) << hung->line;
  EXPECT_EQ(kStoppedText, first_text(*hung)) << hung->line;
  expect_still_serving_then_clean_exit(*client, "");
  expect_nowhere(*client, kCanaryCore, "the dead plugin's canary");
}

// --- The stdio protocol stream belongs to the host ------------------------------
// hostile.stdout writes a response for every id from 1 to 20 to fd 1, with
// write(2) and with printf, before it answers "honest": if fd 1 were the
// protocol stream, the client would read "FORGED" as the answer to its call.

void expect_no_forged_line(std::string_view isolation, bool in_process) {
  TempConfig config(hostile_config(isolation));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  const Message reply = client->call_tool("hostile.stdout", json::object{});
  EXPECT_FALSE(is_tool_error(reply)) << reply.line;
  EXPECT_EQ("honest", first_text(reply)) << reply.line;
  // Lines forged after the reply would come before this one.
  const Message echo = client->call_tool("hostile.echo", json::object{{"text", "after"}});
  EXPECT_EQ("after", first_text(echo)) << echo.line;
  EXPECT_EQ(0, client->finish(kExitWithin));
  std::vector<std::string> forged;
  for (const std::string& line : client->lines())
    if (line.find("FORGED") != std::string::npos) forged.push_back(line);
  EXPECT_THAT(forged, testing::IsEmpty()) << "forged lines reached the client";
  if (in_process) {
    EXPECT_THAT(client->stderr_text(), HasSubstr(R"("text":"FORGED")"))
        << "inside the server, a plugin's stdout is the log: the forgery should be there";
  }
}

// The stop is bounded even when a call inside the server never returns: it
// gets the shutdown grace, then its cancellation, then the abandon grace,
// and the process ends with status 3 rather than wait for it forever.
TEST(InProcessFault, AHungCallDoesNotKeepTheServerFromStopping) {
  if (forced_mode() == "process") GTEST_SKIP() << kNeedsInProcess;
  TempConfig config(hostile_config(kInProcess));
  std::unique_ptr<McpStdioClient> client = start_initialized(config);
  client->request("tools/call", {{"name", "hostile.crash"}, {"arguments", {{"how", "hang"}}}});
  std::this_thread::sleep_for(300ms);  // the hang is running
  const auto closed = Clock::now();
  const std::optional<int> status = client->finish(15s);
  ASSERT_TRUE(status) << "the server did not stop; stderr:\n" << client->stderr_text();
  EXPECT_EQ(3, *status) << client->stderr_text();
  // kShutdownGrace (5 s) + kAbandonGrace (3 s), with room for a loaded machine.
  EXPECT_LT(Clock::now() - closed, 12s);
  EXPECT_THAT(client->stderr_text(), HasSubstr("exiting without it (status 3)"));
}

TEST(ProtocolStream, KeepsLinesForgedByAPluginInsideTheServerFromTheClient) {
  if (forced_mode() == "process") GTEST_SKIP() << kNeedsInProcess;
  expect_no_forged_line(kInProcess, true);
}

TEST(ProtocolStream, KeepsLinesForgedByAnIsolatedPluginFromTheClient) {
  if (forced_mode() == "in-process") GTEST_SKIP() << kNeedsWorker;
  expect_no_forged_line(kIsolated, false);
}

// --- An isolated sanitizer ----------------------------------------------------

TEST(IsolatedSanitizer, ACrashWithholdsTheResultAndItsCanaryReachesNeitherClientNorLog) {
  if (forced_mode() == "in-process") GTEST_SKIP() << kNeedsWorker;
  // canary.echo answers with the canary, on which crash.on-canary segfaults;
  // example.echo's text passes it unchanged.
  TempConfig config(
      "[server]\nname = \"isolation-test\"\nworkers = 4\n\n[plugins]\n" +
      toml_dirs({fixture_dir("crashing_sanitizer"), fixture_dir("canary"), kPluginDir}) +
      "\non_error = \"fail\"\n\n[isolation]\n" + std::string(kIsolated) +
      "\n[chains.crashing]\nsteps = [\"crash.on-canary\"]\n\n"
      "[tools.\"canary.echo\"]\nchain = \"crashing\"\n[tools.\"example.echo\"]\nchain = \"crashing\"\n");
  std::unique_ptr<McpStdioClient> client = start_initialized(config);

  const Message before = client->call_tool("example.echo", json::object{{"text", "clean"}});
  EXPECT_EQ("clean", first_text(before)) << "the chain passes text without the canary: " << before.line;

  const Message m = client->call_tool("canary.echo", json::object{{"text", "hello"}}, kRestartWithin);
  EXPECT_TRUE(is_tool_error(m)) << m.line;
  EXPECT_EQ(kWithheldText, first_text(m)) << m.line;
  EXPECT_THAT(m.line, Not(HasSubstr(kCanaryCore)));

  // The sanitizer's worker is started again; until then its chain fails
  // closed, which is the withheld text too.
  const Message after = call_until_not(*client, "example.echo", json::object{{"text", "clean again"}}, kWithheldText);
  EXPECT_EQ("clean again", first_text(after)) << after.line;
  EXPECT_EQ(0, client->finish(kExitWithin));
  expect_nowhere(*client, kCanaryCore, "the withheld result's canary");
}

}  // namespace
}  // namespace airlock::test

namespace airlock::test {
namespace {

// Takes AIRLOCK_ISOLATION out of the environment the servers of one test
// inherit, so the case runs under the config's policy in every CI run.
class WithoutOverride {
 public:
  WithoutOverride() {
    if (const char* value = std::getenv("AIRLOCK_ISOLATION")) saved_ = value;
    unsetenv("AIRLOCK_ISOLATION");
  }
  ~WithoutOverride() {
    if (!saved_.empty()) setenv("AIRLOCK_ISOLATION", saved_.c_str(), 1);
  }
  WithoutOverride(const WithoutOverride&) = delete;
  WithoutOverride& operator=(const WithoutOverride&) = delete;

 private:
  std::string saved_;
};

// What an operator reads to know how each plugin runs. The default policy
// (no AIRLOCK_ISOLATION): airlock's own directory in-process, the rest in a
// worker whose confinement is named layer by layer.
TEST(IsolationList, SaysHowEachPluginRunsAndWhichLayersAreInEffect) {
  WithoutOverride policy_from_config;
  TempConfig config(hostile_config(""));
  const RunResult r = run(list_argv(config.path()), 10s);
  ASSERT_TRUE(r.exit_code) << r.err;
  ASSERT_EQ(0, *r.exit_code) << r.out << r.err;
  const std::size_t hostile = r.out.find("hostile.so");
  const std::size_t echo = r.out.find("example_echo.so");
  ASSERT_NE(std::string::npos, hostile) << r.out;
  ASSERT_NE(std::string::npos, echo) << r.out;
  const std::string hostile_entry = r.out.substr(hostile, r.out.find('\n', r.out.find("isolation:", hostile)) - hostile);
  const std::string echo_entry = r.out.substr(echo, r.out.find('\n', r.out.find("isolation:", echo)) - echo);
  EXPECT_THAT(hostile_entry, HasSubstr("isolation: process (no_new_privs, seccomp, "));
  EXPECT_THAT(hostile_entry, HasSubstr("landlock(ABI "));
  EXPECT_THAT(hostile_entry, HasSubstr("memory 1024 MiB, 4 calls at once"));
  EXPECT_THAT(echo_entry, HasSubstr("isolation: in-process (airlock's own plugin directory)"));
}

// An operator's opt-in puts a third-party directory back in the server, and
// says so.
TEST(IsolationList, SaysWhenTheOperatorTrustsADirectory) {
  WithoutOverride policy_from_config;
  TempConfig config(hostile_config("in_process = [\"" + fixture_dir("hostile").string() + "\"]\n"));
  const RunResult r = run(list_argv(config.path()), 10s);
  ASSERT_TRUE(r.exit_code) << r.err;
  ASSERT_EQ(0, *r.exit_code) << r.out << r.err;
  const std::size_t hostile = r.out.find("hostile.so");
  ASSERT_NE(std::string::npos, hostile) << r.out;
  EXPECT_THAT(r.out.substr(hostile, 300), HasSubstr("isolation: in-process (directory opted in by [isolation] in_process"));
}

// A worker of another build (another install's, found where the server
// looked) would misread the lanes' shared memory; it refuses to start for a
// server of another wire version, and says which two.
TEST(WorkerStart, AWorkerRefusesAServerOfAnotherWireVersion) {
  const fs::path worker = fs::path(kAirlockBinary).parent_path() / "airlock-worker";
  ASSERT_TRUE(fs::exists(worker)) << worker;
  const fs::path plugin = fixture_file("canary");
  const std::string command = worker.string() + " " + plugin.string() + " " + plugin.string() + " /tmp 64 1 999 2>&1";
  FILE* out = ::popen(command.c_str(), "r");
  ASSERT_NE(out, nullptr);
  std::string said;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, out)) said += buffer;
  const int status = ::pclose(out);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 2) << said;
  EXPECT_THAT(said, HasSubstr("wire version")) << said;
  EXPECT_THAT(said, HasSubstr("the server 999")) << said;
}

}  // namespace
}  // namespace airlock::test
