// Durable tasks from outside (issue 10): the real binary, the conformance
// pack's task tools, a real store. A completed task's stored result is the
// tool's, unsanitized, and every read passes the reading server's chain with
// the reader's context: change the chain between two reads and the reader
// sees the difference while the stored row stays as it was. A task is its
// creator's alone; a server killed mid-task leaves the task failed, never
// working forever; _meta of the creating request is kept whole.
//
// The store is SQLite by default; with AIRLOCK_TEST_POSTGRES_URI set (by
// run_tasks_test.sh, which starts a throwaway PostgreSQL) the same tests run
// against it, and the two-node test puts nginx in front of two servers.
#include "http_integration.hpp"
#include "origin_server.hpp"

#include "tasks/task_store.hpp"


#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <fstream>
#include <thread>

namespace airlock::test {
namespace {

using testing::HasSubstr;
namespace json = boost::json;
using host::TaskStatus;

constexpr std::string_view kAliceToken = "alice-token-0123456789abcdef";
constexpr std::string_view kBobToken = "bob-token-fedcba9876543210";


std::string postgres_uri() {
  const char* uri = std::getenv("AIRLOCK_TEST_POSTGRES_URI");
  return uri ? uri : "";
}

json::object task_caps() {
  return json::object{{"elicitation", json::object{}},
                      {"extensions", {{"io.modelcontextprotocol/tasks", json::object{}}}}};
}

// One server: the conformance pack's tools, two identities, and the chain
// for slow_compute given (empty: none).
std::string node_config(const std::string& store, std::string_view chain_steps, std::string_view node_id = "",
                        std::string_view name = "tasks-node") {
  std::string toml = "[server]\nname = \"" + std::string(name) + "\"\nworkers = 4\n\n[plugins]\n" +
                     toml_dirs({kPluginDir, kPluginDir / "conformance-pack"}) + "\non_error = \"fail\"\n\n" +
                     "[transport.http]\naccess_log = false\n\n" +
                     "[[transport.http.tokens]]\nidentity = \"alice\"\nsha256 = \"" + sha256_hex(kAliceToken) +
                     "\"\n\n[[transport.http.tokens]]\nidentity = \"bob\"\nsha256 = \"" + sha256_hex(kBobToken) +
                     "\"\n\n";
  if (chain_steps.empty()) {
    toml += "[tools.\"slow_compute\"]\nchain = \"none\"\n\n";
  } else {
    toml += "[chains.reader]\nsteps = [" + std::string(chain_steps) + "]\n\n[tools.\"slow_compute\"]\nchain = \"reader\"\n\n";
  }
  toml += "[tasks]\nstore = " + toml_string(store) + "\npoll_interval_ms = 100\n";
  if (!node_id.empty()) toml += "node_id = " + toml_string(std::string(node_id)) + "\n";
  return toml;
}

// A stand-alone 2026-07-28 request as `token`'s holder.
McpReply modern(std::uint16_t port, std::string_view token, std::string_view method, json::object params,
                json::object meta_extra = {}) {
  McpHttpClient client(port);
  client.set_bearer(std::string(token));
  json::object meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                    {"io.modelcontextprotocol/clientCapabilities", task_caps()}};
  for (auto& [k, v] : meta_extra) meta[k] = v;
  params["_meta"] = std::move(meta);
  client.set_protocol_header("2026-07-28");
  client.set_header("Mcp-Method", std::string(method));
  if (const auto* name = params.if_contains("name")) client.set_header("Mcp-Name", std::string(name->as_string()));
  if (const auto* id = params.if_contains("taskId")) client.set_header("Mcp-Name", std::string(id->as_string()));
  return client.send(rpc_request(client.next_id(), method, std::move(params)), 10s);
}

McpReply get_task(std::uint16_t port, std::string_view token, const std::string& id) {
  return modern(port, token, "tasks/get", {{"taskId", id}});
}

// Polls tasks/get until the task is terminal (or 15 s pass).
McpReply wait_terminal(std::uint16_t port, std::string_view token, const std::string& id) {
  McpReply reply;
  for (int i = 0; i < 150; ++i) {
    reply = get_task(port, token, id);
    const std::string status = string_at(reply.response, "/result/status");
    if (status == "completed" || status == "failed" || status == "cancelled") return reply;
    std::this_thread::sleep_for(100ms);
  }
  ADD_FAILURE() << "task " << id << " did not end: " << reply.describe();
  return reply;
}

class Tasks : public testing::Test {
 protected:
  void SetUp() override {
    store_ = postgres_uri().empty() ? (dir_.dir() / "tasks.db").string() : postgres_uri();
  }
  std::string store_;
  TempConfig dir_{""};
};

TEST_F(Tasks, EveryReadPassesTheReadersChainAndTheStoredResultNeverChanges) {
  const std::string label = "<b>bold</b> label";
  std::string id;
  {
    HttpServerUnderTest plain(node_config(store_, ""));
    ASSERT_TRUE(plain.server.ready()) << plain.server.stderr_text();
    const McpReply created = modern(plain.port(), kAliceToken, "tools/call",
                                    {{"name", "slow_compute"}, {"arguments", {{"seconds", 1}, {"label", label}}}},
                                    {{"acme/trace", "kept-whole"}});
    ASSERT_EQ("task", string_at(created.response, "/result/resultType")) << created.describe();
    id = string_at(created.response, "/result/taskId");
    EXPECT_EQ(64u, id.size()) << "256 random bits, in hex";
    const McpReply done = wait_terminal(plain.port(), kAliceToken, id);
    ASSERT_EQ("completed", string_at(done.response, "/result/status")) << done.describe();
    EXPECT_THAT(string_at(done.response, "/result/result/content/0/text"), HasSubstr("<b>bold</b>"))
        << "no chain on this server: the tool's own text";
  }
  // Another server on the same store, whose chain escapes markup.
  HttpServerUnderTest escaping(node_config(store_, "\"airlock.escape-markup\""));
  ASSERT_TRUE(escaping.server.ready()) << escaping.server.stderr_text();
  const McpReply reread = get_task(escaping.port(), kAliceToken, id);
  ASSERT_EQ("completed", string_at(reread.response, "/result/status")) << reread.describe();
  const std::string seen = string_at(reread.response, "/result/result/content/0/text");
  EXPECT_THAT(seen, testing::Not(HasSubstr("<b>"))) << "read through this server's chain: " << seen;
  EXPECT_THAT(seen, HasSubstr("bold"));

  // The row: the tool's result as it left the tool, and the _meta whole.
  auto store = host::open_task_store(store_);
  ASSERT_TRUE(store) << store.error().message;
  auto row = (*store)->get(id, "identity:alice");
  ASSERT_TRUE(row && *row) << (row ? "no row" : row.error().message);
  EXPECT_THAT((*row)->result, HasSubstr("<b>bold</b>")) << "the stored result is never sanitized in place";
  EXPECT_THAT((*row)->meta, HasSubstr("\"acme/trace\":\"kept-whole\""));
  EXPECT_EQ("slow_compute", (*row)->tool);
  EXPECT_THAT((*row)->arguments, HasSubstr("bold"));
}

TEST_F(Tasks, ATaskIsItsCreatorsAloneAndAnUnknownIdReadsTheSame) {
  HttpServerUnderTest node(node_config(store_, ""));
  ASSERT_TRUE(node.server.ready()) << node.server.stderr_text();
  const McpReply created = modern(node.port(), kAliceToken, "tools/call",
                                  {{"name", "slow_compute"}, {"arguments", {{"seconds", 1}, {"label", "mine"}}}});
  const std::string id = string_at(created.response, "/result/taskId");
  ASSERT_FALSE(id.empty()) << created.describe();

  const McpReply theirs = get_task(node.port(), kBobToken, id);
  const McpReply nobodys = get_task(node.port(), kBobToken, std::string(64, 'a'));
  EXPECT_EQ(-32602, int_at(theirs.response, "/error/code")) << theirs.describe();
  EXPECT_EQ(int_at(nobodys.response, "/error/code"), int_at(theirs.response, "/error/code"));
  // The same message but for the id: nothing tells the two apart.
  std::string a = string_at(theirs.response, "/error/message"), b = string_at(nobodys.response, "/error/message");
  EXPECT_EQ(a.substr(0, a.find(id)), b.substr(0, b.find(std::string(64, 'a'))));
  const McpReply cancel = modern(node.port(), kBobToken, "tasks/cancel", {{"taskId", id}});
  EXPECT_EQ(-32602, int_at(cancel.response, "/error/code")) << "bob cannot cancel it: " << cancel.describe();
  EXPECT_EQ("completed", string_at(wait_terminal(node.port(), kAliceToken, id).response, "/result/status"));
}

TEST_F(Tasks, AServerKilledMidTaskLeavesItFailedForItsOwner) {
  std::string id;
  {
    HttpServerUnderTest doomed(node_config(store_, "", "node-doomed"));
    ASSERT_TRUE(doomed.server.ready()) << doomed.server.stderr_text();
    const McpReply created = modern(doomed.port(), kAliceToken, "tools/call",
                                    {{"name", "slow_compute"}, {"arguments", {{"seconds", 60}, {"label", "long"}}}});
    id = string_at(created.response, "/result/taskId");
    ASSERT_FALSE(id.empty()) << created.describe();
    EXPECT_EQ("working", string_at(get_task(doomed.port(), kAliceToken, id).response, "/result/status"));
    doomed.server.process().kill();  // SIGKILL: no chance to write anything
  }
  // Another server notices the silence (no heartbeat for 10 s).
  HttpServerUnderTest survivor(node_config(store_, "", "node-survivor"));
  ASSERT_TRUE(survivor.server.ready()) << survivor.server.stderr_text();
  McpReply after;
  for (int i = 0; i < 250; ++i) {
    after = get_task(survivor.port(), kAliceToken, id);
    if (string_at(after.response, "/result/status") != "working") break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ("failed", string_at(after.response, "/result/status")) << after.describe();
  EXPECT_EQ(-32603, int_at(after.response, "/result/error/code")) << after.describe();
  EXPECT_EQ(nullptr, find(after.response, "/result/result")) << "never a half-written result";
}

TEST_F(Tasks, AStoreThatDoesNotAnswerFailsTaskCallsAndEverythingElseIsServed) {
  // A closed port on loopback: PostgreSQL that is not there.
  HttpServerUnderTest node(node_config("postgresql://airlock:secret-password@127.0.0.1:9/airlock", ""));
  ASSERT_TRUE(node.server.ready()) << node.server.stderr_text();
  const McpReply task = modern(node.port(), kAliceToken, "tools/call",
                               {{"name", "slow_compute"}, {"arguments", {{"seconds", 1}, {"label", "x"}}}});
  EXPECT_EQ(-32603, int_at(task.response, "/error/code")) << task.describe();
  EXPECT_THAT(string_at(task.response, "/error/message"), HasSubstr("127.0.0.1"));
  EXPECT_THAT(task.http.body, testing::Not(HasSubstr("secret-password")));
  const McpReply greet = modern(node.port(), kAliceToken, "tools/call",
                                {{"name", "greet"}, {"arguments", {{"name", "still here"}}}});
  EXPECT_EQ("Hello, still here!", string_at(greet.response, "/result/content/0/text")) << greet.describe();
  EXPECT_THAT(node.server.stderr_text(), testing::Not(HasSubstr("secret-password")));
}

// A tool keeps its network grants when it runs as a task: the task runs
// it with the same egress set, and through the same fetch, as its session
// would have. (It once ran without the fetch, and call_fetch refused every
// destination as if the tool had no grant.)
TEST_F(Tasks, AToolRunningAsATaskFetchesWhatItsGrantsAllow) {
  OriginServer docs([](const OriginServer::Request&) {
    OriginServer::Response r;
    r.headers = {{"Content-Type", "text/plain; charset=utf-8"}};
    r.body = "fetched inside the task";
    return r;
  });
  const std::string origin = "http://docs.test:" + std::to_string(docs.port());
  const std::string toml =
      "[server]\nname = \"tasks-fetch\"\nworkers = 4\n\n[plugins]\n" + toml_dirs({fixture_dir("task_fetch")}) +
      "\non_error = \"fail\"\n\n[transport.http]\naccess_log = false\n\n[[transport.http.tokens]]\n"
      "identity = \"alice\"\nsha256 = \"" + sha256_hex(kAliceToken) + "\"\n\n"
      "[egress.hosts]\n\"docs.test\" = [\"127.0.0.1\"]\n\n"
      "[tools.\"task-fetch.get\"]\negress = [" + toml_string(origin) + "]\negress_addresses = [\"127.0.0.1/32\"]\n\n"
      "[tasks]\nstore = " + toml_string(store_) + "\npoll_interval_ms = 100\n";
  HttpServerUnderTest node(toml);
  ASSERT_TRUE(node.server.ready()) << node.server.stderr_text();
  const json::object call{{"name", "task-fetch.get"}, {"arguments", {{"url", origin + "/in-session"}}}};

  // In its request (the client declares no tasks extension): the grant works.
  const McpReply direct = modern(node.port(), kAliceToken, "tools/call", call,
                                 {{"io.modelcontextprotocol/clientCapabilities", json::object{}}});
  EXPECT_EQ("fetched inside the task", string_at(direct.response, "/result/content/0/text")) << direct.describe();

  // As a task: the same grant, the same answer.
  json::object as_task = call;
  as_task["arguments"] = json::object{{"url", origin + "/in-task"}};
  const McpReply created = modern(node.port(), kAliceToken, "tools/call", as_task);
  ASSERT_EQ("task", string_at(created.response, "/result/resultType")) << created.describe();
  const std::string id = string_at(created.response, "/result/taskId");
  const McpReply done = wait_terminal(node.port(), kAliceToken, id);
  ASSERT_EQ("completed", string_at(done.response, "/result/status")) << done.describe();
  EXPECT_EQ("fetched inside the task", string_at(done.response, "/result/result/content/0/text"))
      << done.describe() << "\n" << node.server.stderr_text();
  std::vector<std::string> seen;
  for (const OriginServer::Request& r : docs.requests()) seen.push_back(r.target);
  EXPECT_THAT(seen, testing::ElementsAre("/in-session", "/in-task"));
}

TEST_F(Tasks, A2025SessionAsksForATaskAndReadsItsResultWhenItEnds) {
  HttpServerUnderTest node(node_config(store_, "\"airlock.escape-markup\""));
  ASSERT_TRUE(node.server.ready()) << node.server.stderr_text();
  McpHttpClient client(node.port());
  client.set_bearer(std::string(kAliceToken));
  const McpReply init = client.initialize("2025-11-25");
  ASSERT_EQ(200, init.http.status) << init.describe();
  EXPECT_NE(nullptr, find(init.response, "/result/capabilities/tasks/requests/tools/call")) << init.describe();

  const McpReply created = client.call(
      "tools/call", json::object{{"name", "slow_compute"},
                                 {"arguments", {{"seconds", 1}, {"label", "<i>legacy</i>"}}},
                                 {"task", {{"ttl", 60000}}}});
  const std::string id = string_at(created.response, "/result/task/taskId");
  ASSERT_EQ(64u, id.size()) << created.describe();
  EXPECT_EQ("working", string_at(created.response, "/result/task/status"));
  EXPECT_EQ(60000, int_at(created.response, "/result/task/ttl"));

  const McpReply got = client.call("tasks/get", json::object{{"taskId", id}});
  EXPECT_EQ(id, string_at(got.response, "/result/taskId")) << got.describe();
  // tasks/result waits for the end, and passes the chain like any result.
  const McpReply result = client.call("tasks/result", json::object{{"taskId", id}}, 10s);
  const std::string text = string_at(result.response, "/result/content/0/text");
  EXPECT_THAT(text, HasSubstr("legacy")) << result.describe();
  EXPECT_THAT(text, testing::Not(HasSubstr("<i>"))) << "escaped by the chain: " << text;
  EXPECT_EQ(id, string_at(result.response, "/result/_meta/io.modelcontextprotocol~1related-task/taskId"));

  const McpReply listed = client.call("tasks/list", json::object{});
  bool seen = false;
  if (const auto* tasks = find(listed.response, "/result/tasks"))
    for (const auto& t : tasks->as_array()) seen = seen || t.at("taskId").as_string() == id;
  EXPECT_TRUE(seen) << listed.describe();
  const McpReply cancel = client.call("tasks/cancel", json::object{{"taskId", id}});
  EXPECT_EQ(-32602, int_at(cancel.response, "/error/code")) << "a completed task cannot be cancelled: "
                                                           << cancel.describe();
}

// Two servers behind nginx (round robin), one PostgreSQL: each read of one
// task is answered by whichever node nginx picks, through that node's chain.
TEST_F(Tasks, TwoNodesBehindNginxEachReadThroughItsOwnChain) {
  if (postgres_uri().empty()) GTEST_SKIP() << "needs PostgreSQL: run by integration_tasks_postgres_test";
  const std::filesystem::path nginx = "/usr/sbin/nginx";
  ASSERT_TRUE(std::filesystem::exists(nginx)) << "nginx is missing (packaging/install-deps.sh installs nginx-light)";
  HttpServerUnderTest a(node_config(store_, "", "node-a", "node-a"));
  HttpServerUnderTest b(node_config(store_, "\"airlock.escape-markup\"", "node-b", "node-b"));
  ASSERT_TRUE(a.server.ready() && b.server.ready()) << a.server.stderr_text() << b.server.stderr_text();

  // A free port for nginx: bound, read back, released.
  std::uint16_t front = 0;
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(0, ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr));
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    front = ntohs(addr.sin_port);
    ::close(fd);
  }
  TempConfig prefix("", "unused.toml");
  std::filesystem::create_directories(prefix.dir() / "logs");
  std::ofstream(prefix.dir() / "nginx.conf")
      << "daemon off;\npid " << (prefix.dir() / "nginx.pid").string() << ";\nerror_log stderr;\n"
      << "events { worker_connections 64; }\nhttp {\n  access_log off;\n"
      << "  client_body_temp_path " << prefix.dir().string() << ";\n  proxy_temp_path " << prefix.dir().string()
      << ";\n  upstream airlock { server 127.0.0.1:" << a.port() << "; server 127.0.0.1:" << b.port() << "; }\n"
      << "  server {\n    listen 127.0.0.1:" << front << ";\n    location / {\n"
      << "      proxy_pass http://airlock;\n      proxy_http_version 1.1;\n      proxy_set_header Host $host;\n"
      << "      proxy_buffering off;\n    }\n  }\n}\n";
  Subprocess proxy({nginx.string(), "-p", prefix.dir().string(), "-c", (prefix.dir() / "nginx.conf").string()});
  bool up = false;
  for (int i = 0; i < 50 && !up; ++i) {
    std::this_thread::sleep_for(100ms);
    up = http_get(front, "/healthz").status == 200;
  }
  ASSERT_TRUE(up) << proxy.stderr_text();

