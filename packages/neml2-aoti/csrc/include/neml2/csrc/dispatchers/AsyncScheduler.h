// Asynchronous schedulers (docs/design/runtime.md, "Chunking rules"): one worker thread with its
// own task queue per device (a one-thread c10::ThreadPool each, so the chunks of one device run
// in order). run() assigns chunks while devices have room (load + chunk <= capacity) and blocks
// otherwise; each task catches its own error and always reports completion. After the first error
// nothing new is scheduled, the chunks in flight drain, then one error is rethrown with its exact
// type and several become an AggregateError (recoverable iff every part is).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/Device.h>

#include "neml2/csrc/aoti/export.h"
#include "neml2/csrc/dispatchers/WorkScheduler.h"

namespace c10
{
class ThreadPool;
}

namespace neml2::aoti
{

class NEML2_AOTI_EXPORT AsyncScheduler : public WorkScheduler
{
public:
  ~AsyncScheduler() override;

  [[nodiscard]] const std::vector<c10::Device> & devices() const override;
  [[nodiscard]] bool synchronous() const override;
  /// Not reentrant: one run() at a time per scheduler (concurrent calls are serialized).
  void run(int64_t batch, const Work & work) override;

protected:
  /// Starts one worker per device (after warming up torch's lazily initialized linalg once).
  explicit AsyncScheduler(std::vector<c10::Device> devices);

  /// The next chunk starting at row begin with remaining rows left, given the rows in flight on
  /// each device, or nullopt when no device has room (run() then waits for a completion).
  [[nodiscard]] virtual std::optional<WorkChunk>
  next_chunk(int64_t begin, int64_t remaining, const std::vector<int64_t> & load) const = 0;

private:
  std::vector<c10::Device> _devices;
  /// One single-thread pool per device, in the order of _devices.
  std::vector<std::unique_ptr<c10::ThreadPool>> _workers;
  /// Serializes run() calls.
  std::mutex _run_mutex;
};

/// Devices with a chunk size, a capacity (rows in flight, >= its chunk size; default the chunk
/// size) and a priority (default 1) each; every list has length 1 (shared) or one per device. At
/// most one CPU, no duplicate device. Greedy: the next chunk goes to the highest-priority device
/// whose load + batch size fits its capacity (ties: configuration order).
class NEML2_AOTI_EXPORT StaticHybridScheduler : public AsyncScheduler
{
public:
  /// NEML2 v3's configuration: torch device strings and per-device lists (same broadcasting and
  /// defaults as the constructor below). Priorities are real numbers here; only their order
  /// matters, so they are stored as their ranks among the distinct values (priorities() returns
  /// those ranks, 0 = lowest).
  struct Config
  {
    std::vector<std::string> devices;
    std::vector<std::size_t> batch_sizes;
    std::vector<std::size_t> capacities;
    std::vector<double> priorities;
  };

  StaticHybridScheduler(std::vector<c10::Device> devices,
                        std::vector<int64_t> batch_sizes,
                        std::vector<int64_t> capacities = {},
                        std::vector<int64_t> priorities = {});
  /// FatalError for a malformed device string, a size beyond int64_t or a non-finite priority,
  /// besides the constructor's own checks.
  explicit StaticHybridScheduler(const Config & config);
  ~StaticHybridScheduler() override;

  [[nodiscard]] const std::vector<int64_t> & batch_sizes() const;
  [[nodiscard]] const std::vector<int64_t> & capacities() const;
  [[nodiscard]] const std::vector<int64_t> & priorities() const;

protected:
  [[nodiscard]] std::optional<WorkChunk>
  next_chunk(int64_t begin, int64_t remaining, const std::vector<int64_t> & load) const override;

private:
  std::vector<int64_t> _batch_sizes;
  std::vector<int64_t> _capacities;
  std::vector<int64_t> _priorities;
};
} // namespace neml2::aoti
