// The trail: a bounded queue in front of one writer thread. Callers only
// ever take the queue's mutex for a push (or to count a drop), so a slow or
// stuck sink costs them nothing; the writer settles the events' pending
// digests, formats, chains, signs and writes, and is the only thread that
// touches the sink and the chain.
//
// A push wakes the writer only when it sleeps with nothing to do. Once it
// has written a batch, the writer gathers for kGather before it takes the
// next, so under load one wake-up and one write(2) carry a hundred records
// and a call never pays for a futex wake. A flush, a stop, a drop or a
// queue half full cut the gathering short.
//
// The writer wakes at least every 250 ms even when nothing is queued, to
// notice SIGHUP (whose handler may only set a flag) and a checkpoint that
// has come due.
#include "audit/audit_trail.hpp"

#include "audit/audit_chain.hpp"
#include "audit/audit_sink.hpp"
#include "audit/cef_format.hpp"
#include "audit/checkpoint_signer.hpp"
#include "audit/ocsf_format.hpp"
#include "metrics/metrics.hpp"

#include <spdlog/spdlog.h>

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

namespace airlock::host::audit {

namespace {

constexpr auto kWriterTick = std::chrono::milliseconds(250);
constexpr auto kGather = std::chrono::milliseconds(1);
// What the queued events' pending digests may hold in all (the bytes they
// cover, copied off the calls' paths). Past it a call hashes its own, so a
// writer that falls behind on large results costs time, never memory.
constexpr std::size_t kHeldBudget = std::size_t{32} << 20;

std::atomic<Trail*> g_installed{nullptr};

// Set by the SIGHUP handler, cleared by the writer that reopens its file.
std::atomic<bool> g_reopen_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler may only touch lock-free atomics");

extern "C" void on_sighup(int) { g_reopen_requested.store(true, std::memory_order_relaxed); }

}  // namespace

struct Trail::Impl {
  Impl(const AuditConfig& config, Metrics* metrics_, std::unique_ptr<Sink> sink_,
       std::optional<CheckpointSigner> signer_, std::string replica)
      : format(config.format),
        capacity(config.queue == 0 ? 1 : config.queue),
        checkpoint_interval(std::chrono::seconds(config.checkpoint_interval_s == 0 ? 1 : config.checkpoint_interval_s)),
        metrics(metrics_),
        sink(std::move(sink_)),
        signer(std::move(signer_)),
        chain(std::move(replica)),
        host(host_name()) {}

  const AuditFormat format;
  const std::size_t capacity;
  const std::chrono::seconds checkpoint_interval;
  // This mutex guards metrics (where records and drops are counted; null:
  // nowhere yet) and the counts it has not been given (count_in adds them).
  std::mutex metrics_mutex;
  Metrics* metrics;
  std::uint64_t records_uncounted = 0;
  std::uint64_t dropped_uncounted = 0;

  // Metrics only count (atomic increments), so calling them under the lock
  // is safe; the lock is what keeps a count from landing twice or nowhere
  // while count_in swaps the target.
  void count_record() noexcept {
    const std::lock_guard lock(metrics_mutex);
    if (metrics)
      metrics->audit_record();
    else
      ++records_uncounted;
  }
  void count_dropped() noexcept {
    const std::lock_guard lock(metrics_mutex);
    if (metrics)
      metrics->audit_dropped(1);
    else
      ++dropped_uncounted;
  }

  std::atomic<std::size_t> held{0};  // bytes the queued events' pending digests hold

  // This mutex guards queue, dropped_pending, queued_total, done_total,
  // flushes_waiting, writer_idle and stopping.
  std::mutex mutex;
  std::condition_variable wake;     // the writer waits here for work
  std::condition_variable written;  // flush() waits here for done_total
  // A vector the writer swaps with its batch: both keep their capacity, so
  // a push allocates nothing once the queue has been as long before.
  std::vector<Event> queue;
  std::uint64_t dropped_pending = 0;  // lost to a full queue since the writer last looked
  std::uint64_t queued_total = 0;     // events ever queued
  std::uint64_t done_total = 0;       // of those, the ones the writer is done with
  unsigned flushes_waiting = 0;
  bool writer_idle = false;  // asleep with nothing queued: the next push wakes it
  bool stopping = false;

