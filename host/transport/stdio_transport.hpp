// MCP over stdio: newline-delimited JSON-RPC on stdin/stdout. stdout carries
// protocol messages only; everything else goes to stderr.
#pragma once

#include "mcp/session.hpp"

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

struct iovec;

namespace airlock::host {

class StdioTransport {
 public:
  StdioTransport(int in_fd, int out_fd, std::size_t max_message_bytes);

  // Reads messages until end of input and hands each to `session`; a line
  // over the limit is answered with an error and skipped, never buffered.
  void run(Session& session);

  // Writes one message and its newline, whole. Any thread. Under load,
  // messages that arrive while another thread is writing are gathered and
  // written by that thread in one system call, not one call each.
  void write(std::string_view message);

 private:
  // Writes all of `parts` to out_fd_; false once the client is gone.
  bool write_all(iovec* parts, int count);

  int in_fd_;
  int out_fd_;
  std::size_t max_message_bytes_;
  std::mutex write_mutex_;  // guards pending_ and writing_
  std::string pending_;     // messages queued while another thread writes
  bool writing_ = false;    // some thread is writing to out_fd_ now
  bool closed_ = false;     // the client closed stdout
};

}  // namespace airlock::host
