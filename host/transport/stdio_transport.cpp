#include "transport/stdio_transport.hpp"

#include "executor/executor.hpp"

#include <spdlog/spdlog.h>

#include <poll.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

namespace airlock::host {
namespace {

using Clock = std::chrono::steady_clock;

// How long one call of a batch may run before the calls behind it are moved
// to the workers, and how often the watch looks while a batch runs. Ten
// times CallCost::kQuick: a tool that keeps under that never trips it.
constexpr std::chrono::milliseconds kStalledCall{2};
constexpr int kWatchIntervalMs = 1;

// Set on the thread running a batch: its final answers wait for the batch.
thread_local bool in_batch = false;

}  // namespace

StdioTransport::StdioTransport(int in_fd, int out_fd, std::size_t max_message_bytes, Executor& executor)
    : in_fd_(in_fd), out_fd_(out_fd), max_message_bytes_(max_message_bytes), executor_(executor) {}

StdioTransport::~StdioTransport() { stop(); }

void StdioTransport::run(Session& session) {
  relief_ = std::thread([this, &session] { take_turns(session, 1); });
  take_turns(session, 0);
}

void StdioTransport::stop() {
  end_input();
  if (relief_.joinable()) relief_.join();
}

void StdioTransport::end_input() {
  {
    std::lock_guard lock(turn_mutex_);
    ended_ = true;
  }
  turn_.notify_all();
}

void StdioTransport::take_turns(Session& session, int self) {
  std::vector<Job> jobs;
  for (;;) {
    if (!watch_until_lead(self)) return;
    // Lead: read a chunk, run its cheap calls while the other thread
    // watches, read the next; until a stalled call made the other thread
    // the reader.
    for (;;) {
      if (!read_chunk(session, jobs)) {  // the end of input collects nothing
        end_input();
        return;
      }
      if (jobs.empty()) continue;
      if (join_batch(jobs)) {
        // The other thread's batch, stalled: it keeps order, and the calls
        // joined behind the stalled one go to the workers now (input that
        // never pauses never lets the watch in wait_readable time out).
        jobs.clear();
        move_stalled_calls();
        continue;
      }
      run_batch(jobs);
      jobs.clear();
      std::lock_guard lock(turn_mutex_);
      if (leader_ != self) break;
    }
  }
}

bool StdioTransport::watch_until_lead(int self) {
  std::unique_lock lock(turn_mutex_);
  std::uint64_t seen = batches_.load();
  for (;;) {
    if (ended_) return false;
    if (leader_ == self) return true;
    // Under a steady stream of batches the watch wakes once an interval,
    // and nobody wakes it; it sleeps for good only after an interval in
    // which no batch ran, and the next batch to start wakes it.
    const std::uint64_t started = batches_.load();
    if (started == seen && !batch_running_.load() && !held_.load()) {
      watch_asleep_.store(true);
      if (!batch_running_.load()) turn_.wait(lock);
      watch_asleep_.store(false);
      seen = batches_.load();
      continue;
    }
    seen = started;
    turn_.wait_for(lock, std::chrono::milliseconds(kWatchIntervalMs));
    if (ended_ || leader_ == self || !batch_stalled()) continue;
    // A call of the leader's batch stalled: the calls behind it go to the
    // workers, the answers held so far are written, and this thread reads
    // on while the leader finishes the stalled call.
    lock.unlock();
    rescue_batch();
    lock.lock();
    if (batch_running_.load()) leader_ = self;
  }
}

ssize_t StdioTransport::read_some() {
  ssize_t n;
  if (read_nowait_) {
    iovec part{chunk_.data(), chunk_.size()};
    do {
      n = ::preadv2(in_fd_, &part, 1, -1, RWF_NOWAIT);
    } while (n < 0 && errno == EINTR);
    if (n >= 0) return n;
    // Nothing there yet: wait as below. A kind of file that cannot say so
    // (a terminal) or a kernel without the flag: wait before every read.
    if (errno != EAGAIN) {
      if (errno != EOPNOTSUPP && errno != EINVAL && errno != ENOSYS) return n;
      read_nowait_ = false;
    }
  }
  wait_readable();
  do {
    n = ::read(in_fd_, chunk_.data(), chunk_.size());
  } while (n < 0 && errno == EINTR);
  return n;
}

bool StdioTransport::read_chunk(Session& session, std::vector<Job>& batch) {
  executor_.wait_until_queued_under(kQueuedBytes, kReadWait);
  wait_for_client();
  const ssize_t n = read_some();
  if (n < 0) spdlog::error("stdin: read failed: {}", std::strerror(errno));

  auto deliver = [&] {
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    // Blank lines are not messages; some clients send them as keep-alives.
    if (line_.find_first_not_of(" \t") != std::string::npos) session.handle(line_);
    line_.clear();
  };
  if (n <= 0) {
    // A last message without its newline still counts.
    if (!skipping_ && !line_.empty()) deliver();
    return false;
  }

  const InlineCalls collecting(batch);
  std::string_view chunk(chunk_.data(), static_cast<std::size_t>(n));
  while (!chunk.empty()) {
    const auto newline = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, newline);
    if (!skipping_) {
      if (line_.size() + piece.size() > max_message_bytes_) {
        skipping_ = true;
        line_.clear();
        line_.shrink_to_fit();
        session.reject_oversized(max_message_bytes_);
      } else {
        line_.append(piece);
      }
    }
    if (newline == std::string_view::npos) break;
    if (skipping_) {
      skipping_ = false;
    } else {
      deliver();
    }
    chunk.remove_prefix(newline + 1);
  }
  return true;
}

