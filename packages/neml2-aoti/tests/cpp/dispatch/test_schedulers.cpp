// Work schedulers without a model: chunk coverage, the greedy hybrid assignment and the async
// error rules (stop scheduling, drain in-flight chunks, rethrow or aggregate); NEML2 v3's
// configuration constructors and MPI device helpers.
#include <algorithm>
#include <cmath>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "check.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/dispatchers/AsyncScheduler.h"
#include "neml2/csrc/dispatchers/MPISimpleScheduler.h"
#include "neml2/csrc/dispatchers/SimpleScheduler.h"
#include "neml2/csrc/dispatchers/StaticHybridScheduler.h"
#include "neml2/csrc/dispatchers/WorkScheduler.h"

using namespace neml2::aoti;

namespace
{
/// Every chunk a scheduler ran, in the order run() issued them (guarded for worker threads).
struct Recorder
{
  std::mutex mutex;
  std::vector<WorkChunk> chunks;
  Work work()
  {
    return [this](const WorkChunk & c)
    {
      std::lock_guard<std::mutex> lock(mutex);
      chunks.push_back(c);
    };
  }
};

/// The chunks, sorted by first row, tile [0, batch) exactly.
bool
tiles(std::vector<WorkChunk> chunks, int64_t batch)
{
  std::sort(chunks.begin(),
            chunks.end(),
            [](const WorkChunk & a, const WorkChunk & b) { return a.begin < b.begin; });
  int64_t next = 0;
  for (const auto & c : chunks)
  {
    if (c.begin != next || c.size <= 0)
      return false;
    next += c.size;
  }
  return next == batch;
}
} // namespace

TEST_CASE(sync_chunks_tile_the_batch)
{
  const int64_t batch = 23;
  for (int64_t bs : {0, 1, 4, 5, 22, 23, 24, 100})
  {
    SimpleScheduler s(c10::Device(c10::kCPU), bs);
    Recorder r;
    s.run(batch, r.work());
    EXPECT(tiles(r.chunks, batch));
    const int64_t expected = bs == 0 ? 1 : (batch + bs - 1) / bs;
    EXPECT(int64_t(r.chunks.size()) == expected);
    for (std::size_t i = 0; i + 1 < r.chunks.size(); ++i)
      EXPECT(r.chunks[i].size == bs && r.chunks[i].begin < r.chunks[i + 1].begin);
  }
  EXPECT_THROWS(FatalError, SimpleScheduler(c10::Device(c10::kCPU), -1), "batch_size");
}

TEST_CASE(sync_first_error_stops)
{
  SimpleScheduler s(c10::Device(c10::kCPU), 2);
  int calls = 0;
  EXPECT_THROWS(ConvergenceError,
                s.run(10,
                      [&](const WorkChunk & c)
                      {
                        ++calls;
                        if (c.begin == 4)
                          throw ConvergenceError("chunk at 4");
                      }),
                "chunk at 4");
  EXPECT(calls == 3);
}

TEST_CASE(hybrid_validation)
{
  const c10::Device cpu(c10::kCPU), meta(c10::kMeta);
  EXPECT_THROWS(FatalError, StaticHybridScheduler({cpu, cpu}, {4}), "at most one cpu");
  EXPECT_THROWS(FatalError, StaticHybridScheduler({meta, meta}, {4}), "listed twice");
  EXPECT_THROWS(FatalError, StaticHybridScheduler({cpu, meta}, {4, 4, 4}), "batch_sizes has 3");
  EXPECT_THROWS(FatalError, StaticHybridScheduler({cpu}, {0}), "must be > 0");
  EXPECT_THROWS(FatalError, StaticHybridScheduler({cpu}, {8}, {4}), "below its batch size");
  EXPECT_THROWS(FatalError, StaticHybridScheduler({}, {8}), "at least one device");
  StaticHybridScheduler ok({cpu, meta}, {4, 6}, {8}, {1, 2});
  EXPECT(ok.capacities() == std::vector<int64_t>({8, 8}));
  EXPECT(ok.batch_sizes() == std::vector<int64_t>({4, 6}));
  EXPECT(!ok.synchronous() && ok.devices().size() == 2);
}

