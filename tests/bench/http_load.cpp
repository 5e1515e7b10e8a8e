// Drives an MCP server over Streamable HTTP with tools/call requests and
// prints the throughput and latency it saw. Each of C keep-alive connections
// opens its own session (initialize + notifications/initialized) and keeps
// one request in flight, so C is the number of calls in flight. Every
// response is checked: status, content type, the id, a result, the expected
// text byte for byte (and every --parse-every'th one parsed whole); any
// failure exits non-zero.
//
//   http_load --url http://127.0.0.1:PORT/mcp [--connections C] [--calls N]
//             [--payload BYTES] [--payload-kind plain|dirty]
//             [--mode json|sse|stateless] [--accept VALUE] [--tool NAME]
//             [--max-seconds S] [--parse-every N] [--pid PID]
//             [--idle-sessions K --pid PID]
//
// --mode json sends `Accept: application/json` (one JSON body back); sse
// accepts both, so the server answers with an event stream. stateless is
// MCP 2026-07-28: no initialize and no session; every POST carries
// MCP-Protocol-Version: 2026-07-28, Mcp-Method and Mcp-Name, and its params
// carry _meta with the protocol version, the client's capabilities and
// clientInfo; it accepts both types and takes whichever framing the server
// picks; the result must say resultType "complete". --accept replaces the
// Accept header of every POST in any mode; the framing wanted stays the
// mode's (the TypeScript SDK's transport refuses a POST that does not accept
// both types even when it answers JSON; run_comparison.sh gives it both).
// Latency is from the start of a request's write to the end of its response
// (for SSE, the last chunk). The run stops after N calls or S seconds,
// whichever is first.
//
// --payload-kind: plain is words the sanitizer chain passes unchanged, and
// every response's text must be the payload. dirty is text full of secrets,
// URLs, markup and control bytes (bench_support.hpp), which a chain
// rewrites: every response's text must equal the first response's, byte for
// byte as serialized (a chain is deterministic); text_changed= says whether
// the text differs from what was sent.
//
// --pid PID with calls: the server's CPU time (utime + stime from
// /proc/PID/stat, summed over PID and the processes it started) from the
// moment every connection is ready to the last call's response, per call
// (cpu_us_per_call=), and its peak RSS (VmHWM over the same processes, at
// the end: peak_rss_kib=).
//
// --idle-sessions K makes no calls: it opens K sessions (initialize +
// initialized, then nothing) over the C connections and prints the server's
// RSS, read from /proc/PID/status, before and after. The sessions outlive
// the connections: they stay until the server expires them.
//
// One thread: the client's cost per call stays small next to the server's,
// and it takes at most one of the machine's cores.
#include "bench_support.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <iostream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

struct Options {
  std::string host;
  std::string port;
  std::string target;
  std::int64_t connections = 1;
  std::int64_t calls = 1000;
  std::size_t payload = 64;
  bool dirty = false;
  bool sse = false;
  bool stateless = false;
  std::string accept;  // empty: the mode's
  std::string tool = "example.echo";
  double max_seconds = 30;
  std::int64_t parse_every = 64;
  std::chrono::seconds stall_timeout{10};
  std::int64_t idle_sessions = 0;
  long pid = 0;
};

constexpr std::string_view kModernVersion = "2026-07-28";

const char* mode_name(const Options& o) { return o.stateless ? "stateless" : o.sse ? "sse" : "json"; }

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "http_load: " << why
            << "\nusage: http_load --url http://127.0.0.1:PORT/PATH [--connections C] [--calls N] "
               "[--payload BYTES] [--payload-kind plain|dirty] [--mode json|sse|stateless] [--accept VALUE] "
               "[--tool NAME] [--max-seconds S] [--parse-every N] [--stall-timeout-s S] [--pid PID] "
               "[--idle-sessions K --pid PID]\n";
  std::exit(2);
}

