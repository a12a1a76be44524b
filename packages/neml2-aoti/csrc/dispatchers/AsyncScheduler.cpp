// AsyncScheduler: chunks run on one worker thread per device; see AsyncScheduler.h for the
// error semantics (stop scheduling at the first error, drain, rethrow or aggregate).
#include "neml2/csrc/dispatchers/AsyncScheduler.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <utility>

#include <ATen/ATen.h>
#include <c10/core/thread_pool.h>
#include <c10/util/thread_name.h>
#include "neml2/csrc/aoti/Exception.h"

namespace neml2::aoti
{
namespace
{
/// Bookkeeping of one run(): rows in flight per device and the errors collected so far.
struct RunState
{
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<int64_t> load;
  int64_t in_flight = 0;
  std::vector<std::exception_ptr> errors;
};

/// torch initializes linalg backends lazily; do it once before several threads may race on it
/// (only cpu/cuda have linalg backends; other device types are left alone).
void
warm_up(const std::vector<c10::Device> & devices)
{
  for (const auto & device : devices)
    if (device.is_cpu() || device.is_cuda())
      (void)at::linalg_solve(at::eye(2, at::TensorOptions().dtype(at::kDouble).device(device)),
                             at::ones({2}, at::TensorOptions().dtype(at::kDouble).device(device)));
}
} // namespace

AsyncScheduler::AsyncScheduler(std::vector<c10::Device> devices)
  : _devices(std::move(devices))
{
  if (_devices.empty())
    throw FatalError("AsyncScheduler: at least one device is required");
  warm_up(_devices);
  _workers.reserve(_devices.size());
  for (std::size_t i = 0; i < _devices.size(); ++i)
    _workers.push_back(std::make_unique<c10::ThreadPool>(
        /*pool_size=*/1, /*numa_node_id=*/-1, [] { c10::setThreadName("neml2_worker"); }));
}

// run() returns only when no chunk is in flight, so every queue is empty here and each pool's
// destructor just joins its thread.
AsyncScheduler::~AsyncScheduler() = default;

const std::vector<c10::Device> &
AsyncScheduler::devices() const
{
  return _devices;
}

bool
AsyncScheduler::synchronous() const
{
  return false;
}

void
AsyncScheduler::run(int64_t batch, const Work & work)
{
  std::lock_guard<std::mutex> serial(_run_mutex);
  RunState state;
  state.load.assign(_devices.size(), 0);
  std::unique_lock<std::mutex> lock(state.mutex);
  for (int64_t begin = 0; begin < batch && state.errors.empty();)
  {
    const auto chunk = next_chunk(begin, batch - begin, state.load);
    if (!chunk)
    {
      if (state.in_flight == 0)
        throw FatalError("AsyncScheduler: no device can take a chunk at row " +
                         std::to_string(begin) + " although none is busy");
      state.changed.wait(lock);
      continue;
    }
    if (chunk->device >= _devices.size() || chunk->size <= 0 || chunk->begin != begin ||
        chunk->size > batch - begin)
    {
      state.changed.wait(lock, [&] { return state.in_flight == 0; });
      throw FatalError("AsyncScheduler: invalid chunk (device " + std::to_string(chunk->device) +
                       ", rows " + std::to_string(chunk->begin) + "+" +
                       std::to_string(chunk->size) + ") for row " + std::to_string(begin));
    }
    state.load[chunk->device] += chunk->size;
    ++state.in_flight;
    begin += chunk->size;
    const WorkChunk c = *chunk;
    _workers[c.device]->run(
        [&state, &work, c]() noexcept
        {
          std::exception_ptr error;
          try
          {
            work(c);
          }
          catch (...)
          {
            error = std::current_exception();
          }
          // Notify under the lock: run() may return (destroying state) right after.
          std::lock_guard<std::mutex> done(state.mutex);
          state.load[c.device] -= c.size;
          --state.in_flight;
          if (error)
            state.errors.push_back(std::move(error));
          state.changed.notify_all();
        });
  }
  state.changed.wait(lock, [&] { return state.in_flight == 0; });
  if (state.errors.size() == 1)
    std::rethrow_exception(state.errors.front());
  if (!state.errors.empty())
    throw AggregateError(std::move(state.errors));
}
} // namespace neml2::aoti