TEST_CASE(v3_config_constructors)
{
  // SimpleScheduler::Config: a device string and a size_t chunk size.
  SimpleScheduler a(SimpleScheduler::Config{});
  EXPECT(a.device() == c10::Device(c10::kCPU) && a.batch_size() == 0);
  SimpleScheduler b({"cpu", 3});
  Recorder r;
  b.run(7, r.work());
  EXPECT(r.chunks.size() == 3 && r.chunks.back().begin == 6 && r.chunks.back().size == 1);
  EXPECT_THROWS(FatalError, SimpleScheduler({"gpu-ish", 2}), "not a torch device");
  // StaticHybridScheduler::Config: strings, size_t lists and real priorities (their order kept).
  StaticHybridScheduler::Config config;
  config.devices = {"cpu", "meta"};
  config.batch_sizes = {4, 6};
  config.capacities = {8};
  config.priorities = {0.25, 7.5};
  StaticHybridScheduler h(config);
  EXPECT(h.devices() == (std::vector<c10::Device>{c10::kCPU, c10::kMeta}));
  EXPECT(h.batch_sizes() == (std::vector<int64_t>{4, 6}));
  EXPECT(h.capacities() == (std::vector<int64_t>{8, 8}));
  EXPECT(h.priorities()[1] > h.priorities()[0]);
  config.priorities = {-1.0, -1.0};
  EXPECT(StaticHybridScheduler(config).priorities()[0] ==
         StaticHybridScheduler(config).priorities()[1]);
  config.priorities = {};
  EXPECT(StaticHybridScheduler(config).priorities() == (std::vector<int64_t>{1, 1}));
  config.priorities = {1.0, std::nan("")};
  EXPECT_THROWS(FatalError, StaticHybridScheduler{config}, "finite");
  config.priorities = {};
  config.devices = {"cpu", "cpu"};
  EXPECT_THROWS(FatalError, StaticHybridScheduler{config}, "at most one cpu");
}

TEST_CASE(v3_mpi_device_helpers)
{
  EXPECT(mpi_device_index(0, 4, 2) == 0 && mpi_device_index(3, 4, 2) == 1);
  EXPECT(mpi_device_index(2, 3, 3) == 2);
  EXPECT_THROWS(FatalError, mpi_device_index(0, 1, 2), "at least one rank per device");
  EXPECT_THROWS(FatalError, mpi_device_index(0, 1, 0), "at least one device");
  EXPECT_THROWS(FatalError, mpi_device_index(4, 4, 2), "not below");
  const auto devices = parse_mpi_devices({"cpu", "cuda:0", "cuda:1"});
  EXPECT(devices.size() == 3 && devices[2] == c10::Device(c10::kCUDA, 1));
  EXPECT_THROWS(FatalError, parse_mpi_devices({}), "at least one device");
  EXPECT_THROWS(FatalError, parse_mpi_devices({"cuda", "cuda:0"}), "bare cuda");
  EXPECT_THROWS(FatalError, parse_mpi_devices({"cpu", "cpu"}), "listed twice");
  EXPECT_THROWS(FatalError, parse_mpi_devices({"meta"}), "neither cpu nor cuda");
  EXPECT_THROWS(FatalError, parse_mpi_devices({"nonsense"}), "not a torch device");
  if (!mpi_enabled())
    EXPECT_THROWS(FatalError, MPISimpleScheduler(MPISimpleScheduler::Config{{"cpu"}, {2}}), "MPI");
}