void StdioTransport::wait_for_client() {
  if (unwritten_bytes_.load(std::memory_order_relaxed) < kUnwrittenBytes) return;
  std::unique_lock lock(write_mutex_);
  reader_waits_ = true;
  written_.wait_for(lock, kReadWait, [this] {
    return unwritten_bytes_.load(std::memory_order_relaxed) < kUnwrittenBytes || !writing_;
  });
  reader_waits_ = false;
}

void StdioTransport::wait_readable() {
  pollfd in{in_fd_, POLLIN, 0};
  for (;;) {
    const bool watching = batch_running_.load(std::memory_order_acquire) || held_.load(std::memory_order_acquire);
    const int ready = ::poll(&in, 1, watching ? kWatchIntervalMs : -1);
    if (ready != 0) return;  // readable, closed, or an error the read will name
    rescue_batch();
  }
}

void StdioTransport::rescue_batch() {
  move_stalled_calls();
  write_held();
}

void StdioTransport::move_stalled_calls() {
  std::lock_guard lock(batch_mutex_);
  if (!call_stalled()) return;
  while (!batch_.empty()) {
    auto job = InlineCalls::timed(batch_.front().run, batch_.front().cost);
    if (!executor_.try_submit(job)) return;
    batch_.pop_front();
  }
}

bool StdioTransport::batch_stalled() {
  std::lock_guard lock(batch_mutex_);
  return call_stalled();
}

bool StdioTransport::call_stalled() const {
  return call_started_ != Clock::time_point{} && Clock::now() - call_started_ > kStalledCall;
}

void StdioTransport::write_held() {
  std::unique_lock lock(write_mutex_);
  if (!writing_ && !pending_.empty()) drain(lock);
}

bool StdioTransport::join_batch(std::vector<Job>& jobs) {
  std::lock_guard lock(batch_mutex_);
  if (!batch_running_.load()) return false;
  for (Job& job : jobs) batch_.push_back(std::move(job));
  return true;
}

void StdioTransport::run_batch(std::vector<Job>& jobs) {
  {
    // batch_running_ changes under the lock only: a batch that starts as
    // the last one closes (a new leader's, after a stall) is never marked
    // over by the tail of the old one.
    std::lock_guard lock(batch_mutex_);
    for (Job& job : jobs) batch_.push_back(std::move(job));
    batch_running_.store(true);
  }
  batches_.fetch_add(1);
  // The watch sleeps only when no batch ran for an interval: most batches
  // start with it awake. (Sequentially consistent: the watch stores
  // watch_asleep_ before it reads batch_running_, this thread the other
  // way round, so one of the two sees the other's store.)
  if (watch_asleep_.load()) {
    std::lock_guard lock(turn_mutex_);
    turn_.notify_all();
  }
  in_batch = true;
  // A batch that others keep joining could hold its answers for as long as
  // calls keep coming: they are written every kFlushEvery calls as well.
  constexpr int kFlushEvery = 32;
  // One clock read a call: the reading that ends a call starts the next.
  auto started = Clock::now();
  for (int ran = 1;; ++ran) {
    Job job;
    {
      std::lock_guard lock(batch_mutex_);
      if (batch_.empty()) {
        call_started_ = {};
        batch_running_.store(false);
        break;
      }
      job = std::move(batch_.front());
      batch_.pop_front();
      call_started_ = started;
    }
    job.run();
    const auto ended = Clock::now();
    if (job.cost) job.cost->observe(ended - started);
    started = ended;
    if (ran % kFlushEvery == 0) {
      write_held();
      started = Clock::now();
    }
  }
  in_batch = false;
  write_held();
}

