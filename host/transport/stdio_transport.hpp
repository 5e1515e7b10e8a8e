// MCP over stdio: newline-delimited JSON-RPC on stdin/stdout. stdout carries
// protocol messages only; everything else goes to stderr.
#pragma once

#include "mcp/session.hpp"

#include <cstddef>
#include <mutex>
#include <string_view>

namespace airlock::host {

class StdioTransport {
 public:
  StdioTransport(int in_fd, int out_fd, std::size_t max_message_bytes);

  // Reads messages until end of input and hands each to `session`; a line
  // over the limit is answered with an error and skipped, never buffered.
  void run(Session& session);

  // Writes one message and its newline, whole. Any thread.
  void write(std::string_view message);

 private:
  int in_fd_;
  int out_fd_;
  std::size_t max_message_bytes_;
  std::mutex write_mutex_;  // one message at a time on out_fd_
};

}  // namespace airlock::host
