// Drives an MCP server over Streamable HTTP with tools/call requests and
// prints the throughput and latency it saw. Each of C keep-alive connections
// opens its own session (initialize + notifications/initialized) and keeps
// one request in flight, so C is the number of calls in flight. Every
// response is checked: status, content type, the id, a result, the payload
// echoed back byte for byte; any failure exits non-zero.
//
//   http_load --url http://127.0.0.1:PORT/mcp [--connections C] [--calls N]
//             [--payload BYTES] [--mode json|sse] [--tool NAME]
//             [--max-seconds S] [--idle-sessions K --pid PID]
//
// --mode json sends `Accept: application/json` (one JSON body back); sse
// accepts both, so the server answers with an event stream. Latency is from
// the start of a request's write to the end of its response (for SSE, the
// last chunk). The run stops after N calls or S seconds, whichever is first.
//
// --idle-sessions K makes no calls: it opens K sessions (initialize +
// initialized, then nothing) over the C connections and prints the server's
// RSS, read from /proc/PID/status, before and after. The sessions outlive
// the connections: they stay until the server expires them.
//
// One thread: the client's cost per call stays small next to the server's,
// and it takes at most one of the machine's cores.
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
  bool sse = false;
  std::string tool = "example.echo";
  double max_seconds = 30;
  std::chrono::seconds stall_timeout{10};
  std::int64_t idle_sessions = 0;
  long pid = 0;
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "http_load: " << why
            << "\nusage: http_load --url http://127.0.0.1:PORT/PATH [--connections C] [--calls N] "
               "[--payload BYTES] [--mode json|sse] [--tool NAME] [--max-seconds S] [--stall-timeout-s S] "
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
      } else if (flag == "--mode") {
        if (value != "json" && value != "sse") usage("--mode is json or sse");
        o.sse = value == "sse";
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
  if (o.connections < 1 || o.calls < 0 || o.idle_sessions < 0 || o.max_seconds <= 0)
    usage("--connections must be positive; --calls, --idle-sessions and --max-seconds not negative");
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
// stream the data of its one `message` event (after the priming event).
// Empty, with `why` set, when the framing is wrong.
std::string_view message_of(const http::response<http::string_body>& response, bool sse, std::string& why) {
  const std::string_view type(response[http::field::content_type].data(), response[http::field::content_type].size());
  const std::string_view body = response.body();
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

// The cheap check, on every response: the envelope before the text names
// this id and a result, and the text is the payload, byte for byte.
bool echoes(std::string_view message, std::int64_t id, std::string_view payload, std::string& why) {
  constexpr std::string_view kText = R"("text":")";
  const std::size_t text_at = message.find(kText);
  if (!message.starts_with('{') || text_at == std::string_view::npos) {
    why = "no text in " + std::string(message.substr(0, 200));
    return false;
  }
  const std::string_view envelope = message.substr(0, text_at);
  char id_text[32];
  const auto id_end = std::to_chars(id_text, id_text + sizeof id_text, id).ptr;
  const std::string key = std::string(R"("id":)") + std::string(id_text, id_end);
  const std::size_t id_at = envelope.find(key);
  const char after_id = id_at == std::string_view::npos || id_at + key.size() >= envelope.size()
                            ? '\0' : envelope[id_at + key.size()];
  if ((after_id != ',' && after_id != '}') || envelope.find(R"("result":)") == std::string_view::npos ||
      envelope.find(R"("error":)") != std::string_view::npos) {
    why = "not a result for id " + std::to_string(id) + ": " + std::string(envelope.substr(0, 200));
    return false;
  }
  const std::string_view text = message.substr(text_at + kText.size());
  if (text.size() <= payload.size() || text.compare(0, payload.size(), payload) != 0 || text[payload.size()] != '"') {
    why = "response " + std::to_string(id) + " does not echo the payload: " + std::string(message.substr(0, 200));
    return false;
  }
  return true;
}

// The full check, on a sample: the message parses and says exactly that.
bool parses_as_echo(std::string_view message, std::int64_t id, std::string_view payload, std::string& why) {
  json::error_code ec;
  const json::value v = json::parse(message, ec);
  const json::value* got_id = ec ? nullptr : v.find_pointer("/id", ec);
  const json::value* text = got_id ? v.find_pointer("/result/content/0/text", ec) : nullptr;
  if (!got_id || !got_id->is_int64() || got_id->as_int64() != id || !text || !text->is_string() ||
      text->as_string() != payload) {
    why = "response " + std::to_string(id) + " is not the echo result: " + std::string(message.substr(0, 200));
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
      const bool opened = co_await open_session(session_id_);
      if (++run_.ready == run_.opt.connections) {
        run_.start = Clock::now();
        run_.deadline = run_.start + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(run_.opt.max_seconds));
        run_.gate->cancel();
      } else {
        co_await run_.gate->async_wait(kTuple);
      }
      if (!opened) co_return;
      co_await call_loop();
      co_await close_session();
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

  asio::awaitable<void> call_loop() {
    auto req = request({}, session_id_, run_.opt.sse);
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
      const std::string_view message = message_of(response, run_.opt.sse, why);
      if (!why.empty() || !echoes(message, id, run_.payload, why) ||
          (done_here % 64 == 0 && !parses_as_echo(message, id, run_.payload, why)))
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
  run.payload = make_payload(opt.payload);
  run.call_prefix = R"({"jsonrpc":"2.0","id":)";
  run.call_suffix = R"(,"method":"tools/call","params":{"name":")" + opt.tool + R"(","arguments":{"text":")" +
                    run.payload + "\"}}}";
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
    std::printf("http_load: mode=%s tool=%s payload=%zuB connections=%lld calls=%lld calls/s=%.0f p50=%lldus "
                "p99=%lldus errors=%zu%s\n",
                opt.sse ? "sse" : "json", opt.tool.c_str(), opt.payload, static_cast<long long>(opt.connections),
                static_cast<long long>(run.completed), static_cast<double>(run.completed) / seconds,
                static_cast<long long>(percentile_us(run.latency_ns, 0.50)),
                static_cast<long long>(percentile_us(run.latency_ns, 0.99)), run.failures.size(),
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
