// An isolated plugin's life: its first worker and init, restarts with
// back-off, the round trip of one hook call, and the end.
#include "isolation/isolated_plugin.hpp"

#include "audit/audit_trail.hpp"

#include "isolation/worker_process.hpp"
#include "plugins/host_api.hpp"

#include <fmt/format.h>
#include <spdlog/logger.h>

#include <algorithm>

namespace airlock::host {
namespace {

using isolation::Frame;
using isolation::Kind;
using isolation::WireReader;
using isolation::WireWriter;
using Clock = std::chrono::steady_clock;

// How long a hook waits, for a free lane or for its lane's next frame,
// before it looks again at its call's cancellation and deadline and at
// whether the worker died: airlock_call has a flag to poll, not a way to
// be woken.
constexpr std::chrono::milliseconds kPollInterval{20};
constexpr std::chrono::milliseconds kStopGrace{2000};


std::chrono::milliseconds backoff(unsigned failures, std::chrono::milliseconds max) {
  // The first crash restarts at once (a one-off fault costs one call); each
  // crash in a row after it doubles the wait, from 250 ms up to `max`.
  if (failures <= 1) return std::chrono::milliseconds(0);
  const unsigned shift = std::min(failures - 2, 16u);
  return std::min(std::chrono::milliseconds(250) * (1u << shift), max);
}

}  // namespace

IsolatedPlugin::IsolatedPlugin(std::filesystem::path file, int image_fd, airlock_plugin_ctx& ctx,
                               IsolationSettings settings)
    : file_(std::move(file)), image_fd_(image_fd), ctx_(ctx), settings_(std::move(settings)), logger_(ctx.logger) {}

IsolatedPlugin::~IsolatedPlugin() { stop(); }

Result<IsolatedPlugin::Started> IsolatedPlugin::start(const std::filesystem::path& file, int image_fd,
                                                      airlock_plugin_ctx& ctx, const IsolationSettings& settings) {
  std::unique_ptr<IsolatedPlugin> plugin(new IsolatedPlugin(file, image_fd, ctx, settings));
  Started started;
  auto worker = plugin->boot(true, &started.init_status, &started.abi_version);
  if (!worker) return worker.error();
  plugin->current_ = std::move(*worker);
  // From here the plugin's own logger, named by set_plugin_info.
  if (ctx.logger) plugin->logger_ = ctx.logger;
  started.plugin = std::move(plugin);
  return started;
}

Result<std::shared_ptr<WorkerProcess>> IsolatedPlugin::boot(bool first, airlock_status* init_status,
                                                            std::uint32_t* abi) {
  const std::string where = file_.string();
  Inbox inbox;
  WorkerProcess::Options options{settings_.worker, file_, image_fd_, settings_.memory_mb, settings_.max_workers,
                                 logger_};
  auto spawned = WorkerProcess::spawn(options, inbox);
  if (!spawned) return spawned.error();
  std::shared_ptr<WorkerProcess> worker = std::move(*spawned);
  {
    std::lock_guard lock(entries_mutex_);
    replayed_ = 0;
    replay_diverged_ = false;
  }

  const auto deadline = Clock::now() + settings_.init_timeout;
  bool loaded = false;
  for (;;) {
    Frame frame;
    {
      std::unique_lock lock(inbox.mutex);
      inbox.ready.wait_until(lock, deadline, [&] { return !inbox.frames.empty() || inbox.dead; });
      if (inbox.frames.empty()) {
        if (inbox.dead)
          return Error{loaded ? where + ": init failed: the plugin's worker stopped unexpectedly (see the log)"
                              : where + ": the worker stopped before it loaded the plugin (see the log)"};
        worker->kill();
        return Error{fmt::format("{}: init did not finish within {} ms", where, settings_.init_timeout.count())};
      }
      frame = std::move(inbox.frames.front());
      inbox.frames.pop_front();
    }
    WireReader in(frame.body);
    if (frame.kind == Kind::load_failed) return Error{std::string(in.str())};
    if (frame.kind == Kind::loaded) {
      *abi = in.u32();
      const std::string_view summary = in.str();
      const bool complete = in.u8() != 0;
      if (first) {
        confinement_ = summary;
        fully_confined_ = complete;
      }
      loaded = true;
      continue;
    }
    if (frame.kind == Kind::host_call) {
      in.u64();
      const auto fn = static_cast<isolation::Fn>(in.u32());
      std::string reply = plugin_call(fn, in, true, first);
      if (frame.id != 0) worker->send(Kind::reply, frame.id, reply);
      continue;
    }
    if (frame.kind == Kind::done) {
      *init_status = in.i32();
      break;
    }
  }

  if (!first) {
    std::lock_guard lock(entries_mutex_);
    if (*init_status != AIRLOCK_STATUS_OK || replay_diverged_ || replayed_ != expected_.size())
      return Error{where + ": the restarted plugin did not register what it registered at first start"};
  }
  // After init the plugin's own threads may still call the host (content,
  // notifications, logs): they are served on the worker's reader thread.
  worker->serve_plugin_calls(
      [this](isolation::Fn fn, WireReader& in) { return plugin_call(fn, in, false, false); });
  // Anything that came in between init's end and the switch is served now.
  std::deque<Frame> late;
  {
    std::lock_guard lock(inbox.mutex);
    late.swap(inbox.frames);
  }
  for (auto& frame : late) {
    if (frame.kind != Kind::host_call) continue;
    WireReader in(frame.body);
    in.u64();
    const auto fn = static_cast<isolation::Fn>(in.u32());
    std::string reply = plugin_call(fn, in, false, false);
    if (frame.id != 0) worker->send(Kind::reply, frame.id, reply);
  }
  return worker;
}

std::shared_ptr<WorkerProcess> IsolatedPlugin::acquire() {
  std::lock_guard lock(start_mutex_);
  if (current_ && !current_->dead()) return current_;
  if (stopped_) return nullptr;
  const auto now = Clock::now();
  if (current_) {
    current_.reset();
    ++failures_;
    next_start_ = now + backoff(failures_, settings_.max_backoff);
    if (failures_ > 1)
      logger_->warn("worker stopped {} times in a row; next start in {} ms", failures_,
                    std::chrono::duration_cast<std::chrono::milliseconds>(next_start_ - now).count());
  }
  if (now < next_start_) return nullptr;
  airlock_status init_status = AIRLOCK_STATUS_INTERNAL;
  std::uint32_t abi = 0;
  auto worker = boot(false, &init_status, &abi);
  if (!worker) {
    ++failures_;
    next_start_ = Clock::now() + std::max(backoff(failures_, settings_.max_backoff), std::chrono::milliseconds(250));
    logger_->error("{}", worker.error().message);
    return nullptr;
  }
  restarts_.fetch_add(1);
  logger_->info("worker restarted (pid {})", (*worker)->pid());
  if (audit::enabled()) {
    audit::Event event;
    event.kind = audit::Kind::plugin_restarted;
    event.outcome = "restarted";
    event.subject = ctx_.name;
    event.detail["pid"] = (*worker)->pid();
    event.detail["failures_in_a_row"] = failures_;
    audit::record(std::move(event));
  }
  current_ = std::move(*worker);
  return current_;
}

void IsolatedPlugin::kill() {
  std::shared_ptr<WorkerProcess> worker;
  {
    std::lock_guard lock(start_mutex_);
    worker = current_;
  }
  if (worker) worker->kill();
}

std::string IsolatedPlugin::last_death() const {
  std::lock_guard lock(death_mutex_);
  return last_death_;
}

void IsolatedPlugin::stop() {
  std::shared_ptr<WorkerProcess> worker;
  {
    std::lock_guard lock(start_mutex_);
    stopped_ = true;
    worker = std::move(current_);
  }
  if (worker) worker->stop(kStopGrace);
}

IsolatedPlugin::Outcome IsolatedPlugin::run(WorkerProcess& worker, Kind kind, std::string_view body,
                                            const Target& target, const std::atomic<bool>* cancelled,
                                            std::optional<std::chrono::milliseconds> limit) {
  const auto start = Clock::now();
  const bool sanitizer = kind == Kind::sanitize_text || kind == Kind::sanitize_result;
  const auto died = [&] {
    worker.kill();  // a lane broken while the process lives: end it, so it is restarted
    worker.wait_dead(kStopGrace);
    {
      std::lock_guard lock(death_mutex_);
      last_death_ = worker.ending();
    }
    deaths_.fetch_add(1);
    return Outcome{};
  };

  // A lane first: every one may be busy with hooks of this plugin.
  Lane* lane = nullptr;
  while (!(lane = worker.take_lane(sanitizer, kPollInterval))) {
    if (worker.dead()) return died();
    if (cancelled && cancelled->load(std::memory_order_relaxed))
      return Outcome{false, AIRLOCK_STATUS_CANCELLED, std::string(4, '\0')};  // no result setters
    if (limit && Clock::now() - start > *limit) return Outcome{false, AIRLOCK_STATUS_INTERNAL, {}};
  }
  struct GiveBack {
    WorkerProcess& worker;
    Lane* lane;
    ~GiveBack() { worker.give_back(lane); }
  } give_back{worker, lane};

  isolation::Mailbox& to_worker = lane->memory.region()->to_worker;
  isolation::Mailbox& to_server = lane->memory.region()->to_server;
  // The worker empties its mailbox as soon as it takes a frame; one that
  // leaves it full this long is not a worker to wait on.
  const auto post = [&](Kind k, std::uint64_t frame_id, std::string_view b) {
    return isolation::post(to_worker, lane->fd, k, frame_id, b, settings_.cancel_grace) ==
           isolation::Received::frame;
  };
  const std::uint64_t id = worker.next_id();
  if (!post(kind, id, body)) return died();

  std::optional<Clock::time_point> cancelled_at;
  bool killed = false;
  for (;;) {
    Frame frame;
    const isolation::Received got = isolation::take(to_server, lane->fd, frame, lane->buffer, kPollInterval);
    if (got == isolation::Received::frame) {
      WireReader in(frame.body);
      if (frame.kind == Kind::done) {
        if (frame.id != id) continue;  // a hook before ours, given up on
        Outcome outcome;
        outcome.died = false;
        outcome.status = in.i32();
        outcome.rest = frame.body.size() >= 4 ? frame.body.substr(4) : std::string();
        std::lock_guard lock(start_mutex_);
        failures_ = 0;
        return outcome;
      }
      if (frame.kind == Kind::host_call) {
        const std::uint64_t scope = in.u64();
        const auto fn = static_cast<isolation::Fn>(in.u32());
        std::string reply;
        if (scope == id) {
          reply = hook_call(fn, in, target);
        } else {
          // A plugin thread still acting for a hook that has returned.
          WireWriter w;
          w.i32(AIRLOCK_STATUS_CANCELLED);
          reply = w.take();
        }
        if (frame.id != 0 && !post(Kind::reply, frame.id, reply)) return died();
        continue;
      }
      logger_->error("worker (pid {}) sent a frame of kind {} on a hook's lane; stopping it", worker.pid(),
                     static_cast<int>(frame.kind));
      return died();
    }
    if (got != isolation::Received::timeout || worker.dead()) {
      if (got == isolation::Received::broken)
        logger_->error("worker (pid {}) sent a malformed frame; stopping it", worker.pid());
      return died();
    }
    if (killed) continue;
    const auto now = Clock::now();
    if (cancelled && !cancelled_at && cancelled->load(std::memory_order_relaxed)) {
      worker.send(Kind::cancel, id, {});
      cancelled_at = now;
    }
    if (cancelled_at && now - *cancelled_at > settings_.cancel_grace) {
      logger_->warn("a call went on {} ms after it was cancelled; killing its worker (pid {})",
                    settings_.cancel_grace.count(), worker.pid());
      worker.kill();
      killed = true;
    } else if (limit && now - start > *limit + settings_.cancel_grace) {
      logger_->warn("a sanitizer step ran past {} ms; killing its worker (pid {})",
                    (*limit + settings_.cancel_grace).count(), worker.pid());
      worker.kill();
      killed = true;
    }
  }
}

}  // namespace airlock::host
