// MCP over stdio: newline-delimited JSON-RPC on stdin/stdout. stdout carries
// protocol messages only; everything else goes to stderr.
//
// Two threads take turns reading stdin: the leader reads and the other
// watches. The leader reads a chunk and dispatches its messages in order,
// as a single reader would. The tool calls in it that are cheap
// (executor/call_cost.hpp) are not handed to the workers one by one: the
// leader runs them itself, as a batch, and writes their answers in one go,
// then reads the next chunk. A burst of cheap calls costs one write, no
// wake and no context switch. Meanwhile the other thread watches the batch,
// waking once a millisecond while batches run (nobody wakes it for each
// one): when a call has run for over kStalledCall (a cheap tool turned
// slow, or hung), the calls behind it go to the workers, the answers held
// so far are written, and the watcher takes the lead, so stdin is read
// again within a few milliseconds whatever a tool does. A ping or a
// cancellation read with a batch waits for that batch, which a stall cuts
// short.
#pragma once

#include "executor/inline_calls.hpp"
#include "mcp/session.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <sys/types.h>

struct iovec;

namespace airlock::host {

class Executor;

class StdioTransport {
 public:
  // `executor` takes the calls a stalled batch leaves behind.
  StdioTransport(int in_fd, int out_fd, std::size_t max_message_bytes, Executor& executor);
  // stop()s.
  ~StdioTransport();
  StdioTransport(const StdioTransport&) = delete;
  StdioTransport& operator=(const StdioTransport&) = delete;

  // Reads messages until end of input and hands each to `session`, from one
  // thread at a time; a line over the limit is answered with an error and
  // skipped, never buffered. Returns at end of input, once the calling
  // thread's own batch (if any) has run.
  void run(Session& session);

  // Waits for the other reading thread to finish its batch and end. Call
  // after run() returned and the session closed. Idempotent.
  void stop();

  // Writes one message and its newline, whole. Any thread. Under load,
  // messages that arrive while another thread is writing are gathered and
  // written by that thread in one system call; they are kept as given, not
  // copied. `may_wait`: a final answer, which a thread running a batch holds
  // until the batch ends (or the watchdog writes it) while what it holds
  // stays under kHoldBytes; anything else is written now.
  void write(std::string message, bool may_wait = false);

  // What a batch may hold back, in bytes. Holding saves a write per answer,
  // which is most of what a small answer costs (at 4 KiB, 64 KiB held cost
  // a third more CPU per call than 1 MiB); past a few large answers there
  // is nothing left to save, and holding would only keep their memory, and
  // the client, waiting.
  static constexpr std::size_t kHoldBytes = 1024 * 1024;

  // Past either of these, stdin is read on only once the calls waiting for
  // a worker hold less (one started) and the answers not yet written hold
  // less (the client read some). A client that sends faster than the tools
  // run, or reads slower than they answer, then waits in write(2), as a
  // pipe makes it, instead of the server holding everything it sent and
  // everything it has not read (at 256 KiB x 32 in flight, most of the peak
  // RSS, and no faster). A wait lasts kReadWait at most, so a ping or a
  // cancellation still gets through to a pool held up by hung tools, or
  // from a client that writes all before it reads, a chunk at a time.
  static constexpr std::size_t kQueuedBytes = 1024 * 1024;
  static constexpr std::size_t kUnwrittenBytes = 1024 * 1024;
  static constexpr std::chrono::milliseconds kReadWait{50};

 private:
  using Job = InlineCalls::Job;

