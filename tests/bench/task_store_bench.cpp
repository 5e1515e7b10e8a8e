// Times the durable task store on one thread: create, get and update of a
// typical task (small arguments; a 4 KiB result on completion), each call
// timed alone, against a SQLite file or a PostgreSQL URI. Prints the median
// and p99 per operation. Figures only; run_task_store_bench.sh runs both.
//
//   task_store_bench LOCATION [operations]    (default 2000)
#include "tasks/task_store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using airlock::host::TaskRecord;
using airlock::host::TaskStatus;
using Clock = std::chrono::steady_clock;

std::string random_task_id(std::mt19937_64& bits) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 64; ++i) id += kHex[bits() % 16];
  return id;
}

struct Timings {
  std::vector<double> micros;

  template <class Fn>
  bool time(Fn&& fn) {
    const auto start = Clock::now();
    const bool ok = fn();
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    return ok;
  }

  void print(std::string_view name) {
    std::sort(micros.begin(), micros.end());
    const auto at = [&](double q) { return micros[static_cast<std::size_t>(q * static_cast<double>(micros.size() - 1))]; };
    fmt::print("  {:<8} median {:>9.1f} us   p99 {:>9.1f} us   max {:>9.1f} us   ({} ops)\n", name, at(0.5), at(0.99),
               micros.back(), micros.size());
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: task_store_bench LOCATION [operations]\n");
    return 2;
  }
  const std::string location = argv[1];
  const int operations = argc > 2 ? std::atoi(argv[2]) : 2000;
  auto store = airlock::host::open_task_store(location);
  if (!store) {
    fmt::print(stderr, "task_store_bench: {}\n", store.error().message);
    return 1;
  }

  std::mt19937_64 bits{std::random_device{}()};
  const std::string result = R"({"content":[{"type":"text","text":")" + std::string(4096, 'r') + R"("}]})";
  std::vector<TaskRecord> records;
  Timings creates, gets, updates;
  for (int i = 0; i < operations; ++i) {
    TaskRecord record;
    record.id = random_task_id(bits);
    record.owner = "bench-owner";
    record.tool = "acme.search";
    record.arguments = R"({"query":"open issues about the parser","limit":20})";
    record.protocol_version = "2025-11-25";
    record.meta = R"({"progressToken":"p-1"})";
    record.created_ms = 1'700'000'000'000 + i;
    record.updated_ms = record.created_ms;
    record.ttl_ms = 3'600'000;
    record.poll_interval_ms = 1000;
    record.runner = "bench-node";
    record.heartbeat_ms = record.created_ms;
    if (!creates.time([&] { return bool((*store)->create(record)); })) {
      fmt::print(stderr, "task_store_bench: create failed: {}\n", (*store)->create(record).error().message);
      return 1;
    }
    record.version = 1;
    records.push_back(std::move(record));
  }
  std::shuffle(records.begin(), records.end(), bits);
  for (const auto& record : records) {
    if (!gets.time([&] {
          auto found = (*store)->get(record.id, record.owner);
          return found && found->has_value();
        })) {
      fmt::print(stderr, "task_store_bench: get failed\n");
      return 1;
    }
  }
  for (auto& record : records) {
    record.status = TaskStatus::completed;
    record.result = result;
    if (!updates.time([&] {
          auto written = (*store)->update(record);
          return written && *written;
        })) {
      fmt::print(stderr, "task_store_bench: update failed\n");
      return 1;
    }
  }
  (void)(*store)->sweep_expired(std::numeric_limits<std::int64_t>::max());

  fmt::print("task_store_bench: {}, {} tasks, one thread\n", (*store)->describe(), operations);
  creates.print("create");
  gets.print("get");
  updates.print("update");
  return 0;
}