void StdioTransport::write(std::string message, bool may_wait) {
  std::unique_lock lock(write_mutex_);
  if (closed_) return;
  const bool hold = may_wait && in_batch && pending_bytes_ + message.size() < kHoldBytes;
  pending_bytes_ += message.size() + 1;
  unwritten_bytes_.store(unwritten_bytes_.load(std::memory_order_relaxed) + message.size() + 1,
                         std::memory_order_relaxed);
  pending_.push_back(std::move(message));
  if (writing_) return;  // the thread writing now takes it along
  if (hold) {
    held_.store(true, std::memory_order_release);
    return;
  }
  drain(lock);
}

void StdioTransport::drain(std::unique_lock<std::mutex>& lock) {
  writing_ = true;
  held_.store(false, std::memory_order_release);
  bool open = true;
  // Whatever queued up while the last lot was written goes next, until
  // nothing is left.
  while (open && !pending_.empty()) {
    outgoing_.swap(pending_);
    pending_bytes_ = 0;
    lock.unlock();
    open = write_lines(outgoing_);
    outgoing_.clear();  // each message's memory goes now, not at the next write
    lock.lock();
  }
  if (!open) {
    closed_ = true;
    pending_.clear();
    pending_bytes_ = 0;
    unwritten_bytes_.store(0, std::memory_order_relaxed);
  }
  writing_ = false;
  if (reader_waits_) written_.notify_one();
}

bool StdioTransport::write_lines(std::vector<std::string>& messages) {
  static char newline = '\n';
  // A blocking write to a pipe returns once all of it is written: however
  // slowly the client reads, so each call takes at most kPerCall messages
  // and, past the first, kWriteBytes. A message the client has whole is then
  // let go before the next call, not with the rest of the lot: while a slow
  // reader takes a lot, the answers finished meanwhile pile up behind it,
  // and the lot must not add its own to theirs (at 256 KiB x 32 in flight,
  // 54 answers were held at once).
  constexpr std::size_t kPerCall = IOV_MAX / 2;  // two parts per message
  constexpr std::size_t kWriteBytes = 256 * 1024;
  for (std::size_t from = 0; from < messages.size();) {
    parts_.clear();
    std::size_t to = from;
    for (std::size_t bytes = 0; to < messages.size() && to - from < kPerCall && (to == from || bytes < kWriteBytes);
         ++to) {
      parts_.push_back({messages[to].data(), messages[to].size()});
      parts_.push_back({&newline, 1});
      bytes += messages[to].size() + 1;
    }
    if (!write_all(parts_.data(), static_cast<int>(parts_.size()))) return false;
    std::size_t written = 0;
    for (; from < to; ++from) {
      written += messages[from].size() + 1;
      std::string().swap(messages[from]);
    }
    std::lock_guard lock(write_mutex_);
    unwritten_bytes_.store(unwritten_bytes_.load(std::memory_order_relaxed) - written, std::memory_order_relaxed);
    if (reader_waits_) written_.notify_one();
  }
  return true;
}

bool StdioTransport::write_all(iovec* part, int count) {
  while (count > 0) {
    const ssize_t n = ::writev(out_fd_, part, count);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;  // the client closed stdout; there is nobody left to answer
    }
    auto left = static_cast<std::size_t>(n);
    while (count > 0 && left >= part->iov_len) {
      left -= part->iov_len;
      ++part;
      --count;
    }
    if (count > 0) {
      part->iov_base = static_cast<char*>(part->iov_base) + left;
      part->iov_len -= left;
    }
  }
  return true;
}

}  // namespace airlock::host