  // The life of reading thread `self` (0 or 1): watch until it has the
  // lead, then read and run batches until it loses it; returns at end of
  // input.
  void take_turns(Session& session, int self);
  // The watch over the leader's batches (see the top of this file). True
  // once `self` leads; false at end of input.
  bool watch_until_lead(int self);
  // Reads and dispatches one chunk; its cheap calls go to `batch`. False
  // at end of input.
  bool read_chunk(Session& session, std::vector<Job>& batch);
  // Waits (kReadWait at most) until the answers not yet written hold less
  // than kUnwrittenBytes, or nobody is writing them.
  void wait_for_client();
  // Reads what stdin holds into chunk_, waiting (wait_readable) only when
  // it holds nothing yet: under load a read finds data, and asking first
  // would cost a poll per chunk. As read(2) returns.
  ssize_t read_some();
  // Waits until stdin is readable, minding a running batch meanwhile.
  void wait_readable();
  // The watchdog: moves a stalled batch's waiting calls to the workers and
  // writes the answers held so far.
  void rescue_batch();
  // Its first half: a stalled batch's waiting calls go to the workers.
  void move_stalled_calls();
  // A call of the running batch has run for over kStalledCall; the second
  // with batch_mutex_ held.
  bool batch_stalled();
  bool call_stalled() const;
  void run_batch(std::vector<Job>& jobs);
  // Adds `jobs` to the batch the other thread runs; false (`jobs`
  // untouched) when none runs.
  bool join_batch(std::vector<Job>& jobs);
  // Writes what waits in pending_, unless a writer at work will.
  void write_held();
  void end_input();
  // Writes pending_ until nothing is left. Called with write_mutex_ held and
  // writing_ false; returns with it held.
  void drain(std::unique_lock<std::mutex>& lock);
  // Writes each of `messages` and a newline after it, emptying each once
  // written; false once the client is gone.
  bool write_lines(std::vector<std::string>& messages);
  // Writes all of `parts` to out_fd_; false once the client is gone.
  bool write_all(iovec* parts, int count);

  const int in_fd_;
  const int out_fd_;
  const std::size_t max_message_bytes_;
  Executor& executor_;

  // Only the leader reads these, and the lead passes under turn_mutex_.
  std::string line_;       // the message being assembled
  bool skipping_ = false;  // inside an oversized line: drop bytes until '\n'
  std::vector<char> chunk_ = std::vector<char>(64 * 1024);
  bool read_nowait_ = true;  // stdin answers a read that must not wait

  // The reading threads are 0 (run()'s caller) and 1 (relief_).
  std::mutex turn_mutex_;  // guards leader_ and ended_
  std::condition_variable turn_;
  int leader_ = 0;               // the thread that reads now
  bool ended_ = false;           // end of input: nobody leads any more
  std::thread relief_;

  std::mutex batch_mutex_;  // guards batch_ and call_started_, and every write of batch_running_
  std::deque<Job> batch_;   // a running batch's calls not started yet
  std::chrono::steady_clock::time_point call_started_{};  // the batch call running now; {}: none
  // A batch runs and takes more calls. Atomic: the watch and wait_readable
  // read it without the lock.
  std::atomic<bool> batch_running_{false};
  std::atomic<std::uint64_t> batches_{0};  // batches started, for the watch
  std::atomic<bool> watch_asleep_{false};  // the watch waits for the next batch to wake it

  std::mutex write_mutex_;  // guards pending_, pending_bytes_, writing_, closed_ and reader_waits_
  std::vector<std::string> pending_;  // messages waiting for a writer, or for a batch to end
  std::size_t pending_bytes_ = 0;     // their size, newlines included
  // pending_'s and outgoing_'s bytes not yet written; changed under
  // write_mutex_, read without it too.
  std::atomic<std::size_t> unwritten_bytes_{0};
  bool reader_waits_ = false;        // the reader waits in wait_for_client
  std::condition_variable written_;  // the writer wrote some, and the reader waits
  std::vector<std::string> outgoing_;  // what the writer writes now; only the writer touches it
  std::vector<iovec> parts_;           // outgoing_ as the writer hands it to writev
  bool writing_ = false;    // some thread is writing to out_fd_ now
  bool closed_ = false;     // the client closed stdout
  std::atomic<bool> held_{false};  // pending_ holds a batch's answers with no writer at work
};

}  // namespace airlock::host