// http://HOST:PORT/PATH with a loopback literal for HOST: this tool never
// reaches past the machine.
void parse_url(std::string_view url, Options& o) {
  constexpr std::string_view scheme = "http://";
  if (!url.starts_with(scheme)) usage("--url must start with http://");
  url.remove_prefix(scheme.size());
  const auto slash = url.find('/');
  const std::string_view authority = url.substr(0, slash);
  o.target = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
  const auto colon = authority.rfind(':');
  if (colon == std::string_view::npos) usage("--url needs a port");
  std::string_view host = authority.substr(0, colon);
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  o.host = host == "localhost" ? "127.0.0.1" : std::string(host);
  o.port = std::string(authority.substr(colon + 1));
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(o.host, ec);
  if (ec || !address.is_loopback()) usage("--url must name a loopback address (127.0.0.1 or [::1])");
}

Options parse_options(int argc, char** argv) {
  Options o;
  bool have_url = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage(flag + " needs a value");
    const std::string value = argv[++i];
    try {
      if (flag == "--url") {
        parse_url(value, o);
        have_url = true;
      } else if (flag == "--connections") {
        o.connections = std::stoll(value);
      } else if (flag == "--calls") {
        o.calls = std::stoll(value);
      } else if (flag == "--payload") {
        o.payload = std::stoull(value);
      } else if (flag == "--payload-kind") {
        if (value != "plain" && value != "dirty") usage("--payload-kind is plain or dirty");
        o.dirty = value == "dirty";
      } else if (flag == "--mode") {
        if (value != "json" && value != "sse" && value != "stateless") usage("--mode is json, sse or stateless");
        o.sse = value == "sse";
        o.stateless = value == "stateless";
      } else if (flag == "--accept") {
        o.accept = value;
      } else if (flag == "--parse-every") {
        o.parse_every = std::stoll(value);
      } else if (flag == "--tool") {
        o.tool = value;
      } else if (flag == "--max-seconds") {
        o.max_seconds = std::stod(value);
      } else if (flag == "--stall-timeout-s") {
        o.stall_timeout = std::chrono::seconds(std::stoll(value));
      } else if (flag == "--idle-sessions") {
        o.idle_sessions = std::stoll(value);
      } else if (flag == "--pid") {
        o.pid = std::stol(value);
      } else {
        usage("unknown option " + flag);
      }
    } catch (const std::logic_error&) {
      usage("bad value for " + flag + ": " + value);
    }
  }
  if (!have_url) usage("--url is required");
  if (o.connections < 1 || o.calls < 0 || o.idle_sessions < 0 || o.max_seconds <= 0 || o.parse_every < 1)
    usage("--connections and --parse-every must be positive; --calls, --idle-sessions and --max-seconds not "
          "negative");
  if (o.idle_sessions > 0 && o.stateless) usage("--idle-sessions opens sessions; --mode stateless has none");
  if (o.idle_sessions > 0 && o.pid <= 0) usage("--idle-sessions needs --pid");
  if (o.idle_sessions > 0) o.calls = 0;
  return o;
}

// Words and spaces only: text the sanitizer chain passes unchanged, so the
// echo can be compared byte for byte, yet not one long run of one class.
std::string make_payload(std::size_t size) {
  static constexpr std::string_view kWords[] = {"lorem", "ipsum", "dolor", "sit", "amet", "consectetur",
                                                "adipiscing", "elit", "sed", "do", "eiusmod", "tempor",
                                                "incididunt", "ut", "labore", "et", "magna", "aliqua"};
  std::string text;
  text.reserve(size + 16);
  for (std::size_t i = 0; text.size() < size; ++i) {
    text.append(kWords[i % std::size(kWords)]);
    text.push_back(i % 11 == 10 ? ',' : ' ');
  }
  text.resize(size);
  return text;
}

long rss_kib(long pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("VmRSS:")) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

