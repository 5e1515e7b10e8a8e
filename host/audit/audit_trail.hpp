// The audit trail: events in, one hash-chained record per line out, off the
// call's path. A caller hands an Event to record(), which only queues it (a
// bounded queue, never blocking); one writer thread computes the digests
// the event left pending (audit_event.hpp), formats each record (OCSF or
// CEF), chains it to the one before, writes it to the sink, and
// every checkpoint_interval_s writes a checkpoint signed with Ed25519. A full
// queue loses records, but never silently: the loss is counted in metrics
// and stated by a records_dropped record where the gap is.
//
// One trail per process, installed at start: every part of the server (the
// call runner, egress, the HTTP front, the plugin loader) reports to it the
// way it reports to the log, without a handle threaded through each.
#pragma once

#include "audit/audit_event.hpp"
#include "config/host_config.hpp"
#include "util/error.hpp"

#include <memory>

namespace airlock::host {
class Metrics;
}

namespace airlock::host::audit {

// Whether a trail is installed. Callers test it before building an event,
// so a server without [audit] computes no digest. Any thread.
bool enabled() noexcept;

// Queues `event` on the installed trail; nothing when none is. Never blocks
// and never throws. Any thread.
void record(Event event) noexcept;

class Trail {
 public:
  // Opens the sink (and the signing key, when configured), continues the
  // chain of a file that already holds records, and starts the writer.
  // `metrics` counts records and drops; null: not counted. Errors name what
  // could not be opened or read.
  static Result<std::unique_ptr<Trail>> open(const AuditConfig& config, Metrics* metrics);

  // Writes what is queued, then a last checkpoint, and closes the sink.
  ~Trail();
  Trail(const Trail&) = delete;
  Trail& operator=(const Trail&) = delete;

  // Queues one event; see audit::record. Any thread.
  void record(Event event) noexcept;

  // Returns once every event queued before the call is written (and
  // flushed to the sink). Any thread but the writer.
  void flush();

  // Counts records and drops in `metrics` from now on, including those
  // counted before it was given (the trail opens before the plugins load,
  // and the metrics need the loaded tools' names). Not owned; outlives the
  // trail or is detached with null first.
  void count_in(Metrics* metrics) noexcept;

 private:
  struct Impl;
  explicit Trail(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Makes `trail` (not owned; null: none) the one record() reaches. Called at
// start and at stop, while no other thread records.
void install(Trail* trail) noexcept;

}  // namespace airlock::host::audit
