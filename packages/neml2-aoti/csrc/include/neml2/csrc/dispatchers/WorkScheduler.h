// Work schedulers of the dispatcher (docs/design/runtime.md, "Chunking rules"): a scheduler
// covers the rows [0, B) of one batched call with chunks, each assigned to one of its devices,
// and runs a work function on every chunk.
//
//   WorkScheduler          the interface (non-copyable, shared through std::shared_ptr)
//   SyncScheduler          one device, fixed chunk size, runs chunks on the caller's thread
//   SimpleScheduler        SyncScheduler with the reference's {device = "cpu", batch_size = 0}
//                          (also SimpleScheduler(SimpleScheduler::Config), NEML2 v3's constructor)
//   AsyncScheduler         one worker thread per device (AsyncScheduler.h)
//   StaticHybridScheduler  devices with batch sizes, capacities, priorities (AsyncScheduler.h)
//   MPIScheduler           SyncScheduler on this rank's device + this rank's slice (MPIScheduler.h)
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <c10/core/Device.h>

#include "neml2/csrc/aoti/export.h"

namespace neml2::aoti
{
/// One unit of work: rows [begin, begin + size) of the batch, to run on devices()[device].
struct WorkChunk
{
  std::size_t device = 0;
  int64_t begin = 0;
  int64_t size = 0;
};

/// The work a scheduler runs on each chunk. It may be called from a worker thread.
using Work = std::function<void(const WorkChunk &)>;

class NEML2_AOTI_EXPORT WorkScheduler
{
public:
  WorkScheduler() = default;
  virtual ~WorkScheduler();
  WorkScheduler(const WorkScheduler &) = delete;
  WorkScheduler & operator=(const WorkScheduler &) = delete;
  WorkScheduler(WorkScheduler &&) = delete;
  WorkScheduler & operator=(WorkScheduler &&) = delete;

  /// The devices chunks may be assigned to; the first one is the primary.
  [[nodiscard]] virtual const std::vector<c10::Device> & devices() const = 0;

  /// True when run() calls the work on the caller's thread, one chunk after another.
  [[nodiscard]] virtual bool synchronous() const = 0;

  /// Cover rows [0, batch) with chunks and call work(chunk) for each; returns once every chunk
  /// started has finished. A synchronous scheduler rethrows the first error as is and runs no
  /// further chunk. An asynchronous one schedules nothing after the first error, lets the chunks
  /// in flight finish, then rethrows the single error with its type, or throws AggregateError.
  virtual void run(int64_t batch, const Work & work) = 0;
};

/// One device, chunks of batch_size rows (0 = the whole batch in one chunk), on the caller's
/// thread.
class NEML2_AOTI_EXPORT SyncScheduler : public WorkScheduler
{
public:
  explicit SyncScheduler(c10::Device device, int64_t batch_size = 0);
  ~SyncScheduler() override;

  [[nodiscard]] const std::vector<c10::Device> & devices() const override;
  [[nodiscard]] bool synchronous() const override;
  void run(int64_t batch, const Work & work) override;

  [[nodiscard]] c10::Device device() const;
  /// Rows per chunk; 0 means no chunking.
  [[nodiscard]] int64_t batch_size() const;

private:
  std::vector<c10::Device> _devices;
  int64_t _batch_size;
};

/// The default scheduler: SyncScheduler{device, batch_size}, cpu and no chunking by default.
class NEML2_AOTI_EXPORT SimpleScheduler : public SyncScheduler
{
public:
  /// NEML2 v3's configuration: a torch device string ("cpu", "cuda", "cuda:1") and the rows per
  /// chunk (0 = the whole batch at once).
  struct Config
  {
    std::string device = "cpu";
    std::size_t batch_size = 0;
  };

  explicit SimpleScheduler(c10::Device device = c10::Device(c10::kCPU), int64_t batch_size = 0);
  /// FatalError for a malformed device string or a batch size beyond int64_t.
  explicit SimpleScheduler(const Config & config);
  ~SimpleScheduler() override;
};
} // namespace neml2::aoti