std::int64_t percentile_us(const std::vector<std::int64_t>& sorted_ns, double p) {
  if (sorted_ns.empty()) return 0;
  const auto i = static_cast<std::size_t>(p * static_cast<double>(sorted_ns.size() - 1));
  return sorted_ns[i] / 1000;
}

// Everything the connections share; one thread, so no locks.
struct Run {
  Options opt;
  std::string payload;
  // What every response's text must be, as serialized in the response and
  // as decoded: the payload, or for dirty text the first response's.
  std::string expected_raw;
  std::string expected_text;
  bool have_expected = false;
  bool text_changed = false;
  // The server's usage when the clock starts, and when the last call ends.
  airlock::bench::ServerUsage usage_before;
  airlock::bench::ServerUsage usage_after;
  std::int64_t calling = 0;  // connections still in their call loop
  std::string call_prefix;  // {"jsonrpc":"2.0","id":
  std::string call_suffix;  // ,"method":"tools/call",...}
  Clock::time_point deadline;
  // The clock starts once every connection has its session, so the
  // handshakes are not counted as calls; `gate` holds the connections until then.
  std::unique_ptr<asio::steady_timer> gate;
  std::int64_t ready = 0;
  Clock::time_point start;
  Clock::time_point last_done;
  std::int64_t next_id = 1;
  std::int64_t completed = 0;
  std::int64_t sessions_to_open = 0;  // idle sessions not yet claimed by a connection
  std::vector<std::int64_t> latency_ns;
  std::vector<std::string> failures;
  bool hit_deadline = false;

  void fail(std::string what) {
    if (failures.size() < 10) std::cerr << "http_load: " << what << "\n";
    failures.push_back(std::move(what));
  }
};

// The JSON-RPC message a response carries: the body itself, or for an event
// stream the data of its one `message` event (after the priming event, if
// any). Empty, with `why` set, when the framing is wrong. `either` takes
// whichever of the two the content type says (2026-07-28 requests accept both).
std::string_view message_of(const http::response<http::string_body>& response, bool sse, bool either,
                            std::string& why) {
  const std::string_view type(response[http::field::content_type].data(), response[http::field::content_type].size());
  const std::string_view body = response.body();
  if (either) sse = type.starts_with("text/event-stream");
  if (!sse) {
    if (!type.starts_with("application/json")) why = "content type " + std::string(type) + ", wanted application/json";
    return why.empty() ? body : std::string_view();
  }
  if (!type.starts_with("text/event-stream")) {
    why = "content type " + std::string(type) + ", wanted text/event-stream";
    return {};
  }
  // Events end at a blank line; fields are `name: value` lines. Serialized
  // JSON holds no raw newline, so the message is one data line.
  std::string_view data;
  int messages = 0;
  std::size_t at = 0;
  while (at < body.size()) {
    const std::size_t end = body.find("\n\n", at);
    const std::string_view event = body.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    at = end == std::string_view::npos ? body.size() : end + 2;
    bool is_message = false;
    std::string_view event_data;
    for (std::size_t line_at = 0; line_at < event.size();) {
      const std::size_t nl = event.find('\n', line_at);
      const std::string_view line = event.substr(line_at, nl == std::string_view::npos ? std::string_view::npos : nl - line_at);
      line_at = nl == std::string_view::npos ? event.size() : nl + 1;
      if (line == "event: message") is_message = true;
      else if (line.starts_with("data: ")) event_data = line.substr(6);
    }
    if (is_message) {
      ++messages;
      data = event_data;
    }
  }
  if (messages != 1) why = "the stream carried " + std::to_string(messages) + " message events, wanted 1";
  return why.empty() ? data : std::string_view();
}

constexpr std::string_view kText = R"("text":")";