TEST_CASE(hybrid_greedy_by_priority)
{
  // meta has the higher priority and room for one 6-row chunk: while it is busy, chunks go to the
  // cpu (4 rows, room for two); the meta chunk is held until the cpu took its first chunk.
  const c10::Device cpu(c10::kCPU), meta(c10::kMeta);
  StaticHybridScheduler s({cpu, meta}, {4, 6}, {8, 6}, {1, 2});
  std::atomic<bool> cpu_started{false};
  Recorder r;
  const auto record = r.work();
  s.run(30,
        [&](const WorkChunk & c)
        {
          record(c);
          if (c.device == 1)
            while (!cpu_started)
              std::this_thread::yield();
          else
            cpu_started = true;
        });
  EXPECT(tiles(r.chunks, 30));
  std::sort(r.chunks.begin(),
            r.chunks.end(),
            [](const WorkChunk & a, const WorkChunk & b) { return a.begin < b.begin; });
  EXPECT(r.chunks.front().device == 1 && r.chunks.front().size == 6);
  EXPECT(r.chunks[1].device == 0 && r.chunks[1].begin == 6 && r.chunks[1].size == 4);
  for (const auto & c : r.chunks)
    EXPECT(c.size == (c.device == 1 ? 6 : 4) || c.begin + c.size == 30);
}

TEST_CASE(async_single_error_keeps_its_type)
{
  StaticHybridScheduler s({c10::Device(c10::kCPU)}, {3});
  EXPECT_THROWS(ConvergenceError,
                s.run(12,
                      [](const WorkChunk & c)
                      {
                        if (c.begin == 6)
                          throw ConvergenceError("rows 6..8 diverged");
                      }),
                "rows 6..8 diverged");
  // The scheduler is reusable after a failure.
  Recorder r;
  s.run(12, r.work());
  EXPECT(tiles(r.chunks, 12));
}

TEST_CASE(async_stops_scheduling_and_drains)
{
  // Two devices, one chunk in flight each. The meta chunk fails while the cpu chunk is still
  // running: nothing new is scheduled, but the cpu chunk completes before run() throws.
  StaticHybridScheduler s({c10::Device(c10::kCPU), c10::Device(c10::kMeta)}, {2});
  std::atomic<int> started{0}, finished{0};
  std::atomic<bool> failed{false};
  EXPECT_THROWS(FatalError,
                s.run(100,
                      [&](const WorkChunk & c)
                      {
                        ++started;
                        if (c.device == 1)
                        {
                          failed = true;
                          throw FatalError("meta chunk failed");
                        }
                        while (!failed)
                          std::this_thread::yield();
                        std::this_thread::sleep_for(std::chrono::milliseconds(20));
                        ++finished;
                      }),
                "meta chunk failed");
  EXPECT(started.load() < 50);
  EXPECT(finished.load() == started.load() - 1);
}

TEST_CASE(async_several_errors_aggregate)
{
  StaticHybridScheduler s({c10::Device(c10::kCPU), c10::Device(c10::kMeta)}, {5});
  std::atomic<int> arrived{0};
  auto fail_both = [&](bool fatal_on_meta)
  {
    arrived = 0;
    return [&, fatal_on_meta](const WorkChunk & c)
    {
      ++arrived;
      while (arrived < 2) // both chunks are in flight before either fails
        std::this_thread::yield();
      if (c.device == 1 && fatal_on_meta)
        throw FatalError("meta fatal");
      throw ConvergenceError("diverged on " + std::to_string(c.device));
    };
  };
  try
  {
    s.run(10, fail_both(false));
    EXPECT(false);
  }
  catch (const AggregateError & e)
  {
    EXPECT(e.errors().size() == 2);
    EXPECT(e.recoverable());
  }
  try
  {
    s.run(10, fail_both(true));
    EXPECT(false);
  }
  catch (const AggregateError & e)
  {
    EXPECT(e.errors().size() == 2);
    EXPECT(!e.recoverable());
  }
}

int
main(int argc, char ** argv)
{
  return check::main(argc, argv);
}
