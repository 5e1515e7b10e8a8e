// jsonrpc_dispatch_fuzz — stdio bytes through the real StdioTransport (read
// from a memfd, so framing, CR stripping and the size limit are the
// transport's own), into jsonrpc::parse and a fresh Session per input, with
// the fuzz_echo fixture plugin behind it (fuzz_server.hpp): initialize,
// every method, tool calls through the executor, the result pipeline and a
// sanitizer chain, and the 2026-07-28 per-request path. Each input is also
// given to jsonrpc::parse directly. Asserts that everything the session
// sends is one line of valid UTF-8 JSON-RPC 2.0 (outbox.hpp), and that
// closing the session ends every call (no hang: libFuzzer's -timeout).
#include "fuzz_server.hpp"
#include "mcp/jsonrpc.hpp"
#include "outbox.hpp"
#include "transport/stdio_transport.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace airlock;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = host::jsonrpc::parse(text);
  if (const auto* failure = std::get_if<host::jsonrpc::Failure>(&parsed))
    fuzz::Outbox::check(host::jsonrpc::error(failure->id, failure->code, failure->message));

  const int in = ::memfd_create("airlock-fuzz-stdin", MFD_CLOEXEC);
  if (in < 0) std::abort();
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::write(in, data + done, size - done);
    if (n <= 0) std::abort();
    done += static_cast<std::size_t>(n);
  }
  ::lseek(in, 0, SEEK_SET);
  static const int out = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  {
    fuzz::Outbox outbox;
    host::Session session(fuzz::FuzzServer::get().state(), outbox.sender());
    // A small limit, so that the oversized-line path is reachable.
    host::StdioTransport transport(in, out, 4096, fuzz::FuzzServer::get().state().executor);
    transport.run(session);
    session.close(std::chrono::milliseconds(2000));
  }
  ::close(in);
  return 0;
}