// The first response of a dirty run sets what the others must say: its text
// as serialized (up to the unescaped closing quote) and decoded.
bool learn_expected(std::string_view message, Run& run, std::string& why) {
  const std::size_t text_at = message.find(kText);
  json::error_code ec;
  const json::value v = json::parse(message, ec);
  const json::value* text = ec ? nullptr : v.find_pointer("/result/content/0/text", ec);
  if (text_at == std::string_view::npos || !text || !text->is_string()) {
    why = "no text in the first response: " + std::string(message.substr(0, 200));
    return false;
  }
  const std::size_t from = text_at + kText.size();
  for (std::size_t quote = message.find('"', from); quote != std::string_view::npos;
       quote = message.find('"', quote + 1)) {
    std::size_t backslashes = 0;
    while (quote - backslashes > from && message[quote - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) {
      run.expected_raw = std::string(message.substr(from, quote - from));
      run.expected_text = std::string(text->as_string());
      run.have_expected = true;
      run.text_changed = run.expected_text != run.payload;
      return true;
    }
  }
  why = "the first response's text does not end: " + std::string(message.substr(0, 200));
  return false;
}

// The cheap check, on every response: outside the text the message names
// this id and a result and no error (servers put "id" before or after the
// result), and the text is the expected one, byte for byte as serialized.
bool echoes(std::string_view message, std::int64_t id, std::string_view expected, std::string& why) {
  const std::size_t text_at = message.find(kText);
  if (!message.starts_with('{') || text_at == std::string_view::npos) {
    why = "no text in " + std::string(message.substr(0, 200));
    return false;
  }
  const std::string_view text = message.substr(text_at + kText.size());
  // The expected text is a whole JSON string's inside, so it cannot end in
  // an escaping backslash: a quote right after it closes the string.
  if (text.size() <= expected.size() || text.compare(0, expected.size(), expected) != 0 ||
      text[expected.size()] != '"') {
    why = "response " + std::to_string(id) + " does not have the expected text: " +
          std::string(message.substr(0, 200));
    return false;
  }
  const std::string_view before = message.substr(0, text_at);
  const std::string_view after = text.substr(expected.size() + 1);
  char id_text[32];
  const auto id_end = std::to_chars(id_text, id_text + sizeof id_text, id).ptr;
  const std::string key = std::string(R"("id":)") + std::string(id_text, id_end);
  const auto names_id = [&](std::string_view part) {
    const std::size_t at = part.find(key);
    const char next = at == std::string_view::npos || at + key.size() >= part.size() ? '\0' : part[at + key.size()];
    return next == ',' || next == '}';
  };
  if (!(names_id(before) || names_id(after)) || before.find(R"("result":)") == std::string_view::npos ||
      before.find(R"("error":)") != std::string_view::npos || after.find(R"("error":)") != std::string_view::npos) {
    why = "not a result for id " + std::to_string(id) + ": " + std::string(before.substr(0, 200)) + "..." +
          std::string(after.substr(0, 200));
    return false;
  }
  return true;
}

// The full check, on a sample: the message parses and says exactly that; a
// 2026-07-28 result also says it is complete.
bool parses_as_echo(std::string_view message, std::int64_t id, const Run& run, std::string& why) {
  json::error_code ec;
  const json::value v = json::parse(message, ec);
  const json::value* got_id = ec ? nullptr : v.find_pointer("/id", ec);
  const json::value* text = got_id ? v.find_pointer("/result/content/0/text", ec) : nullptr;
  const json::value* result_type = got_id ? v.find_pointer("/result/resultType", ec) : nullptr;
  if (!got_id || !got_id->is_int64() || got_id->as_int64() != id || !text || !text->is_string() ||
      text->as_string() != run.expected_text) {
    why = "response " + std::to_string(id) + " is not the echo result: " + std::string(message.substr(0, 200));
    return false;
  }
  if (run.opt.stateless && (!result_type || !result_type->is_string() || result_type->as_string() != "complete")) {
    why = "response " + std::to_string(id) + " has no resultType \"complete\": " + std::string(message.substr(0, 200));
    return false;
  }
  return true;
}

class Client {
 public:
  Client(asio::any_io_executor executor, Run& run) : stream_(std::move(executor)), run_(run) {
    // Beast reads at most the buffer's free capacity (and at least 512
    // bytes) per call: a big one keeps a 256 KiB response to a few reads.
    buffer_.reserve(64u << 10);
  }

  asio::awaitable<void> serve() {
    if (!co_await connect()) co_return;
    if (run_.opt.calls > 0) {
      const bool opened = run_.opt.stateless || co_await open_session(session_id_);
      ++run_.calling;
      if (++run_.ready == run_.opt.connections) {
        if (run_.opt.pid > 0) run_.usage_before = airlock::bench::server_usage(static_cast<pid_t>(run_.opt.pid));
        run_.start = Clock::now();
        run_.deadline = run_.start + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(run_.opt.max_seconds));
        run_.gate->cancel();
      } else {
        co_await run_.gate->async_wait(kTuple);
      }
      if (opened) co_await call_loop();
      // The last connection out of its calls reads the server's usage: the
      // sessions' DELETEs below are not calls.
      if (--run_.calling == 0 && run_.opt.pid > 0)
        run_.usage_after = airlock::bench::server_usage(static_cast<pid_t>(run_.opt.pid));
      if (!opened) co_return;
      if (!run_.opt.stateless) co_await close_session();
    }
    while (run_.sessions_to_open > 0) {
      --run_.sessions_to_open;
      std::string ignored;
      if (!co_await open_session(ignored)) co_return;
    }
    beast::error_code ec;
    stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  }

 private:
  asio::awaitable<bool> connect() {
    asio::ip::tcp::resolver resolver(co_await asio::this_coro::executor);
    auto [rec, endpoints] = co_await resolver.async_resolve(run_.opt.host, run_.opt.port, kTuple);
    if (rec) {
      run_.fail("resolve: " + rec.message());
      co_return false;
    }
    stream_.expires_after(run_.opt.stall_timeout);
    auto [ec, endpoint] = co_await stream_.async_connect(endpoints, kTuple);
    if (ec) {
      run_.fail("connect: " + ec.message());
      co_return false;
    }
    stream_.socket().set_option(asio::ip::tcp::no_delay(true));
    co_return true;
  }

  http::request<http::string_body> request(std::string body, const std::string& session, bool sse) {
    http::request<http::string_body> req(http::verb::post, run_.opt.target, 11);
    req.set(http::field::host, run_.opt.host + ":" + run_.opt.port);
    req.set(http::field::content_type, "application/json");
    req.set(http::field::accept, sse ? "application/json, text/event-stream" : "application/json");
    if (!run_.opt.accept.empty()) req.set(http::field::accept, run_.opt.accept);
    if (!session.empty()) {
      req.set("Mcp-Session-Id", session);
      req.set("MCP-Protocol-Version", "2025-11-25");
    }
    req.keep_alive(true);
    req.body() = std::move(body);
    req.prepare_payload();
    return req;
  }

  // Writes `req` and reads the whole response into `out`.
  asio::awaitable<bool> exchange(http::request<http::string_body>& req, http::response<http::string_body>& out) {
    stream_.expires_after(run_.opt.stall_timeout);
    auto [wec, wn] = co_await http::async_write(stream_, req, kTuple);
    if (wec) {
      run_.fail("write: " + wec.message());
      co_return false;
    }
    http::response_parser<http::string_body> parser;
    parser.body_limit(64u << 20);
    stream_.expires_after(run_.opt.stall_timeout);
    auto [rec, rn] = co_await http::async_read(stream_, buffer_, parser, kTuple);
    if (rec) {
      run_.fail("read: " + rec.message());
      co_return false;
    }
    out = parser.release();
    co_return true;
  }

  asio::awaitable<bool> open_session(std::string& id) {
    auto init = request(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
                        R"("capabilities":{},"clientInfo":{"name":"http_load","version":"1"}}})",
                        {}, false);
    http::response<http::string_body> response;
    if (!co_await exchange(init, response)) co_return false;
    id = std::string(response["Mcp-Session-Id"]);
    if (response.result() != http::status::ok || id.empty() ||
        response.body().find(R"("result":)") == std::string::npos) {
      run_.fail("initialize failed: " + std::to_string(response.result_int()) + " " + response.body().substr(0, 300));
      co_return false;
    }
    auto initialized = request(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", id, false);
    if (!co_await exchange(initialized, response)) co_return false;
    if (response.result() != http::status::accepted) {
      run_.fail("notifications/initialized: " + std::to_string(response.result_int()) + ", wanted 202");
      co_return false;
    }
    co_return true;
  }

  // A client done with its session says so, as the spec asks, so runs
  // against the same server do not pile up sessions (and their replay
  // buffers). 405 is a server that does not allow it.
  asio::awaitable<void> close_session() {
    http::request<http::string_body> req(http::verb::delete_, run_.opt.target, 11);
    req.set(http::field::host, run_.opt.host + ":" + run_.opt.port);
    req.set("Mcp-Session-Id", session_id_);
    req.set("MCP-Protocol-Version", "2025-11-25");
    req.keep_alive(true);
    req.prepare_payload();
    http::response<http::string_body> response;
    if (!co_await exchange(req, response)) co_return;
    const auto status = response.result();
    if (status != http::status::ok && status != http::status::no_content && status != http::status::method_not_allowed)
      run_.fail("DELETE of the session: status " + std::to_string(response.result_int()));
  }

  // A tools/call: in a session, or stand-alone with the 2026-07-28 headers.
  http::request<http::string_body> call_request() {
    auto req = request({}, session_id_, run_.opt.sse || run_.opt.stateless);
    if (run_.opt.stateless) {
      req.set("MCP-Protocol-Version", kModernVersion);
      req.set("Mcp-Method", "tools/call");
      req.set("Mcp-Name", run_.opt.tool);
    }
    return req;
  }

  asio::awaitable<void> call_loop() {
    auto req = call_request();
    http::response<http::string_body> response;
    std::string why;
    for (std::int64_t done_here = 0; run_.next_id <= run_.opt.calls; ++done_here) {
      if (Clock::now() >= run_.deadline) {
        run_.hit_deadline = true;
        co_return;
      }
      const std::int64_t id = run_.next_id++;
      std::string& body = req.body();
      body.clear();
      body.append(run_.call_prefix).append(std::to_string(id)).append(run_.call_suffix);
      req.prepare_payload();
      const auto sent = Clock::now();
      if (!co_await exchange(req, response)) co_return;
      run_.last_done = Clock::now();
      run_.latency_ns.push_back((run_.last_done - sent).count());
      ++run_.completed;
      why.clear();
      if (response.result() != http::status::ok) {
        run_.fail("call " + std::to_string(id) + ": status " + std::to_string(response.result_int()) + ": " +
                  response.body().substr(0, 200));
        continue;
      }
      const std::string_view message = message_of(response, run_.opt.sse, run_.opt.stateless, why);
      const bool first = !run_.have_expected;
      if (!why.empty() || (first && !learn_expected(message, run_, why)) ||
          !echoes(message, id, run_.expected_raw, why) ||
          ((first || done_here % run_.opt.parse_every == 0) && !parses_as_echo(message, id, run_, why)))
        run_.fail(std::move(why));
      if (!response.keep_alive()) {
        run_.fail("the server closed the connection after call " + std::to_string(id));
        co_return;
      }
    }
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  Run& run_;
  std::string session_id_;
};

}  // namespace

int main(int argc, char** argv) {
  Run run;
  run.opt = parse_options(argc, argv);
  const Options& opt = run.opt;
  run.payload = opt.dirty ? airlock::bench::dirty_text(opt.payload) : make_payload(opt.payload);
  if (!opt.dirty) {
    run.expected_raw = run.expected_text = run.payload;  // words: serialized as they are
    run.have_expected = true;
  }
  run.call_prefix = R"({"jsonrpc":"2.0","id":)";
  run.call_suffix = R"(,"method":"tools/call","params":{"name":")" + opt.tool + R"(","arguments":{"text":")" +
                    airlock::bench::json_escape(run.payload) + "\"}";
  if (opt.stateless)
    run.call_suffix += R"(,"_meta":{"io.modelcontextprotocol/protocolVersion":")" + std::string(kModernVersion) +
                       R"(","io.modelcontextprotocol/clientCapabilities":{},)"
                       R"("io.modelcontextprotocol/clientInfo":{"name":"http_load","version":"1"}})";
  run.call_suffix += "}}";
  run.latency_ns.reserve(static_cast<std::size_t>(std::min<std::int64_t>(opt.calls, 1 << 22)));

  asio::io_context io(1);
  run.gate = std::make_unique<asio::steady_timer>(io, Clock::time_point::max());
  // Bounds the handshakes too; reset when the calls start.
  run.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.max_seconds));
  std::vector<std::unique_ptr<Client>> clients;
  for (std::int64_t i = 0; i < opt.connections; ++i) {
    clients.push_back(std::make_unique<Client>(io.get_executor(), run));
    asio::co_spawn(io, clients.back()->serve(), asio::detached);
  }
  long rss_before = -1;
  if (opt.idle_sessions > 0) rss_before = rss_kib(opt.pid);
  run.sessions_to_open = opt.idle_sessions;
  io.run();
  // The gate timer belongs to io's timer service: it must go before io does.
  run.gate.reset();
  clients.clear();
  const auto elapsed = run.last_done - run.start;

  if (opt.calls > 0) {
    std::sort(run.latency_ns.begin(), run.latency_ns.end());
    const double seconds = std::max(1e-9, std::chrono::duration<double>(elapsed).count());
    std::string usage;
    if (opt.pid > 0) {
      char figures[96];
      std::snprintf(figures, sizeof figures, " cpu_us_per_call=%.1f peak_rss_kib=%ld",
                    (run.usage_after.cpu_us - run.usage_before.cpu_us) /
                        static_cast<double>(std::max<std::int64_t>(run.completed, 1)),
                    run.usage_after.peak_rss_kib);
      usage = figures;
    }
    std::printf("http_load: mode=%s tool=%s payload=%zuB connections=%lld calls=%lld calls/s=%.0f p50=%lldus "
                "p99=%lldus errors=%zu payload_kind=%s%s%s%s\n",
                mode_name(opt), opt.tool.c_str(), opt.payload, static_cast<long long>(opt.connections),
                static_cast<long long>(run.completed), static_cast<double>(run.completed) / seconds,
                static_cast<long long>(percentile_us(run.latency_ns, 0.50)),
                static_cast<long long>(percentile_us(run.latency_ns, 0.99)), run.failures.size(),
                opt.dirty ? "dirty" : "plain", usage.c_str(),
                opt.dirty ? (run.text_changed ? " text_changed=1" : " text_changed=0") : "",
                run.hit_deadline ? " (stopped at --max-seconds)" : "");
  }
  if (opt.idle_sessions > 0) {
    std::this_thread::sleep_for(200ms);  // let the server's threads settle
    const long rss_after = rss_kib(opt.pid);
    std::printf("http_load: idle_sessions=%lld rss_before=%ldKiB rss_after=%ldKiB per_session=%.0fB\n",
                static_cast<long long>(opt.idle_sessions), rss_before, rss_after,
                1024.0 * static_cast<double>(rss_after - rss_before) / static_cast<double>(opt.idle_sessions));
  }
  if (opt.calls > 0 && run.completed < opt.calls && !run.hit_deadline)
    run.fail("only " + std::to_string(run.completed) + " of " + std::to_string(opt.calls) + " calls completed");
  if (!run.failures.empty()) {
    std::fprintf(stderr, "http_load: %zu failures\n", run.failures.size());
    return 1;
  }
  return 0;
}