  // What ends the writer's gathering early. Under the lock.
  bool urgent() const {
    return dropped_pending > 0 || stopping || flushes_waiting > 0 || queue.size() >= capacity / 2 ||
           g_reopen_requested.load(std::memory_order_relaxed);
  }

  // The writer's own; no lock.
  std::unique_ptr<Sink> sink;
  std::optional<CheckpointSigner> signer;
  Chain chain;
  std::string host;
  boost::json::object carried_detail;  // stated in the next record written (a torn line cut off)
  std::string lines;                   // a batch's records, joined; reused
  std::uint64_t records_since_checkpoint = 0;
  std::chrono::steady_clock::time_point last_checkpoint = std::chrono::steady_clock::now();
  bool reopen_pending = false;
  std::set<std::string> errors_logged;  // so each distinct write error is logged once
  bool failing = false;

  bool sighup_handler_installed = false;
  struct sigaction previous_sighup {};

  std::thread writer;

  void push(Event&& event) noexcept;
  void run() noexcept;
  void write_event(Event event);
  bool write_batch(std::vector<Event>& batch);
  void write_checkpoint();
  void check_reopen();
  bool stop_requested();
};

void Trail::Impl::push(Event&& event) noexcept {
  bool lost = false;
  bool notify = false;
  std::size_t event_held = 0;
  try {
    event_held = held_bytes(event);
    if (event_held > 0 && held.fetch_add(event_held, std::memory_order_relaxed) + event_held > kHeldBudget) {
      held.fetch_sub(event_held, std::memory_order_relaxed);
      event_held = 0;
      settle_digests(event);  // the writer is behind: this call hashes its own
    }
    const std::lock_guard lock(mutex);
    if (stopping || queue.size() >= capacity) {
      ++dropped_pending;
      lost = true;
    } else {
      queue.push_back(std::move(event));
      ++queued_total;
      notify = writer_idle || queue.size() == capacity / 2;
    }
  } catch (...) {
    // An allocation failed: the event is lost like one a full queue refused.
    try {
      const std::lock_guard lock(mutex);
      ++dropped_pending;
    } catch (...) {
    }
    lost = true;
  }
  if (lost) {
    held.fetch_sub(event_held, std::memory_order_relaxed);
    count_dropped();
  }
  if (notify || lost) wake.notify_one();
}

bool Trail::Impl::stop_requested() {
  const std::lock_guard lock(mutex);
  return stopping;
}

void Trail::Impl::check_reopen() {
  if (g_reopen_requested.exchange(false, std::memory_order_relaxed)) reopen_pending = true;
  if (!reopen_pending) return;
  if (auto reopened = sink->reopen(); !reopened) {
    // Keep writing where we were (a renamed file still takes records) and try again.
    if (errors_logged.insert(reopened.error().message).second)
      spdlog::error("{} (still writing to the file that was open)", reopened.error().message);
    return;
  }
  reopen_pending = false;
  const FileTail tail = sink->tail();
  Event event;
  event.kind = Kind::sink_reopened;
  event.outcome = "reopened";
  event.subject = sink->describe();
  if (tail.torn_bytes > 0) event.detail["torn_tail_bytes"] = tail.torn_bytes;
  write_event(std::move(event));
}

void Trail::Impl::write_event(Event event) {
  if (!carried_detail.empty()) {
    for (auto& [key, value] : carried_detail) event.detail[key] = value;
    carried_detail.clear();
  }
  const Severity severity = severity_of(event);
  const FormatContext context{AIRLOCK_VERSION, host};
  while (true) {
    const ChainLink link = chain.next();
    const std::string line =
        format == AuditFormat::cef ? format_cef(event, link, context) : format_ocsf(event, link, context);
    auto written = sink->write(line, severity);
    if (written) {
      chain.advance(line);
      ++records_since_checkpoint;
      count_record();
      if (failing) {
        spdlog::info("{}: audit records are written again", sink->describe());
        failing = false;
        errors_logged.clear();
      }
      return;
    }
    failing = true;
    if (errors_logged.size() > 64) errors_logged.clear();  // bounded, at the cost of logging one again
    if (errors_logged.insert(written.error().message).second)
      spdlog::error("{} (retrying every {} ms)", written.error().message, kWriterTick.count());
    if (stop_requested()) {
      // Stopping with a sink that will not take it: the record is lost, and counted.
      count_dropped();
      return;
    }
    std::this_thread::sleep_for(kWriterTick);
    // A SIGHUP may be the operator's fix (a new file): its record comes
    // first, and this one is chained after it.
    if (event.kind != Kind::sink_reopened) check_reopen();
  }
}

// Every record of `batch` chained and written in one write: a busy server
// makes one system call per wake-up, not one per record. False, with
// nothing written and the chain as it was, when the sink cannot take lines
// together or the write failed; the caller then writes one at a time,
// which retries and reports.
bool Trail::Impl::write_batch(std::vector<Event>& batch) {
  if (batch.empty() || !sink->writes_lines()) return batch.empty();
  if (!carried_detail.empty()) {
    for (auto& [key, value] : carried_detail) batch.front().detail[key] = value;
    carried_detail.clear();
  }
  const FormatContext context{AIRLOCK_VERSION, host};
  Chain trial = chain;
  lines.clear();
  for (const Event& event : batch) {
    const ChainLink link = trial.next();
    const std::size_t start = lines.size();
    if (format == AuditFormat::cef)
      lines += format_cef(event, link, context);
    else
      append_ocsf(lines, event, link, context);
    trial.advance(std::string_view(lines).substr(start));
    lines += '\n';
  }
  if (!sink->write_lines(lines)) return false;
  chain = std::move(trial);
  records_since_checkpoint += batch.size();
  for (std::size_t i = 0; i < batch.size(); ++i) count_record();
  if (failing) {
    spdlog::info("{}: audit records are written again", sink->describe());
    failing = false;
    errors_logged.clear();
  }
  return true;
}

void Trail::Impl::write_checkpoint() {
  Event event;
  event.kind = Kind::checkpoint;
  event.outcome = signer ? "signed" : "unsigned";
  event.subject = chain.replica();
  event.detail["head"] = chain.head();
  event.detail["seq"] = chain.seq();
  event.detail["records"] = records_since_checkpoint;
  if (signer) {
    event.detail["key_id"] = signer->key_id();
    event.detail["signature"] = signer->sign(checkpoint_message(chain.replica(), chain.seq(), chain.head()));
  }
  write_event(std::move(event));
  records_since_checkpoint = 0;
  last_checkpoint = std::chrono::steady_clock::now();
}

void Trail::Impl::run() noexcept {
  std::vector<Event> batch;
  bool gather = false;  // the last batch held records: more are likely on their way
  while (true) {
    std::uint64_t dropped = 0;
    bool stop = false;
    {
      std::unique_lock lock(mutex);
      if (gather) {
        wake.wait_for(lock, kGather, [this] { return urgent(); });
      } else {
        writer_idle = true;
        wake.wait_for(lock, kWriterTick, [this] { return !queue.empty() || urgent(); });
        writer_idle = false;
      }
      batch.swap(queue);
      dropped = std::exchange(dropped_pending, 0);
      stop = stopping;
    }
    const std::size_t taken = batch.size();
    gather = taken > 0;
    // Digests first: a record is formatted only once it holds no covered byte.
    for (Event& event : batch) {
      const std::size_t event_held = held_bytes(event);
      try {
        settle_digests(event);
      } catch (...) {
        spdlog::error("audit: a record's digests could not be computed (out of memory)");
      }
      held.fetch_sub(event_held, std::memory_order_relaxed);
    }
    try {
      check_reopen();
      if (dropped > 0) {
        // Where the gap is: before the records taken after it.
        Event event;
        event.kind = Kind::records_dropped;
        event.failed = true;
        event.outcome = "dropped";
        event.reason = "queue_full";
        event.detail["dropped"] = dropped;
        write_event(std::move(event));
      }
      if (!write_batch(batch))
        for (Event& event : batch) {
          check_reopen();
          write_event(std::move(event));
        }
      if (records_since_checkpoint > 0 && std::chrono::steady_clock::now() - last_checkpoint >= checkpoint_interval)
        write_checkpoint();
    } catch (const std::exception& e) {
      spdlog::error("audit: the writer lost records: {}", e.what());
    } catch (...) {
      spdlog::error("audit: the writer lost records");
    }
    batch.clear();
    {
      const std::lock_guard lock(mutex);
      done_total += taken;
      if (stop && queue.empty() && dropped_pending == 0) break;
    }
    written.notify_all();
  }
  try {
    if (records_since_checkpoint > 0) write_checkpoint();
  } catch (...) {
    spdlog::error("audit: the last checkpoint was not written");
  }
  written.notify_all();
}

void Trail::count_in(Metrics* metrics) noexcept {
  const std::lock_guard lock(impl_->metrics_mutex);
  impl_->metrics = metrics;
  if (!metrics) return;
  // What was counted while no metrics were given, exactly once.
  for (; impl_->records_uncounted > 0; --impl_->records_uncounted) metrics->audit_record();
  if (impl_->dropped_uncounted > 0) metrics->audit_dropped(std::exchange(impl_->dropped_uncounted, 0));
}

Result<std::unique_ptr<Trail>> Trail::open(const AuditConfig& config, Metrics* metrics) {
  auto sink = open_sink(config);
  if (!sink) return sink.error();
  std::optional<CheckpointSigner> signer;
  if (config.signing_key_file) {
    auto loaded = CheckpointSigner::from_file(*config.signing_key_file);
    if (!loaded) return loaded.error();
    signer.emplace(std::move(*loaded));
  }
  std::string replica = config.replica.empty() ? host_name() : config.replica;
  auto impl = std::make_unique<Impl>(config, metrics, std::move(*sink), std::move(signer), std::move(replica));

  const FileTail tail = impl->sink->tail();
  // The chain continues from this replica's last record in the file, which
  // need not be the file's last: `airlock pin` may have written after it
  // under a replica of its own. The verifier follows each replica apart.
  if (tail.last && tail.last->link.replica == impl->chain.replica()) {
    impl->chain.resume(tail.last->link.seq, tail.last_hash);
  } else if (tail.last && config.sink == AuditSinkKind::file) {
    if (auto own = last_record_of(config.file, impl->chain.replica()))
      impl->chain.resume(own->record.link.seq, own->hash);
  }
  if (tail.torn_bytes > 0) impl->carried_detail["torn_tail_bytes"] = tail.torn_bytes;

  if (config.sink == AuditSinkKind::file) {
    struct sigaction action {};
    action.sa_handler = on_sighup;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    g_reopen_requested.store(false);
    if (::sigaction(SIGHUP, &action, &impl->previous_sighup) == 0) impl->sighup_handler_installed = true;
  }
  Impl* raw = impl.get();
  impl->writer = std::thread([raw] { raw->run(); });
  return std::unique_ptr<Trail>(new Trail(std::move(impl)));
}

Trail::Trail(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Trail::~Trail() {
  if (g_installed.load() == this) g_installed.store(nullptr);
  {
    const std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->wake.notify_one();
  if (impl_->writer.joinable()) impl_->writer.join();
  if (impl_->sighup_handler_installed) ::sigaction(SIGHUP, &impl_->previous_sighup, nullptr);
}

void Trail::record(Event event) noexcept { impl_->push(std::move(event)); }

void Trail::flush() {
  std::unique_lock lock(impl_->mutex);
  const std::uint64_t target = impl_->queued_total;
  ++impl_->flushes_waiting;
  impl_->wake.notify_one();
  impl_->written.wait(lock, [&] { return impl_->done_total >= target; });
  --impl_->flushes_waiting;
}

bool enabled() noexcept { return g_installed.load(std::memory_order_acquire) != nullptr; }

void record(Event event) noexcept {
  if (Trail* trail = g_installed.load(std::memory_order_acquire)) trail->record(std::move(event));
}

void install(Trail* trail) noexcept { g_installed.store(trail, std::memory_order_release); }

}  // namespace airlock::host::audit