  const McpReply created = modern(front, kAliceToken, "tools/call",
                                  {{"name", "slow_compute"}, {"arguments", {{"seconds", 1}, {"label", "<b>x</b>"}}}});
  const std::string id = string_at(created.response, "/result/taskId");
  ASSERT_FALSE(id.empty()) << created.describe();
  wait_terminal(front, kAliceToken, id);
  std::map<std::string, std::string> seen;  // reading node -> text it served
  for (int i = 0; i < 4; ++i) {
    const McpReply read = get_task(front, kAliceToken, id);
    seen[string_at(read.response, "/result/_meta/io.modelcontextprotocol~1serverInfo/name")] =
        string_at(read.response, "/result/result/content/0/text");
  }
  ASSERT_EQ(2u, seen.size()) << "round robin reaches both nodes";
  EXPECT_THAT(seen["node-a"], HasSubstr("<b>x</b>")) << "node a has no chain for the tool";
  EXPECT_THAT(seen["node-b"], testing::Not(HasSubstr("<b>"))) << "node b escapes markup: " << seen["node-b"];
  proxy.kill();
}

TEST(TasksStore, ACorruptSqliteFileIsReportedAtStartNamingTheFile) {
  TempConfig dir("");
  const auto file = dir.dir() / "broken.db";
  std::ofstream(file) << "this is not a database, just text long enough to be read as a header............";
  TempConfig config(node_config(file.string(), ""));
  const RunResult run = airlock::test::run(serve_argv(config.path()), 10s);
  EXPECT_EQ(1, run.exit_code.value_or(-1)) << run.err;
  EXPECT_THAT(run.err, HasSubstr(file.string()));
}

}  // namespace
}  // namespace airlock::test
